"""A run as a library: the session and resume behind ``eviscope run``, locally or on Ray.

:func:`run` batches a model over a config and writes into the run folder: ``records.jsonl`` (the
append-only journal: one line per finished row, with its raw reply, parse outcome and usage),
``manifest.json``, and, once every row is done, ``predictions.jsonl`` (the predictions of the
config's benchmark, for ``eviscope score``). Running the same :class:`RunRequest` again resumes an
interrupted run: one killed at any point, or stopped by an unavailable server, a full disk or a
read-only folder (reported as a one-line error naming the path or row, with the journal kept as it
was). One run writes a folder at a time (:func:`~eviscope.runner.store.writer_lock`): a second one
on the same ``--out`` stops at once, naming the process that holds it. A session that ends on any
error, a bug included, records it and marks the manifest ``failed``; one stopped by Ctrl-C or
SIGTERM marks it ``interrupted`` (the manifest is never left ``running`` by a process that exits;
one killed by SIGKILL keeps ``finished_at: null``, and its engine calls are counted from the rows it
journaled). A folder holding a symbolic link at the name of a file the run writes
(:data:`RUN_FILES`) is refused in one line before anything is written; the temporary files a killed
run left there are removed.

With ``ray`` set (:class:`~eviscope.runner.ray_pool.RayOptions`), the pending rows are answered by
a pool of Ray worker actors (:mod:`eviscope.runner.ray_pool`), on a local cluster or an existing
one; their records come back into the same journal.
"""

from __future__ import annotations

import contextlib
import fnmatch
import json
import os
import signal
import threading
from collections.abc import Callable, Iterator, Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from eviscope.core.errors import EviScopeError, brief, id_text, os_errors, plain
from eviscope.core.layout import DEFAULT_DATASET_DIR, PREDICTIONS_FILE
from eviscope.core.registry import Benchmark, for_config, task_options
from eviscope.core.untrusted_json import dumps
from eviscope.runner import manifest as manifests
from eviscope.runner.accounting import PriceTable
from eviscope.runner.backends import backend_settings, settings_class
from eviscope.runner.backends.base import Backend, BackendInfo, BackendSettings, SamplingConfig
from eviscope.runner.execute import RunSettings, run_rows
from eviscope.runner.ray_pool import RayOptions, run_on_ray
from eviscope.runner.store import (
    JOURNAL_GLOB,
    LOCK_FILE,
    OWNER_FILE,
    Journal,
    journal_path,
    read_records,
    write_atomic,
    writer_lock,
)
from eviscope.runner.tasks import Task

PROMPTS_FILE = "prompts.jsonl"

Advance = Callable[[int], None]
Track = Callable[[int], contextlib.AbstractContextManager[Advance]]


@contextlib.contextmanager
def _no_progress(total: int) -> Iterator[Advance]:
    yield lambda n: None


@dataclass(frozen=True)
class RunRequest:
    """Everything that defines a run; built from the command line or from a manifest."""

    config: str
    out: Path
    backend: BackendSettings
    sampling: SamplingConfig = field(default_factory=SamplingConfig)
    dataset: Path = Path(DEFAULT_DATASET_DIR)
    options: Mapping[str, Any] = field(default_factory=dict)
    """The benchmark's run options (``policy``, ``judge``…); one it does not take is an error."""
    limit: int | None = None
    settings: RunSettings = field(default_factory=RunSettings)
    ray: RayOptions | None = None
    """Run on a Ray cluster (None: in this process)."""
    save_prompts: bool = False

    def to_json(self) -> str:
        return json.dumps(
            {
                "config": self.config,
                "out": str(self.out),
                "backend": {"name": self.backend.name, **self.backend.to_dict()},
                "sampling": asdict(self.sampling),
                "dataset": str(self.dataset),
                "options": dict(self.options),
                "limit": self.limit,
                "settings": asdict(self.settings),
                "ray": None if self.ray is None else asdict(self.ray),
                "save_prompts": self.save_prompts,
            }
        )

    @classmethod
    def from_json(cls, text: str) -> RunRequest:
        data = json.loads(text)
        backend = dict(data["backend"])
        settings = dict(data["settings"])
        return cls(
            config=data["config"],
            out=Path(data["out"]),
            backend=backend_settings(backend.pop("name"), backend),
            sampling=SamplingConfig(**data["sampling"]),
            dataset=Path(data["dataset"]),
            options=data["options"],
            limit=data["limit"],
            settings=RunSettings(
                max_retries=settings["max_retries"],
                batch_size=settings["batch_size"],
                prices=PriceTable(**settings["prices"]),
            ),
            ray=None if data.get("ray") is None else RayOptions(**data["ray"]),
            save_prompts=data["save_prompts"],
        )


