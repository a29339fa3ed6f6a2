"""The metric Spaces' page: a small Gradio widget over an ``evaluate`` module, with a ``/compute`` API.

``evaluate`` ships ``evaluate.utils.launch_gradio_widget``, but its released versions (0.4.6 and
earlier) build the page with ``gr.inputs``, which Gradio 4 removed; so the metric Spaces use this
widget instead. Predictions and references go in as JSON text (a JSON list, or one JSON object per
line), exactly what ``module.compute`` takes; the result comes back as JSON. A bad input is one line
(the module's :class:`~eviscope.core.errors.EviScopeError`) shown to the user and to API clients,
HTML-escaped, as gradio renders an error message as HTML and the line quotes the ids it was given.
"""

from __future__ import annotations

import json
from typing import Any

import evaluate
import gradio as gr

from eviscope.core.errors import EviScopeError
from eviscope.space.safe import html_text

__all__ = ["build_widget", "parse_records"]


def parse_records(text: str, what: str) -> list[Any]:
    """``text`` as a list: a JSON list, or JSON lines (blank lines skipped).

    >>> parse_records('[{"id": "a"}]', "predictions")
    [{'id': 'a'}]
    >>> parse_records('{"id": "a"}\\n\\n{"id": "b"}', "predictions")
    [{'id': 'a'}, {'id': 'b'}]
    >>> parse_records('{"id": ', "references")
    Traceback (most recent call last):
    ...
    eviscope.core.errors.EviScopeError: references line 1: not JSON: Expecting value
    """
    stripped = text.strip()
    if stripped.startswith("["):
        try:
            value = json.loads(stripped)
        except json.JSONDecodeError as err:
            raise EviScopeError(f"{what}: not a JSON list: {err.msg} at line {err.lineno}") from None
        return list(value)
    records = []
    for number, line in enumerate(stripped.splitlines(), 1):
        if line.strip():
            try:
                records.append(json.loads(line))
            except json.JSONDecodeError as err:
                raise EviScopeError(f"{what} line {number}: not JSON: {err.msg}") from None
    return records


def build_widget(module: evaluate.EvaluationModule, *, title: str) -> gr.Blocks:
    """The page of the metric Space of ``module``: inputs, a Compute button (API ``/compute``), the card."""

    def compute(predictions: str, references: str) -> dict[str, Any]:
        try:
            return module.compute(
                predictions=parse_records(predictions, "predictions"),
                references=parse_records(references, "references"),
            )
        except (EviScopeError, ValueError, TypeError) as err:
            message = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
            raise gr.Error(html_text(message), print_exception=False) from None

    with gr.Blocks(title=title) as demo:
        gr.Markdown(f"# {title}\n\n{module.description}")
        with gr.Row():
            predictions = gr.Code(label="predictions (a JSON list, or JSON lines)", language="json")
            references = gr.Code(label="references (a JSON list, or JSON lines)", language="json")
        button = gr.Button("Compute", variant="primary")
        result = gr.JSON(label="result")
        button.click(compute, [predictions, references], result, api_name="compute")
        gr.Markdown(f"## Inputs and outputs\n\n```\n{module.inputs_description}\n```")
        gr.Markdown(f"## Citation\n\n```bibtex\n{module.citation}\n```")
    return demo
