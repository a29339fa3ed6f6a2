"""Counterfactual attribution (contract §7) of a finished ``eviscope run``, with the run's own backend.

The run folder's ``manifest.json`` says what was run (config, policy, backend, model, dtype,
decoding, contextualization); the backend is rebuilt from the settings it recorded
(:func:`eviscope.runner.session.backend_from_manifest`), and each counterfactual (the row
with one cluster of its documents removed) is rendered by the run's policy exactly as the run
rendered the row. Every counterfactual of every answered row goes to the backend in ONE
``complete`` call, with no re-asks: a reply that cannot be parsed, or that does not answer, is a
counterfactual without an answer.

Answers are embedded with MiniLM (:class:`~eviscope.ragonite.retrieval.Embedder`); a counterfactual
without an answer is the zero vector, whose cosine with the original answer is 0, so removing a
cluster that makes the model abstain has contribution 1 (the answer changed completely).

The evaluation is :func:`~eviscope.ragonite.attribution.evaluate_attribution` over the run's
answerable rows (``sufficient`` and ``noisy``; gold: ``supporting_doc_ids``), all of them counted:
a row the model did not answer is a failure for both methods. It is given over all answerable rows
and per variant, each with exact McNemar between the two methods.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from eviscope.core.errors import EviScopeError
from eviscope.ragonite.attribution import (
    DEFAULT_EPS,
    DEFAULT_MIN_SAMPLES,
    DEFAULT_TEMPERATURE,
    Attribution,
    AttributionAccuracy,
    CounterfactualRequest,
    Evidence,
    Row,
    attribute,
    evaluate_attribution,
)
from eviscope.ragonite.retrieval import MINILM
from eviscope.runner.backends.base import Backend, ChatRequest, SamplingConfig
from eviscope.runner.execute import generate
from eviscope.runner.manifest import MANIFEST, now, read_manifest
from eviscope.runner.session import settings_from_manifest
from eviscope.runner.store import write_atomic
from eviscope.suites.eviscope.dataset import load_rows
from eviscope.suites.eviscope.predictions import load_predictions
from eviscope.suites.eviscope.task import EviScopeTask

__all__ = [
    "EVALUATION_FILE",
    "ROWS_FILE",
    "SLICES",
    "BackendGenerate",
    "Parameters",
    "attribute_run",
    "attribution_rows",
    "backend_from_manifest",
    "embed_answers",
    "read_run",
]

ROWS_FILE = "attribution.jsonl"
EVALUATION_FILE = "attribution.json"
SLICES = ("sufficient", "noisy")
"""The answerable variants, each also evaluated on its own."""
_REQUIRED = (
    "task",
    "config",
    "policy",
    "backend",
    "model",
    "dtype",
    "seed",
    "max_tokens",
    "generation_config",
)

Embed = Callable[[Sequence[str]], np.ndarray]
Step = Callable[[str], None]


@dataclass(frozen=True)
class Parameters:
    """contract §7 parameters; the defaults are the paper's, never tuned on gold labels."""

    eps: float = DEFAULT_EPS
    min_samples: int = DEFAULT_MIN_SAMPLES
    temperature: float = DEFAULT_TEMPERATURE
    repeats: int = 1


def read_run(run_dir: Path) -> dict[str, Any]:
    """The manifest of an EviScope run folder, checked for what attribution needs."""
    path = run_dir / MANIFEST
    manifest = read_manifest(run_dir)
    if manifest is None:
        raise EviScopeError(f"{path}: no such file; --run must be a folder `eviscope run` wrote")
    missing = [key for key in _REQUIRED if manifest.get(key) is None]
    if missing:
        raise EviScopeError(f"{path}: field {missing[0]} is missing; it is not a manifest of `eviscope run`")
    if manifest["task"] != EviScopeTask.name:
        raise EviScopeError(f"{path}: field task is {manifest['task']!r}; attribution needs an EviScope run")
    if manifest.get("status") != "complete":
        raise EviScopeError(
            f"{path}: field status is {manifest.get('status')!r}; rerun its `eviscope run` to finish it first"
        )
    return manifest


def backend_from_manifest(manifest: Mapping[str, Any]) -> Backend:
    """The run's backend, rebuilt from the settings and decoding its manifest recorded."""
    sampling = SamplingConfig(
        max_tokens=manifest["max_tokens"],
        seed=manifest["seed"],
        generation_config=manifest["generation_config"],
    )
    return settings_from_manifest(manifest).create(sampling)


