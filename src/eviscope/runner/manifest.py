"""``manifest.json``: what a run was, enough to reproduce it and to refuse mixing two runs in one folder.

Written when a session starts (``status: running``, its session listed with ``finished_at: null``,
which a killed session keeps), again once its backend is up (with the backend's details), and when
it ends (``complete``; ``failed`` when an error stopped it, which its session records;
``interrupted`` on Ctrl-C or SIGTERM), atomically each time, by
:func:`eviscope.core.untrusted_json.dumps`. It is read back as data (:func:`read_manifest`): parsed
by :func:`eviscope.core.untrusted_json.loads` and checked against :class:`Manifest`, so that a
broken or hostile file (a list, deep JSON, a field of the wrong type) is one line naming the file
and the field, on resume as in ``eviscope score``. Parse failures, retries and usage are counted from the journal, so they
stay right across kills and resumes; so are the engine calls of a session killed before it could
count them (``finished_at: null``): the calls of the rows it journaled (each record names its
session), which for the OpenAI-compatible backend are its HTTP calls, retries included. Calls in
flight at the kill, for rows not journaled, are not known (their rows are asked again).
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import re
import stat
import sys
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any, Literal

from annotated_types import Ge
from pydantic import BaseModel, ConfigDict, Strict, ValidationError

from eviscope import __version__
from eviscope.core.errors import EviScopeError, brief, os_error, plain
from eviscope.core.io import MiB
from eviscope.core.layout import PREDICTIONS_FILE
from eviscope.core.untrusted_json import UntrustedJSONError, dumps, loads
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
MAX_MANIFEST_BYTES = 16 * MiB
"""The most bytes of a ``manifest.json`` read (one is some kilobytes)."""

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


STATUSES = ("running", "complete", "incomplete", "failed", "interrupted")
"""A manifest's ``status``: ``running`` while a session runs, ``complete`` once every row is done,
``failed`` when a session stopped on an error (recorded in its ``sessions`` entry), ``interrupted``
when it was stopped (Ctrl-C, SIGTERM); ``incomplete`` (rows left, no error) only in older runs."""

_Count = Annotated[int, Strict(), Ge(0)]
_INSTANCE_OF = re.compile(r" or instance of \w+")
NOT_A_MANIFEST = "not a manifest `eviscope run` writes (move it away to start the run over)"


class _Open(BaseModel):
    model_config = ConfigDict(extra="allow")


class ManifestSession(_Open):
    """One session of a run, as ``sessions`` lists it."""

    started_at: str | None = None
    finished_at: str | None = None
    rows_run: _Count | None = None
    engine_calls: _Count = 0
    error: str | None = None
    ray: dict[str, Any] | None = None


class ManifestRows(_Open):
    total: _Count | None = None
    done: _Count | None = None
    sha256: str | None = None


class Manifest(_Open):
    """The schema of ``manifest.json`` as this suite reads it back (on resume, by ``eviscope score``,
    ``attribute`` and the Space): the fields it uses, typed; any other field is kept as written."""

    status: Literal[STATUSES] | None = None  # type: ignore[valid-type]
    config: str | None = None
    task: str | None = None
    policy: str | None = None
    judge: str | None = None
    evaluator: str | None = None
    backend: str | None = None
    model: str | None = None
    revision: str | None = None
    dtype: str | None = None
    prompt: dict[str, Any] | None = None
    schema_sha256: str | None = None
    seed: Annotated[int, Strict()] | None = None
    generation_config: str | None = None
    max_tokens: _Count | None = None
    parser_version: str | None = None
    max_parse_retries: _Count | None = None
    contextualize: dict[str, Any] | None = None
    started_at: str | None = None
    resolved_revision: str | None = None
    tensor_parallel_size: _Count | None = None
    structured_output: str | None = None
    sampling: dict[str, Any] | None = None
    backend_settings: dict[str, Any] | None = None
    backend_details: dict[str, Any] | None = None
    model_identity: dict[str, Any] | None = None
    rows: ManifestRows | None = None
    sessions: list[ManifestSession] = []


def manifest_error(path: Path, err: ValidationError) -> EviScopeError:
    """Pydantic's first complaint about a manifest as one line naming the file and the field."""
    first = err.errors(include_url=False)[0]
    got = brief(first.get("input"))
    if first["loc"]:
        field = ".".join(str(part) for part in first["loc"])
        what = f"field {field}: {_INSTANCE_OF.sub('', first['msg'])}, got {got}"
    else:
        what = f"{got}, not a JSON object"
    return EviScopeError(f"{plain(str(path), None)}: {what}; {NOT_A_MANIFEST}")


def read_manifest(out_dir: Path) -> dict[str, Any] | None:
    """The manifest of a run folder (None when there is none), checked against :class:`Manifest`;
    a file that is not one (not JSON, nested too deep, a list, a field of the wrong type) is one
    line naming the file and the field."""
    path = out_dir / MANIFEST
    if not os.path.lexists(path):
        return None
    try:
        # never blocks on a pipe; a manifest is some kilobytes, and a bigger file is not one
        with open(os.open(path, os.O_RDONLY | os.O_NONBLOCK), "rb") as handle:
            if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
                raise EviScopeError(f"{plain(str(path), None)}: not a regular file; {NOT_A_MANIFEST}")
            data = handle.read(MAX_MANIFEST_BYTES + 1)
    except OSError as err:
        raise os_error(path, err, "read", hint="") from None
    if len(data) > MAX_MANIFEST_BYTES:
        raise EviScopeError(f"{plain(str(path), None)}: over {MAX_MANIFEST_BYTES:,} bytes; {NOT_A_MANIFEST}")
    try:
        manifest = loads(data)
    except UntrustedJSONError as err:
        raise EviScopeError(f"{plain(str(path), None)}: not valid JSON ({err}); {NOT_A_MANIFEST}") from None
    try:
        Manifest.model_validate(manifest)
    except ValidationError as err:
        raise manifest_error(path, err) from None
    return manifest


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
    write_atomic(path, dumps(manifest, indent=2) + "\n")
    return path
