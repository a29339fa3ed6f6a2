"""Batch scoring on a Ray cluster: the pending rows as a Ray Dataset, one backend per worker actor.

``eviscope run --ray [ADDRESS] --workers N`` hands the rows a run still needs (after resume) to
``ray.data.from_items``; ``map_batches`` runs them through a pool of N actors (``num_gpus`` G
each), each holding ONE backend built from the run's typed settings and answering whole batches
with :func:`eviscope.runner.execute.run_rows`, the loop of a local run (same task, prompt, schema,
parser, re-asks). Finished records stream back to the driver, which appends them to the run's one
journal (``records.jsonl``), so resume, the manifest and ``eviscope score`` are those of a local run.

Faults: a worker actor that dies (its process killed, its node lost) is restarted and its batch
asked again (``max_restarts``/``max_task_retries``); the driver writes each row id once, so a
retried batch never doubles a row. A driver stopped mid-run keeps every row it journaled; rerunning
the same command asks only for the rest.

``ray`` is the optional ``ray`` extra and is imported here, lazily, only when a run asks for Ray.
"""

from __future__ import annotations

import json
import socket
from collections.abc import Callable, Iterable, Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from eviscope.core.errors import EviScopeError, first_line
from eviscope.runner.backends.base import BackendInfo, BackendSettings, SamplingConfig
from eviscope.runner.execute import RunSettings, run_rows
from eviscope.runner.store import Journal

RESTARTS = 3
"""How often a dead worker actor is restarted, and a batch it held asked again, before the run stops."""


@dataclass(frozen=True)
class RayOptions:
    """``address``: None starts a local cluster for this run (or uses the one this process is already
    connected to); ``auto`` the cluster ``ray start`` started (or ``RAY_ADDRESS``); else ``HOST:PORT``
    or ``ray://HOST:PORT``. ``gpus_per_worker`` None: what the backend needs (vLLM: its tensor-parallel size)."""

    address: str | None = None
    workers: int = 1
    gpus_per_worker: float | None = None
    cpus_per_worker: float = 1


def public_address(address: str | None) -> str:
    """The address as the manifest records it: never a user name, password or token."""
    if not address:
        return "local"
    parts = urlsplit(address if "://" in address else f"//{address}")
    if parts.username is None and parts.password is None and not parts.query:
        return address
    host = parts.hostname or ""
    netloc = host + (f":{parts.port}" if parts.port else "")
    return (f"{parts.scheme}://" if parts.scheme else "") + netloc + parts.path


def _import_ray() -> Any:
    try:
        import ray
        import ray.data
    except ImportError as err:
        raise EviScopeError(
            f"--ray needs Ray ({err}); install it with `pip install 'eviscope[ray]'`"
        ) from None
    return ray


def _check_reachable(address: str) -> None:
    """A ``HOST:PORT`` that nothing answers on is one error line at once (ray.init would wait long)."""
    parts = urlsplit(address if "://" in address else f"//{address}")
    if parts.hostname is None or parts.port is None:
        return
    try:
        socket.create_connection((parts.hostname, parts.port), timeout=5).close()
    except OSError as err:
        raise EviScopeError(
            f"--ray {public_address(address)}: no Ray cluster answers there ({err.strerror or err}); "
            "start one with `ray start --head`, or give its address (`ray status` prints it)"
        ) from None


class _Worker:
    """One Ray actor: one backend, whole batches through :func:`run_rows`."""

    def __init__(self, spec: Mapping[str, Any]) -> None:
        from eviscope.core.registry import for_config, task_options

        bench = for_config(spec["config"])
        options = task_options(bench, spec["config"], spec["options"])
        self.task = bench.task(options, spec["backend"].model)
        self.backend = spec["backend"].create(spec["sampling"])
        self.settings: RunSettings = spec["settings"]
        self.journal_path = Path(spec["journal"])

    def __call__(self, batch: Mapping[str, Any]) -> dict[str, list[Any]]:
        rows = [json.loads(text) for text in batch["row"]]
        collected = _Collect(self.journal_path)
        calls = self.backend.engine_calls
        error = ""
        try:
            run_rows(self.task, rows, self.backend, collected, self.settings)  # type: ignore[arg-type]
        except EviScopeError as err:  # the rows finished before it still come back
            error = str(err)
        info = json.dumps(asdict(self.backend.info()), default=str)
        records = [json.dumps(r, ensure_ascii=False) for r in collected.records] or [""]
        n = len(records)
        return {
            "record": records,
            "calls": [self.backend.engine_calls - calls] + [0] * (n - 1),
            "info": [info] * n,
            "error": [error] + [""] * (n - 1),
        }