@dataclass
class BackendGenerate:
    """A backend and the run's policy as attribution's batched ``generate``: one ``complete`` call.

    A counterfactual's answer is the parsed reply's ``answer`` when its action is ``answer``, else ``""``.
    """

    task: EviScopeTask
    backend: Backend
    calls: int = 0
    replies: list[dict[str, Any]] = field(default_factory=list)
    """Per request: its key, the raw reply, the parsed action, and its token usage."""

    def __call__(self, requests: list[CounterfactualRequest]) -> list[str]:
        chats: list[ChatRequest] = []
        for k, request in enumerate(requests):
            documents = [{"doc_id": d.doc_id, "title": d.title, "text": d.text} for d in request.documents]
            row = {"id": f"{request.row_id}#cf{k}", "question": request.question, "documents": documents}
            chats.extend(self.task.requests(row))
        self.calls += 1
        results = generate(self.task, self.backend, chats, max_retries=0)
        answers = []
        for chat in chats:
            part, [completion] = results[chat.key]
            parsed = part.parsed or {}
            answered = parsed.get("action") == "answer"
            answers.append((parsed.get("answer") or "") if answered else "")
            self.replies.append(
                {
                    "key": chat.key,
                    "action": parsed.get("action"),
                    "raw": part.raw,
                    "prompt_tokens": completion.prompt_tokens,
                    "completion_tokens": completion.completion_tokens,
                }
            )
        return answers


def embed_answers(embed: Embed) -> Embed:
    """``embed`` with ``""`` (no answer) mapped to the zero vector (cosine 0 with every answer).

    >>> embed_answers(lambda texts: np.ones((len(texts), 2)))(["a", "", "b"]).tolist()
    [[1.0, 1.0], [0.0, 0.0], [1.0, 1.0]]
    """

    def wrapped(texts: Sequence[str]) -> np.ndarray:
        present = [i for i, text in enumerate(texts) if text]
        vectors = embed([texts[i] for i in present]) if present else np.zeros((0, 1))
        out = np.zeros((len(texts), vectors.shape[1]), dtype=np.float64)
        out[present] = vectors
        return out

    return wrapped


def attribution_rows(rows: Sequence[Mapping[str, Any]], answers: Mapping[str, str | None]) -> list[Row]:
    """Attribution inputs: each row as shown (question, documents) and the run's answer (None: none).

    >>> row = {"id": "r", "question": "Q?", "documents": [{"doc_id": "d", "title": "T", "text": "x"}]}
    >>> attribution_rows([row], {"r": "y"})[0].documents
    (Evidence(doc_id='d', text='x', title='T'),)
    """
    return [
        Row(
            str(row["id"]),
            row["question"],
            tuple(Evidence(str(d["doc_id"]), d["text"], d["title"]) for d in row["documents"]),
            answers.get(str(row["id"])),
        )
        for row in rows
    ]


def _accuracy(result: AttributionAccuracy) -> dict[str, Any]:
    return {
        "rows": result.rows,
        "counterfactual": result.counterfactual,
        "naive": result.naive,
        "counterfactual_hits": sum(result.counterfactual_hits),
        "naive_hits": sum(result.naive_hits),
        "mcnemar": {"b": result.b, "c": result.c, "p_value": result.p_value},
    }


def _run_rows(
    run_dir: Path, manifest: Mapping[str, Any], dataset: Path, squad: str | None
) -> list[dict[str, Any]]:
    """The rows the run showed the model (contextualized as it was), in run order."""
    rows = load_rows(manifest["config"], dataset)
    context = manifest.get("contextualize")
    if context:
        from eviscope.suites.eviscope.row_context import contextualize_from_squad

        rows, record = contextualize_from_squad(rows, squad or context["squad"])
        if record["squad_checksum"] != context["squad_checksum"]:
            raise EviScopeError(
                f"{run_dir / MANIFEST}: field contextualize.squad_checksum is {context['squad_checksum']}, "
                f"but the SQuAD copy at {record['squad']} is {record['squad_checksum']}; point --squad at the run's copy"
            )
    total = (manifest.get("rows") or {}).get("total", len(rows))
    return rows[:total]


