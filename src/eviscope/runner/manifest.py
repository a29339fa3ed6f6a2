"""``manifest.json``: what a run was, enough to reproduce it and to refuse mixing two runs in one folder.

Written when a session starts (``status: running``, its session listed with ``finished_at: null``,
which a killed session keeps), again once its backend is up (with the backend's details), and when
it ends (``complete``, or ``incomplete`` when rows are left; a session stopped by an error records
it), atomically each time. Parse failures, retries and usage are counted from the journal, so they
stay right across kills and resumes; so are the engine calls of a session killed before it could
count them (``finished_at: null``): the calls of the rows it journaled (each record names its
session), which for the OpenAI-compatible backend are its HTTP calls, retries included. Calls in
flight at the kill, for rows not journaled, are not known (their rows are asked again).
"""

from __future__ import annotations

import hashlib
import json
import platform
import sys
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from eviscope import __version__
from eviscope.core.errors import EviScopeError, os_error
from eviscope.core.layout import PREDICTIONS_FILE
from eviscope.runner import model_files
from eviscope.runner.accounting import PriceTable, totals
from eviscope.runner.backends.base import BackendInfo, SamplingConfig
from eviscope.runner.store import write_atomic
from eviscope.runner.tasks import RETRY_INSTRUCTION, Task


def text_sha256(text: str) -> str:
    """SHA-256 of a prompt text, as recorded in the manifest."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def rows_sha256(task: Task, rows: Iterable[Mapping[str, Any]]) -> str:
    """The fingerprint of the rows a run asked, recorded as the manifest's ``rows.sha256``: SHA-256
    of the canonical JSON of each row's id and requests (messages and schema), in id order. Rows
    asked the same give the same fingerprint whatever else of them differs; a row redrawn under the
    same id changes it."""
    asked = sorted(
        [row["id"], [[request.messages, request.schema] for request in task.requests(row)]] for row in rows
    )
    return hashlib.sha256(json.dumps(asked, sort_keys=True, ensure_ascii=False).encode()).hexdigest()


def schema_hash(schema: Mapping[str, Any]) -> str:
    """SHA-256 of a schema's canonical JSON, recorded in the manifest."""
    return hashlib.sha256(json.dumps(schema, sort_keys=True).encode()).hexdigest()