@dataclass(frozen=True)
class RunResult:
    """A finished run: its predictions file, manifest, and the command that scores it."""

    predictions: Path
    manifest: dict[str, Any]
    score_command: str

    def summary(self) -> str:
        usage, parse = self.manifest["usage"], self.manifest["parse_failures"]
        truncated = self.manifest.get("truncated", 0)
        return (
            f"{self.manifest['rows']['total']} rows: {parse['unresolved']} unparsable after retries, "
            f"{parse['replies']} unparsable replies, {truncated} cut by the token limit, "
            f"{self.manifest['engine_calls']} engine calls, "
            f"{usage['prompt_tokens']}+{usage['completion_tokens']} tokens, ${usage['cost_usd']:.4f}"
        )


def settings_from_manifest(manifest: Mapping[str, Any]) -> BackendSettings:
    """The backend settings a run folder's manifest recorded (``backend_settings``)."""
    recorded = manifest.get("backend_settings")
    if not isinstance(recorded, Mapping):
        raise EviScopeError("manifest.json: field backend_settings is missing; rerun its `eviscope run`")
    return backend_settings(str(manifest.get("backend")), recorded)


def asks_other_rows(
    config: str, rows: list[dict[str, Any]], manifest: Mapping[str, Any], where: str = manifests.MANIFEST
) -> bool | None:
    """Whether the run ``manifest`` records asked other rows of ``config`` than ``rows`` (their
    ids, prompts or schemas differ: :func:`~eviscope.runner.manifest.rows_sha256`, the task rebuilt
    from the options the manifest records); None when it records no fingerprint (an older run). An
    option it records that the benchmark does not offer (an unknown policy) is an error naming
    ``where`` (the manifest's path) and the field."""
    recorded = (manifest.get("rows") or {}).get("sha256")
    if not isinstance(recorded, str):
        return None
    bench = for_config(config)
    given = {option.name: manifest.get(option.name) for option in bench.run_options}
    for option in bench.run_options:
        value = given[option.name]
        if option.choices and value is not None and value not in option.choices:
            raise EviScopeError(
                f"{where}: field {option.name}: {brief(value)} is not one of {', '.join(option.choices)}; "
                f"{manifests.NOT_A_MANIFEST}"
            )
    task = bench.task(task_options(bench, config, given), str(manifest.get("model") or ""))
    return manifests.rows_sha256(task, rows) != recorded


def _prepare(request: RunRequest) -> tuple[Benchmark, Task, list[dict[str, Any]], dict[str, Any] | None]:
    bench = for_config(request.config)
    options = task_options(bench, request.config, request.options)
    task = bench.task(options, request.backend.model)
    rows, context = bench.run_rows(request.config, request.dataset, options)
    return bench, task, (rows[: request.limit] if request.limit else rows), context


def run(
    request: RunRequest, *, say: Callable[[str], None] = lambda line: None, track: Track = _no_progress
) -> RunResult:
    """Run (or resume) ``request``; ``say`` gets one-line progress notes, ``track(total)`` a
    context manager whose value advances a progress display by the rows finished."""
    settings_class(request.backend.name)  # an unregistered backend fails before anything is written
    bench, task, rows, context = _prepare(request)
    out = request.out
    with os_errors(out, "create", hint="use another --out"):
        out.mkdir(parents=True, exist_ok=True)
    refuse_planted_links(out)
    with writer_lock(out), _sigterm_interrupts():
        return _run_locked(request, bench, task, rows, context, say, track)