def attribute_run(
    run_dir: Path,
    dataset: Path,
    parameters: Parameters,
    *,
    embed: Embed | None = None,
    backend: Backend | None = None,
    squad: str | None = None,
    step: Step = lambda description: None,
) -> dict[str, Any]:
    """Attribute every answered row of the run, evaluate against gold, write both files; the evaluation.

    ``embed`` defaults to MiniLM (cached), ``backend`` to the run's, rebuilt from its manifest.
    Writes :data:`ROWS_FILE` (one line per row) and :data:`EVALUATION_FILE` into ``run_dir``.
    """
    started = now()
    manifest = read_run(run_dir)
    step("reading rows and predictions")
    rows = _run_rows(run_dir, manifest, dataset, squad)
    predictions = load_predictions(run_dir / "predictions.jsonl", rows)
    answers = {p.id: p.answer if p.action == "answer" and p.answer else None for p in predictions}
    inputs = attribution_rows(rows, answers)
    step(f"loading {manifest['backend']} backend {manifest['model']}")
    backend = backend or backend_from_manifest(manifest)
    if embed is None:
        from eviscope.ragonite.retrieval import Embedder

        embed = Embedder(show_progress=False)
    generate_ = BackendGenerate(EviScopeTask(manifest["policy"]), backend)
    engine_calls = backend.engine_calls
    embeds = iter(("embedding evidences", "embedding answers"))

    def counted_embed(texts: Sequence[str]) -> np.ndarray:
        step(f"{next(embeds)} ({len(texts)}, {MINILM.split('/')[-1]})")
        return embed_answers(embed)(texts)

    def counted_generate(requests: list[CounterfactualRequest]) -> list[str]:
        step(f"generating {len(requests)} counterfactuals in one backend call")
        return generate_(requests)

    results = attribute(
        inputs,
        counted_generate,
        counted_embed,
        eps=parameters.eps,
        min_samples=parameters.min_samples,
        temperature=parameters.temperature,
        repeats=parameters.repeats,
    )
    step("evaluating against supporting_doc_ids")
    by_id: dict[str, Attribution | None] = {row.row_id: a for row, a in zip(inputs, results, strict=True)}
    answerable = [row for row in rows if row["answerable"]]
    evaluation = {"answerable": _accuracy(evaluate_attribution(answerable, by_id))}
    for variant in SLICES:
        subset = [row for row in answerable if row["variant"] == variant]
        evaluation[variant] = _accuracy(evaluate_attribution(subset, by_id))
    lines = []
    for row, found in zip(rows, results, strict=True):
        gold = sorted(set(row["supporting_doc_ids"]) & {str(d["doc_id"]) for d in row["documents"]})
        line: dict[str, Any] = {
            "id": row["id"],
            "variant": row["variant"],
            "answer": answers[row["id"]],
            "gold_doc_ids": gold,
            "evaluated": bool(row["answerable"]),
            "counterfactual_hit": found is not None and found.top_doc_id in gold,
            "naive_hit": found is not None and found.naive_top_doc_id in gold,
            "attributed": found is not None,
        }
        if found is not None:
            line |= {k: v for k, v in found.to_dict().items() if k != "row_id"}
        lines.append(json.dumps(line, ensure_ascii=False))
    write_atomic(run_dir / ROWS_FILE, "".join(f"{line}\n" for line in lines))
    report = {
        "run": str(run_dir),
        "config": manifest["config"],
        "policy": manifest["policy"],
        "backend": manifest["backend"],
        "model": manifest["model"],
        "contextualize": bool(manifest.get("contextualize")),
        "parameters": {
            "eps": parameters.eps,
            "min_samples": parameters.min_samples,
            "temperature": parameters.temperature,
            "repeats": parameters.repeats,
            "metric": "cosine",
            "embedder": MINILM,
            "no_answer": "zero vector (cosine 0 with the original answer)",
        },
        "rows": {
            "run": len(rows),
            "answered": sum(a is not None for a in answers.values()),
            "attributed": sum(r is not None for r in results),
            "answerable": len(answerable),
        },
        "counterfactuals": {
            "requests": len(generate_.replies),
            "backend_calls": generate_.calls,
            "engine_calls": backend.engine_calls - engine_calls,
            "repeats": parameters.repeats,
            "re_asks": 0,
            "without_answer": sum(r["action"] != "answer" for r in generate_.replies),
            "unparsable": sum(r["action"] is None for r in generate_.replies),
            "prompt_tokens": sum(r["prompt_tokens"] for r in generate_.replies),
            "completion_tokens": sum(r["completion_tokens"] for r in generate_.replies),
        },
        "evaluation": evaluation,
        "started_at": started,
        "finished_at": now(),
    }
    write_atomic(run_dir / EVALUATION_FILE, json.dumps(report, indent=2, ensure_ascii=False) + "\n")
    return report