def model_identity(
    name: str, *, local: str | None, flag: str = "--model", served: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """The manifest's ``model_identity``: which weights answered, as far as this machine can know.

    ``name`` is the model as the run names it (``--model``); ``local`` the model on this machine,
    if any (the transformers and vLLM backends: ``--model`` itself; the OpenAI-compatible backend:
    ``--model-file``, the option ``flag`` names in errors). A GGUF file (or a folder holding one)
    is that file; a model folder is every file directly in it; a hub id, or a name only a server
    knows, is no file. Each file is listed with its size and SHA-256
    (:func:`~eviscope.runner.model_files.file_facts`, cached). The licence is the first found of:
    the GGUF metadata's ``general.license``, the ``license`` of the model card (``README.md``)
    beside the files, the licence of the Python package that ships them (``package``). ``served``
    is what the server lists for the model (its ``/v1/models`` entry, or why there is none)."""
    source = model_files.model_source(local, flag) if local else None
    path = None if source is None else (source.file or Path(source.name_or_path))
    if path is not None and path.is_file():
        files = [path]
    elif path is not None and path.is_dir():
        files = sorted(p for p in path.iterdir() if p.is_file() and not p.name.startswith("."))
    else:
        files = []
    facts = {file.name: model_files.file_facts(file) for file in files}
    package = model_files.shipping_package(files[0]) if files else None
    licences = [(f"GGUF metadata of {n}", fact["license"]) for n, fact in facts.items()]
    if files:
        licences.append(("model card README.md", model_files.card_license(files[0].parent)))
    if package:
        licences.append((f"package {package['name']} {package['version']}", package["license"]))
    license_from, licence = next(((where, given) for where, given in licences if given), (None, None))
    identity = {
        "name": name,
        "path": str(path.resolve()) if files and path else None,
        "files": [
            {"name": f.name, "bytes": f.stat().st_size, "sha256": facts[f.name]["sha256"]} for f in files
        ],
        "license": licence,
        "license_from": license_from,
        "package": package,
    }
    if served is not None:
        identity["served"] = dict(served)
    return identity


MANIFEST = "manifest.json"

GENERATION_CONFIG_MEANING = {
    "engine": "the engine's defaults (the model's generation_config.json was not used)",
    "model": "the model's generation_config.json, overridden by temperature 0",
}

IDENTITY = (
    "config",
    "task",
    "policy",
    "judge",
    "evaluator",
    "backend",
    "model",
    "revision",
    "dtype",
    "prompt",
    "schema_sha256",
    "seed",
    "generation_config",
    "max_tokens",
    "parser_version",
    "max_parse_retries",
    "contextualize",
)
"""Fields that must match for a rerun to resume a run folder (``contextualize`` is set only by
``eviscope run --contextualize``)."""


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def identity(
    *,
    config: str,
    task: Task,
    backend: str,
    model: str,
    revision: str | None,
    dtype: str | None,
    sampling: SamplingConfig,
    max_parse_retries: int,
) -> dict[str, Any]:
    """The fields that define a run, as asked for (see :data:`IDENTITY`)."""
    return {
        "config": config,
        "task": task.name,
        "policy": getattr(task, "policy", None),
        "judge": getattr(task, "judge", None),
        "evaluator": getattr(task, "evaluator", None),
        "backend": backend,
        "model": model,
        "revision": revision,
        "dtype": dtype,
        "prompt": {"id": task.prompt_id, "file": task.prompt_file, "sha256": text_sha256(task.prompt_text)},
        "schema_sha256": schema_hash(task.schema),
        "seed": sampling.seed,
        "generation_config": sampling.generation_config,
        "max_tokens": sampling.max_tokens,
        "parser_version": task.parser_version,
        "max_parse_retries": max_parse_retries,
    }


def read_manifest(out_dir: Path) -> dict[str, Any] | None:
    path = out_dir / MANIFEST
    try:
        text = path.read_text("utf-8")
    except FileNotFoundError:
        return None
    except OSError as err:
        raise os_error(path, err, "read", hint="") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as err:
        raise EviScopeError(f"{path}: not valid JSON ({err.msg}); move it away to start over") from None


def run_system(predictions: Path) -> str:
    """The system a predictions file holds, as reports and plots name it: ``<model> (<policy or
    judge>)`` from the manifest of the run folder holding it (``runs/NAME/predictions.jsonl``), else
    that folder's name, or the file's stem for a loose file.

    >>> run_system(Path("runs/lexical-eviscope-v1.1/predictions.jsonl"))
    'lexical-eviscope-v1.1'
    >>> run_system(Path("mine.jsonl"))
    'mine'
    """
    if predictions.name != PREDICTIONS_FILE:
        return predictions.stem
    try:
        manifest = read_manifest(predictions.parent)
    except EviScopeError:  # a broken manifest does not stop a score; the folder still names the run
        manifest = None
    if not isinstance(manifest, dict) or not isinstance(manifest.get("model"), str):
        return predictions.parent.name
    model = Path(manifest["model"]).name  # a hub id or a path: its last part
    setting = manifest.get("policy") or manifest.get("judge")
    return f"{model} ({setting})" if setting else model


def check_resumable(existing: Mapping[str, Any], new: Mapping[str, Any], out_dir: Path) -> None:
    """Refuse to resume a run folder that holds a run with other settings."""
    for key in IDENTITY:
        if existing.get(key) != new.get(key):
            raise EviScopeError(
                f"{out_dir}/ holds a run with {key}={json.dumps(existing.get(key))}, and this command "
                f"asks for {key}={json.dumps(new.get(key))}: use another --out, or the same settings "
                "to resume that run"
            )


def build(
    run_identity: Mapping[str, Any],
    *,
    status: str | None = None,
    previous: Mapping[str, Any] | None,
    info: BackendInfo,
    schema: dict[str, Any],
    prices: PriceTable,
    batch_size: int,
    rows_total: int,
    rows_asked: str,
    records: Iterable[Mapping[str, Any]],
    sessions: list[dict[str, Any]],
) -> dict[str, Any]:
    """The whole manifest, from the run's identity, its backend, the fingerprint of its rows
    (:func:`rows_sha256`) and the journal so far."""
    records = list(records)
    parse = {
        k: sum(r["parse"].get(k, 0) for r in records)
        for k in ("failures", "retries", "unresolved", "truncated")
    }
    done = len(records)
    return {
        **run_identity,
        "status": status or ("complete" if done == rows_total else "incomplete"),
        "eviscope_version": __version__,
        "resolved_revision": info.revision,
        "model_identity": info.model_identity or None,
        "tensor_parallel_size": info.tensor_parallel_size,
        # the Ray cluster of the latest session that ran on one (version, address, workers, GPUs)
        "ray": next((s["ray"] for s in reversed(sessions) if "ray" in s), None),
        "batch_size": batch_size or "all pending rows",
        "sampling": info.sampling,
        "generation_config_meaning": GENERATION_CONFIG_MEANING[run_identity["generation_config"]],
        "structured_output": info.structured_output,
        "schema": schema,
        "retry_instruction": RETRY_INSTRUCTION,
        "retries": {
            "max_parse_retries": run_identity["max_parse_retries"],
            "parse_retries_made": parse["retries"],
        },
        "parse_failures": {"replies": parse["failures"], "unresolved": parse["unresolved"]},
        "truncated": parse["truncated"],
        "prices": prices.as_dict(),
        "usage": totals(records),
        "rows": {"total": rows_total, "done": done, "sha256": rows_asked},
        "engine_calls": _engine_calls(sessions, records),
        "started_at": (previous or {}).get("started_at") or now(),
        "finished_at": now() if done == rows_total else None,
        "sessions": sessions,
        "backend_details": info.extra,
        "python": sys.version.split()[0],
        "platform": platform.platform(),
    }


def _engine_calls(sessions: list[dict[str, Any]], records: list[Mapping[str, Any]]) -> int:
    """Each session's engine calls: as it counted them, or for one killed before it could (no
    ``engine_calls``), the calls of the rows it journaled."""
    journaled: dict[Any, int] = {}
    for record in records:
        journaled[record.get("session")] = journaled.get(record.get("session"), 0) + record["usage"]["calls"]
    return sum(
        s["engine_calls"] if "engine_calls" in s else journaled.get(i, 0) for i, s in enumerate(sessions)
    )


def write_manifest(out_dir: Path, manifest: Mapping[str, Any]) -> Path:
    path = out_dir / MANIFEST
    write_atomic(path, json.dumps(manifest, indent=2, ensure_ascii=False, default=str) + "\n")
    return path