RUN_FILES = (
    manifests.MANIFEST,
    PREDICTIONS_FILE,
    PROMPTS_FILE,
    LOCK_FILE,
    OWNER_FILE,
    JOURNAL_GLOB,
    ".*.tmp",
)
"""The names (and patterns) of what ``eviscope run`` writes in its folder, temporary files included."""


def refuse_planted_links(out: Path) -> None:
    """Refuse a run folder holding a symbolic link at one of :data:`RUN_FILES`: a run writes only
    files it created, and a link planted there (``records.jsonl`` pointing at a file of the user's)
    would be a write into whatever it points to."""
    with os_errors(out, "read", hint="use another --out"):
        entries = sorted(entry.name for entry in os.scandir(out) if entry.is_symlink())
    for name in entries:
        if any(fnmatch.fnmatchcase(name, pattern) for pattern in RUN_FILES):
            raise EviScopeError(
                f"{plain(str(out / name), None)} is a symbolic link, and eviscope run writes only files "
                "it created there: remove the link, or use another --out"
            )


def _remove_leftovers(out: Path) -> None:
    """Remove the temporary files a killed run left (``.<file>.<random>.tmp`` of a run file; never
    a link, which :func:`refuse_planted_links` has refused); the caller holds the folder's lock."""
    prefixes = tuple(f".{name}." for name in RUN_FILES if "*" not in name)
    with os_errors(out, "read", hint="use another --out"):
        for entry in os.scandir(out):
            if (
                entry.name.startswith(prefixes)
                and entry.name.endswith(".tmp")
                and entry.is_file(follow_symlinks=False)
            ):
                with contextlib.suppress(OSError):
                    os.unlink(entry.path)


