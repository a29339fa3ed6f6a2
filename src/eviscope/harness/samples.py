"""Harness logs -> the suite's prediction files, so ``eviscope score`` (also ``--config forcebench``)
can score (and compare, export, submit) what a harness generated.

An lm-eval ``--log_samples`` file (``samples_<task>_<time>.jsonl``) holds, per request, the row (``doc``)
and the reply (``filtered_resps``); an inspect-ai log (``.eval``) holds, per sample, the row's scored
fields (``metadata``) and the reply (``output.completion``). Each reply is read again by the suite's
parser, independently of what the harness aggregated; a reply whose object holds a near miss of a
prediction field (``citation`` for ``citations``) is an error naming the log, the row and the field,
as ``eviscope score`` names one in a predictions file.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from contextlib import closing
from importlib import import_module
from pathlib import Path
from typing import Any

from eviscope.core.errors import EviScopeError, plain
from eviscope.core.jsonl import json_line_error, jsonl_lines
from eviscope.core.registry import harnessed


def _read_jsonl(path: Path) -> list[dict[str, Any]]:
    """The samples of an lm-eval ``--log_samples`` file, read a line at a time with the bounded
    reader (a line over :data:`~eviscope.core.io.MAX_LINE_BYTES` is an error once that much is read)."""
    samples = []
    source = plain(str(path), None)
    with closing(jsonl_lines(path, source, place=lambda number: f"{source}:{number}")) as lines:
        for number, line in lines:
            try:
                sample = json.loads(line)
            except (UnicodeDecodeError, json.JSONDecodeError):
                raise json_line_error(f"{source}:{number}", line) from None
            if not isinstance(sample, dict) or not {"doc_id", "doc", "filtered_resps"} <= sample.keys():
                raise EviScopeError(
                    f"{source}:{number}: not an lm-eval logged sample (doc_id, doc, filtered_resps); "
                    "give the samples_<task>_<time>.jsonl that --log_samples wrote"
                )
            samples.append(sample)
    return samples


def _reply(sample: Mapping[str, Any]) -> str:
    reply = sample["filtered_resps"]
    while isinstance(reply, list):  # lm-eval nests one reply per request in lists
        reply = reply[0]
    return reply


def _benchmark_of(samples: list[Mapping[str, Any]], what: str) -> tuple[str, Any]:
    """The benchmark whose harness glue claims the first sample, and that glue."""
    for bench, harness in harnessed():
        glue = import_module(harness.glue)
        if samples and glue.claims(samples[0]):
            return bench.name, glue
    raise EviScopeError(f"{what}: no benchmark's harness task wrote these samples")


def predictions_from_samples(
    samples: Iterable[Mapping[str, Any]], evaluator: str | None = None, what: str = "samples"
) -> tuple[str, list[dict[str, Any]]]:
    """(benchmark, its predictions) of lm-eval logged samples, in row order."""
    samples = sorted(samples, key=lambda s: s["doc_id"])
    name, glue = _benchmark_of([s["doc"] for s in samples], what)
    return name, _named(what, glue.predictions, [(s["doc"], _reply(s)) for s in samples], evaluator)


def _named(
    what: str, read: Any, samples: list[tuple[Mapping[str, Any], str]], evaluator: str | None
) -> list[dict[str, Any]]:
    """The glue's predictions of ``samples``; its error (a reply's near-miss field, as
    ``eviscope score`` names one in a predictions file) names the log ``what`` too."""
    try:
        return read(samples, evaluator)
    except EviScopeError as err:
        raise EviScopeError(f"{what}: {err}") from None


def predictions_from_inspect_log(
    path: Path, evaluator: str | None = None
) -> tuple[str, list[dict[str, Any]]]:
    """(benchmark, its predictions) of an inspect-ai log, in sample order."""
    from inspect_ai.log import read_eval_log

    samples = read_eval_log(str(path)).samples or []
    name, glue = _benchmark_of([s.metadata for s in samples], str(path))
    pairs = [(s.metadata, s.output.completion) for s in samples]
    return name, _named(str(path), glue.predictions, pairs, evaluator)


def convert(log: Path, out: Path, evaluator: str | None = None) -> tuple[str, int]:
    """Write the predictions of an lm-eval samples file (``.jsonl``) or an inspect-ai log (``.eval``,
    ``.json``) to ``out`` (JSONL); returns (kind, count)."""
    if not log.is_file():
        raise EviScopeError(f"{log}: no such file")
    if log.suffix in (".eval", ".json"):
        kind, predictions = predictions_from_inspect_log(log, evaluator)
    else:
        kind, predictions = predictions_from_samples(_read_jsonl(log), evaluator, str(log))
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("".join(json.dumps(p, ensure_ascii=False) + "\n" for p in predictions), encoding="utf-8")
    return kind, len(predictions)