class _Collect:
    """Stands in for the journal inside a worker: keeps the finished records to send back."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.records: list[dict[str, Any]] = []

    def append(self, records: Iterable[Mapping[str, Any]]) -> None:
        self.records.extend(dict(r) for r in records)


def run_on_ray(
    options: RayOptions,
    *,
    config: str,
    task_options: Mapping[str, Any],
    backend: BackendSettings,
    sampling: SamplingConfig,
    settings: RunSettings,
    pending: list[dict[str, Any]],
    journal: Journal,
    done: set[str],
    advance: Callable[[int], None],
) -> tuple[BackendInfo, int, dict[str, Any]]:
    """Run ``pending`` on a Ray cluster, appending finished records to ``journal`` (each id once);
    the backend details, engine calls, and what the manifest records about the cluster."""
    needs = backend.device_group_size()
    gpus = needs if options.gpus_per_worker is None else options.gpus_per_worker
    if gpus < needs:
        raise EviScopeError(
            f"--gpus-per-worker {gpus:g} is fewer than the {needs} GPUs one {backend.name} worker needs"
        )
    if options.workers < 1:
        raise EviScopeError(f"--workers {options.workers}: give at least 1")
    ray = _import_ray()
    if options.address and options.address != "auto":
        _check_reachable(options.address)
    started = False
    if not ray.is_initialized():  # else: the cluster this program is connected to already
        try:
            ray.init(address=options.address or "local", include_dashboard=False, logging_level="WARNING")
        except (ConnectionError, RuntimeError, ValueError) as err:
            raise EviScopeError(f"--ray {public_address(options.address)}: {first_line(err)}") from None
        started = True
    try:
        context = ray.data.DataContext.get_current()
        context.enable_progress_bars = False
        spec = {"config": config, "options": dict(task_options), "backend": backend,
                "sampling": sampling, "settings": settings, "journal": str(journal.path)}  # fmt: skip
        items = [{"row": json.dumps(row, ensure_ascii=False)} for row in pending]
        dataset = ray.data.from_items(items).map_batches(
            _Worker,
            fn_constructor_kwargs={"spec": spec},
            batch_size=settings.batch_size or max(1, -(-len(pending) // options.workers)),
            compute=ray.data.ActorPoolStrategy(size=options.workers),
            num_gpus=gpus,
            num_cpus=options.cpus_per_worker,
            max_restarts=RESTARTS,
            max_task_retries=RESTARTS,
        )
        info, calls = None, 0
        for batch in dataset.iter_batches(batch_size=None, batch_format="numpy"):
            records = [json.loads(text) for text in batch["record"] if text]
            fresh = [r for r in records if r["id"] not in done]
            done.update(r["id"] for r in fresh)
            journal.append(fresh)
            advance(len(fresh))
            calls += int(sum(batch["calls"]))
            info = BackendInfo(**json.loads(batch["info"][0]))
            errors = [e for e in batch["error"] if e]
            if errors:
                raise EviScopeError(f"a Ray worker stopped: {errors[0]}")
        cluster = {
            "ray_version": ray.__version__,
            "address": public_address(options.address),
            "workers": options.workers,
            "gpus_per_worker": gpus,
            "cpus_per_worker": options.cpus_per_worker,
            "batch_size": settings.batch_size or "pending rows / workers",
            "max_restarts": RESTARTS,
        }
        if info is None:
            raise EviScopeError("the Ray workers returned no rows")
        return info, calls, cluster
    finally:
        if started:
            ray.shutdown()
