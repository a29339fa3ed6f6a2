"""Harness logs -> the suite's prediction files, so ``eviscope score`` / ``eviscope forcebench score``
can score (and compare, export, submit) what a harness generated.

An lm-eval ``--log_samples`` file (``samples_<task>_<time>.jsonl``) holds, per request, the row (``doc``)
and the reply (``filtered_resps``); each reply is read again by the suite's parser, independently of
what the harness aggregated.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from eviscope.harness import suite


def _read_jsonl(path: Path) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def _reply(sample: Mapping[str, Any]) -> str:
    reply = sample["filtered_resps"]
    while isinstance(reply, list):  # lm-eval nests one reply per request in lists
        reply = reply[0]
    return reply


def predictions_from_samples(
    samples: Iterable[Mapping[str, Any]], evaluator: str | None = None
) -> tuple[str, list[dict[str, Any]]]:
    """(``eviscope`` or ``forcebench``, SPEC §3 or §6 predictions) of lm-eval logged samples, in row order."""
    samples = sorted(samples, key=lambda s: s["doc_id"])
    if samples and "which" in samples[0]["doc"]:
        items = [
            suite.forcebench_item(s["doc"], s["doc"]["which"], s["doc"]["judge"], _reply(s)) for s in samples
        ]
        return "forcebench", suite.forcebench_predictions(items, evaluator)
    return "eviscope", [suite.eviscope_prediction(s["doc"], _reply(s)) for s in samples]


def convert(samples_path: Path, out: Path, evaluator: str | None = None) -> tuple[str, int]:
    """Write the predictions of an lm-eval samples file to ``out`` (JSONL); returns (kind, count)."""
    kind, predictions = predictions_from_samples(_read_jsonl(samples_path), evaluator)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("".join(json.dumps(p, ensure_ascii=False) + "\n" for p in predictions), encoding="utf-8")
    return kind, len(predictions)