@contextlib.contextmanager
def _sigterm_interrupts() -> Iterator[None]:
    """SIGTERM stops a run as Ctrl-C does (a ``KeyboardInterrupt``), so that its session is recorded
    ``interrupted`` before the process exits; only in the main thread, where signals are handled."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(signum: int, frame: object) -> None:
        raise KeyboardInterrupt(f"signal {signum}")

    previous = signal.signal(signal.SIGTERM, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous if previous is not None else signal.SIG_DFL)


def _run_locked(
    request: RunRequest,
    bench: Benchmark,
    task: Task,
    rows: list[dict[str, Any]],
    context: dict[str, Any] | None,
    say: Callable[[str], None],
    track: Track,
) -> RunResult:
    out = request.out
    _remove_leftovers(out)
    ident = _identity(request, task, context)
    previous = manifests.read_manifest(out)
    if previous is not None:
        manifests.check_resumable(previous, ident, out)
    done = read_records(out)
    pending = [row for row in rows if row["id"] not in done]
    sessions = list((previous or {}).get("sessions", []))
    if request.save_prompts:
        lines = (dumps({"key": r.key, "messages": r.messages}) for row in rows for r in task.requests(row))
        write_atomic(out / PROMPTS_FILE, "".join(f"{line}\n" for line in lines))
    started = manifests.now()
    info = BackendInfo(
        backend=request.backend.name,
        model=request.backend.model,
        revision=request.backend.revision,
        dtype=request.backend.dtype,
    )
    if pending:
        say(f"{len(rows) - len(pending)} of {len(rows)} rows already done in {out}/; running {len(pending)}")
        # a session killed before it ends stays in the manifest with finished_at null
        session: dict[str, Any] = {"started_at": started, "finished_at": None, "rows_run": len(pending)}
        write_state = dict(status="running", previous=previous, sessions=[*sessions, session])
        backend: Backend | None = None
        written: dict[str, Any] | None = None
        try:
            written = _write(request, ident, task, rows, info, **write_state)
            journal = Journal(journal_path(out), stamp={"session": len(sessions)})
            if request.ray is not None:
                with track(len(pending)) as advance:
                    info, calls, session["ray"] = run_on_ray(
                        request.ray, config=request.config, task_options=request.options,
                        backend=request.backend, sampling=request.sampling, settings=request.settings,
                        pending=pending, journal=journal, done=set(done), advance=advance,
                    )  # fmt: skip
            else:
                backend = request.backend.create(request.sampling)
                # the backend's details too, in case this session is killed before it ends
                _write(request, ident, task, rows, backend.info(), **write_state)
                with track(len(pending)) as advance:
                    run_rows(task, pending, backend, journal, request.settings, advance)
                info, calls = backend.info(), backend.engine_calls
        except (Exception, KeyboardInterrupt) as err:
            if backend is not None:
                info, session["engine_calls"] = backend.info(), backend.engine_calls
            # an unexpected error's text is not recorded: it might quote what a server sent
            what = str(err) if isinstance(err, EviScopeError) else f"{type(err).__name__} (see its traceback)"
            if isinstance(err, KeyboardInterrupt):
                what, status = "interrupted (Ctrl-C or SIGTERM)", "interrupted"
            else:
                status = "failed"
            session.update(finished_at=manifests.now(), error=what or type(err).__name__)
            state = dict(status=status, previous=previous, sessions=[*sessions, session])
            try:
                _write(request, ident, task, rows, info, **state)
            except Exception:  # the error being raised is the one to report; the manifest still says so
                with contextlib.suppress(Exception):
                    if written is not None:
                        manifests.write_manifest(
                            out, {**written, "status": status, "sessions": state["sessions"]}
                        )
            raise
        session.update(finished_at=manifests.now(), engine_calls=calls)
        sessions.append(session)
    elif previous is not None:
        info = _previous_info(previous)
    manifest = _write(request, ident, task, rows, info, previous=previous, sessions=sessions)
    predictions = _finish(out, task, rows)
    return RunResult(predictions, manifest, bench.score_command(request.config, predictions))


def _identity(request: RunRequest, task: Task, context: dict[str, Any] | None) -> dict[str, Any]:
    ident = manifests.identity(
        config=request.config,
        task=task,
        backend=request.backend.name,
        model=request.backend.model,
        revision=request.backend.revision,
        dtype=request.backend.dtype,
        sampling=request.sampling,
        max_parse_retries=request.settings.max_retries,
    )
    if context is not None:
        ident["contextualize"] = context
    return ident


def _previous_info(previous: dict[str, Any]) -> BackendInfo:
    """The backend details an earlier session recorded (when nothing is left to run)."""
    return BackendInfo(
        backend=previous.get("backend") or "",
        model=previous.get("model") or "",
        revision=previous.get("resolved_revision"),
        dtype=previous.get("dtype"),
        tensor_parallel_size=previous.get("tensor_parallel_size"),
        structured_output=previous.get("structured_output") or "none",
        sampling=previous.get("sampling") or {},
        extra=previous.get("backend_details") or {},
        model_identity=previous.get("model_identity") or {},
    )


def _write(
    request: RunRequest,
    ident: dict[str, Any],
    task: Task,
    rows: list[dict[str, Any]],
    info: BackendInfo,
    **state: Any,
) -> dict[str, Any]:
    records = read_records(request.out)
    manifest = manifests.build(
        ident,
        info=info,
        schema=task.schema,
        prices=request.settings.prices,
        batch_size=request.settings.batch_size,
        rows_total=len(rows),
        rows_asked=manifests.rows_sha256(task, rows),
        records=[records[row["id"]] for row in rows if row["id"] in records],
        **state,
    )
    manifest["backend_settings"] = request.backend.recorded()
    manifests.write_manifest(request.out, manifest)
    return manifest


def _finish(out: Path, task: Task, rows: list[dict[str, Any]]) -> Path:
    records = read_records(out)
    missing = [row["id"] for row in rows if row["id"] not in records]
    if missing:
        raise EviScopeError(f"{len(missing)} rows are not done (first: {missing[0]}); rerun to resume")
    lines = []
    for row in rows:
        try:
            lines.append(dumps(task.prediction(records[row["id"]])))
        except (KeyError, TypeError, ValueError) as err:
            raise EviScopeError(
                f"{journal_path(out)}: the record of row {id_text(row['id'])} lacks what a {task.name} "
                f"prediction needs ({type(err).__name__}: {plain(str(err))}); delete its line to run "
                "that row again"
            ) from None
    predictions = out / PREDICTIONS_FILE
    write_atomic(predictions, "".join(f"{line}\n" for line in lines))
    return predictions
