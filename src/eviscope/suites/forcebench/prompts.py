"""The four ForceBench judge prompts (contract §6), their label sets, and the one parser for their output.

Prompt files live beside this module as ``prompts/<name>.<version>.txt``; a template has the
placeholders ``{context}``, ``{evidence}`` and ``{claim}`` and asks for JSON ``{"label": …}`` only.

| name | prompt | labels |
| --- | --- | --- |
| `generic` | generic support | `fully_supported`, `partially_supported`, `unsupported`, `contradicted`, `irrelevant` |
| `axis_free` | minimal axis-free force | `force_calibrated`, `force_gap`, `contradicted`, `irrelevant` |
| `force_aware` | axis-list force-aware | as `axis_free` |
| `dummy_axis` | dummy-axis control (irrelevant rubric dimensions) | as `axis_free` |

>>> parse_label("generic", 'Sure. {"label": "partially_supported"}')
'partially_supported'
>>> parse_label("force_aware", '{"label": "fully_supported"}') is None
True
"""

from __future__ import annotations

import re
from functools import cache
from importlib import resources

from eviscope.core.untrusted_json import UntrustedJSONError, loads
from eviscope.suites.forcebench.scoring import PROMPT_LABELS

__all__ = [
    "PARSER_VERSION",
    "PROMPT_NAMES",
    "PROMPT_VERSION",
    "label_set",
    "parse_label",
    "prompt_id",
    "render",
    "template",
]

PROMPT_VERSION = "v1"
PARSER_VERSION = "eviscope.forcebench.parse_label/1"
"""Recorded in every ForceBench run's manifest; bump it when :func:`parse_label` changes what a reply means."""
PROMPT_NAMES: tuple[str, ...] = tuple(PROMPT_LABELS)

_JSON_OBJECT = re.compile(r"\{[^{}]*\}")


def prompt_id(name: str) -> str:
    """The versioned id of a prompt, recorded in run manifests: ``force_aware.v1``."""
    return f"{name}.{PROMPT_VERSION}"


def label_set(name: str) -> tuple[str, ...]:
    """The labels prompt ``name`` allows, in its file's order."""
    return tuple(PROMPT_LABELS[name])


@cache
def template(name: str) -> str:
    """The text of prompt ``name`` at ``PROMPT_VERSION``."""
    if name not in PROMPT_LABELS:
        raise KeyError(f"unknown ForceBench prompt {name!r}; known: {', '.join(PROMPT_NAMES)}")
    return (
        resources.files("eviscope.suites.forcebench")
        .joinpath("prompts")
        .joinpath(f"{prompt_id(name)}.txt")
        .read_text("utf-8")
    )


def render(name: str, *, context: str, evidence: str, claim: str) -> str:
    """The prompt ``name`` filled in for one claim."""
    return template(name).format(context=context, evidence=evidence, claim=claim)


def parse_label(name: str, output: str) -> str | None:
    """The label a judge's ``output`` gives under prompt ``name``, or None when there is none.

    The first JSON object with a string ``label`` wins; failing that, a reply whose only content is
    one allowed label (in any case, quotes or back-ticks) is taken. A label outside the prompt's set
    is None, and so scores as missing. Each candidate is read by
    :func:`eviscope.core.untrusted_json.loads`: one nested past its depth limit holds no label.
    """
    allowed = set(label_set(name))
    for candidate in _JSON_OBJECT.findall(output):
        try:
            obj = loads(candidate)
        except UntrustedJSONError:  # not JSON, or nested past the depth limit: no label here
            continue
        if isinstance(obj, dict) and isinstance(obj.get("label"), str):
            label = obj["label"].strip().lower()
            return label if label in allowed else None
    bare = output.strip().strip("`'\". ").lower()
    return bare if bare in allowed else None
