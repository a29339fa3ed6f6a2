"""``eviscope run``: batch a model over an EviScope config (a policy) or ForceBench (a judge prompt).

Writes into ``--out``: ``records.jsonl`` (the append-only journal: one line per finished row, with
its raw reply, parse outcome and usage), ``manifest.json``, and, once every row is done,
``predictions.jsonl`` (SPEC §3, or SPEC §6 for ForceBench) for ``eviscope score`` or ``eviscope
forcebench score``. Rerunning the same command resumes an interrupted run: one killed at any point,
or stopped by an unavailable server (one that looks down stops it after ``--http-give-up-after``
requests), a full disk or a read-only folder (reported as a one-line error naming the path or row,
with the journal kept as it was).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import subprocess
import sys
from dataclasses import asdict
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from eviscope.dataset import DEFAULT_CONFIG, DEFAULT_DATASET_DIR, load_rows
from eviscope.errors import EviScopeError, os_errors
from eviscope.forcebench.prompts import PROMPT_NAMES
from eviscope.ragonite.row_context import contextualize_from_squad
from eviscope.runner import manifest as manifests
from eviscope.runner.accounting import PriceTable
from eviscope.runner.backends import BACKENDS
from eviscope.runner.backends.base import Backend, BackendInfo, SamplingConfig
from eviscope.runner.backends.openai_backend import GIVE_UP_AFTER
from eviscope.runner.execute import RunSettings, run_rows
from eviscope.runner.policies import POLICIES
from eviscope.runner.store import Journal, journal_path, read_records, write_atomic
from eviscope.runner.tasks import EviScopeTask, ForceBenchTask, Task

FORCEBENCH = "forcebench"
DEFAULT_DTYPE = {"vllm": "auto", "transformers": "float32", "openai": None}
_INTERNAL = {"help", "data_parallel_size", "shard"}
"""Options a data-parallel parent does not pass on to its shard processes as given."""


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "run",
        help="run a model over a config (vLLM, OpenAI-compatible server, or transformers on CPU)",
        description=(
            "Run a model over an EviScope config (a policy) or ForceBench (a judge prompt) and write "
            "predictions.jsonl, records.jsonl and manifest.json into --out; rerun to resume."
        ),
    )
    what = parser.add_argument_group("what to run")
    what.add_argument(
        "--config",
        default=DEFAULT_CONFIG,
        help=f"EviScope config or {FORCEBENCH} (default: {DEFAULT_CONFIG})",
    )
    what.add_argument("--dataset", type=Path, default=Path(DEFAULT_DATASET_DIR), metavar="DIR",
                      help=f"folder `eviscope build` wrote (default: {DEFAULT_DATASET_DIR})")  # fmt: skip
    what.add_argument(
        "--policy", choices=POLICIES, default="vanilla", help="EviScope policy (default: vanilla)"
    )
    what.add_argument(
        "--judge", choices=PROMPT_NAMES, help=f"judge prompt; required with --config {FORCEBENCH}"
    )
    what.add_argument("--evaluator", help="ForceBench evaluator name (default: <model name>/<judge>)")
    what.add_argument("--limit", type=int, metavar="N", help="run only the first N rows")
    what.add_argument(
        "--out", type=Path, required=True, metavar="DIR", help="run folder, e.g. runs/qwen-gate/"
    )
    what.add_argument(
        "--save-prompts", action="store_true", help="write each rendered prompt to prompts.jsonl"
    )
    what.add_argument("--contextualize", action="store_true",
                      help="give each document its article title and neighbouring paragraphs (RAGONITE; "
                      "title only where a neighbour holds a gold alias), recorded in the manifest")  # fmt: skip
    what.add_argument("--squad", metavar="PATH",
                      help="with --contextualize: SQuAD v1.1 dev; else $EVISCOPE_SQUAD; else the hub")  # fmt: skip

    model = parser.add_argument_group("model and backend")
    model.add_argument("--backend", choices=BACKENDS, required=True)
    model.add_argument(
        "--model", required=True, help="hub id or local folder (openai: the served model name)"
    )
    model.add_argument("--revision", help="model revision (branch, tag or commit)")
    model.add_argument("--dtype", help="vllm: auto (default), bfloat16…; transformers: float32 (default)…")
    model.add_argument(
        "--tensor-parallel-size", type=int, default=1, metavar="N", help="vllm: GPUs per model"
    )
    model.add_argument("--data-parallel-size", type=int, default=1, metavar="N",
                       help="vllm/transformers: shard rows over N processes, one GPU (group) each")  # fmt: skip
    model.add_argument("--shard", help=argparse.SUPPRESS)
    model.add_argument("--max-model-len", type=int, metavar="N", help="vllm: context length")
    model.add_argument("--device", default="cpu", help="transformers: torch device (default: cpu)")
    model.add_argument("--max-batch-tokens", type=int, default=16384, metavar="N",
                       help="transformers: padded prompt tokens per generate group (default: 16384)")  # fmt: skip
    model.add_argument("--base-url", default=os.environ.get("OPENAI_BASE_URL", "http://localhost:8000/v1"),
                       help="openai: server URL (default: $OPENAI_BASE_URL or http://localhost:8000/v1)")  # fmt: skip
    model.add_argument("--api-key-env", default="OPENAI_API_KEY", metavar="VAR",
                       help="openai: environment variable holding the API key (default: OPENAI_API_KEY)")  # fmt: skip
    model.add_argument("--concurrency", type=int, default=8, help="openai: requests in flight (default: 8)")
    model.add_argument(
        "--timeout", type=float, default=120.0, metavar="S", help="openai: per request (default: 120)"
    )
    model.add_argument("--http-retries", type=int, default=5, metavar="N",
                       help="openai: retries on 408, 409, 425, 429, 500, 502-504, timeouts and connection errors, with exponential backoff (default: 5)")  # fmt: skip
    model.add_argument("--http-give-up-after", type=int, default=GIVE_UP_AFTER, metavar="N",
                       help="openai: stop sending once N requests in a row failed every retry with the "
                       "server down (refused, timeouts, 5xx; not 429); 0: never (default: %(default)s)")  # fmt: skip
    model.add_argument(
        "--backoff", type=float, default=1.0, metavar="S", help="openai: first backoff (default: 1)"
    )

    decode = parser.add_argument_group("decoding")
    decode.add_argument("--max-tokens", type=int, default=512, metavar="N", help="per reply (default: 512)")
    decode.add_argument("--seed", type=int, default=0, help="(default: 0)")
    decode.add_argument("--generation-config", choices=("engine", "model"), default="engine",
                        help="defaults beside temperature 0: the engine's, or the model's generation_config.json")  # fmt: skip
    decode.add_argument("--no-structured-output", dest="structured_output", action="store_false",
                        help="do not constrain decoding to the JSON schema (the parser still reads it)")  # fmt: skip
    decode.add_argument("--max-retries", type=int, default=2, metavar="N",
                        help="re-asks of an unparsable reply before it is kept as action null (default: 2)")  # fmt: skip
    decode.add_argument("--batch-size", type=int, default=0, metavar="N",
                        help="rows per backend call and per journal flush (default: 0, all in one call)")  # fmt: skip
    decode.add_argument("--price-prompt", type=float, default=0.0, metavar="USD", help="per 1M prompt tokens")
    decode.add_argument(
        "--price-completion", type=float, default=0.0, metavar="USD", help="per 1M completion tokens"
    )
    parser.set_defaults(func=run, run_parser=parser)


def _task(args: argparse.Namespace) -> Task:
    if args.config == FORCEBENCH:
        if args.judge is None:
            raise EviScopeError(f"--config {FORCEBENCH} needs --judge ({', '.join(PROMPT_NAMES)})")
        evaluator = args.evaluator or f"{Path(args.model.rstrip('/')).name}/{args.judge}"
        return ForceBenchTask(args.judge, evaluator)
    if args.judge is not None:
        raise EviScopeError(f"--judge is for --config {FORCEBENCH}; EviScope configs take --policy")
    return EviScopeTask(args.policy)


def _rows(args: argparse.Namespace) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
    """The rows to run (contextualized over the whole config before ``--limit``) and the
    contextualization record of the manifest (None without ``--contextualize``)."""
    context = None
    if args.config == FORCEBENCH:
        if args.contextualize:
            raise EviScopeError(f"--contextualize is for EviScope configs, not --config {FORCEBENCH}")
        from eviscope.forcebench.rows import read_rows

        rows = read_rows(args.dataset)
    else:
        rows = load_rows(args.config, args.dataset)
        if args.contextualize:
            rows, context = contextualize_from_squad(rows, args.squad)
    return (rows[: args.limit] if args.limit else rows), context


def _shard(value: str | None) -> tuple[int, int] | None:
    if value is None:
        return None
    index, _, count = value.partition("/")
    return int(index), int(count)


def make_backend(args: argparse.Namespace, sampling: SamplingConfig, dtype: str | None) -> Backend:
    """The backend ``--backend`` names, built from the command's options (its engine imported here)."""
    if args.backend == "vllm":
        from eviscope.runner.backends.vllm_backend import VLLMBackend

        return VLLMBackend(
            args.model,
            sampling,
            revision=args.revision,
            dtype=dtype or "auto",
            tensor_parallel_size=args.tensor_parallel_size,
            max_model_len=args.max_model_len,
            structured_output=args.structured_output,
        )
    if args.backend == "transformers":
        from eviscope.runner.backends.transformers_backend import TransformersBackend

        return TransformersBackend(
            args.model,
            sampling,
            revision=args.revision,
            dtype=dtype or "float32",
            device=args.device,
            structured_output=args.structured_output,
            max_batch_tokens=args.max_batch_tokens,
        )
    from eviscope.runner.backends.openai_backend import OpenAIBackend

    return OpenAIBackend(
        args.model,
        sampling,
        base_url=args.base_url,
        api_key=os.environ.get(args.api_key_env),
        concurrency=args.concurrency,
        timeout_s=args.timeout,
        max_retries=args.http_retries,
        backoff_s=args.backoff,
        structured_output=args.structured_output,
        give_up_after=args.http_give_up_after,
    )


def run(args: argparse.Namespace) -> int:
    if args.data_parallel_size > 1 and args.backend == "openai":
        raise EviScopeError("--data-parallel-size is for vllm and transformers; openai uses --concurrency")
    task = _task(args)
    rows, context = _rows(args)
    out: Path = args.out
    with os_errors(out, "create", hint="use another --out"):
        out.mkdir(parents=True, exist_ok=True)
    sampling = SamplingConfig(
        max_tokens=args.max_tokens, seed=args.seed, generation_config=args.generation_config
    )
    dtype = args.dtype or DEFAULT_DTYPE[args.backend]
    ident = manifests.identity(
        config=args.config,
        task=task,
        backend=args.backend,
        model=args.model,
        revision=args.revision,
        dtype=dtype,
        sampling=sampling,
        max_parse_retries=args.max_retries,
    )
    if context is not None:
        ident["contextualize"] = context
    previous = manifests.read_manifest(out)
    if previous is not None:
        manifests.check_resumable(previous, ident, out)
    settings = RunSettings(
        max_retries=args.max_retries,
        batch_size=args.batch_size,
        prices=PriceTable(args.price_prompt, args.price_completion),
    )
    shard = _shard(args.shard)
    if shard is not None:
        return _run_shard(args, task, rows, sampling, dtype, settings, shard)

    console = Console(stderr=True)
    done = read_records(out)
    pending = [row for row in rows if row["id"] not in done]
    sessions = list((previous or {}).get("sessions", []))
    if args.save_prompts:
        lines = (
            json.dumps({"key": r.key, "messages": r.messages}, ensure_ascii=False)
            for row in rows
            for r in task.requests(row)
        )
        write_atomic(out / "prompts.jsonl", "".join(f"{line}\n" for line in lines))
    started = manifests.now()
    info = BackendInfo(backend=args.backend, model=args.model, revision=args.revision, dtype=dtype)
    if pending:
        console.print(
            f"{len(rows) - len(pending)} of {len(rows)} rows already done in {out}/; running {len(pending)}"
        )
        # a session killed before it ends stays in the manifest with finished_at null
        session = {"started_at": started, "finished_at": None, "rows_run": len(pending),
                   "data_parallel_size": args.data_parallel_size}  # fmt: skip
        write_state = dict(status="running", previous=previous, sessions=[*sessions, session])
        _write(out, ident, task, rows, info, settings, args, **write_state)
        backend = None
        try:
            if args.data_parallel_size > 1:
                info, calls = _run_data_parallel(args, out, console)
            else:
                backend = make_backend(args, sampling, dtype)
                # the backend's details too, in case this session is killed before it ends
                _write(out, ident, task, rows, backend.info(), settings, args, **write_state)
                with _progress(console) as progress:
                    bar = progress.add_task("rows", total=len(pending))
                    run_rows(task, pending, backend, Journal(journal_path(out)), settings,
                             lambda n: progress.advance(bar, n))  # fmt: skip
                info, calls = backend.info(), backend.engine_calls
        except (EviScopeError, KeyboardInterrupt) as err:
            if backend is not None:
                info, session["engine_calls"] = backend.info(), backend.engine_calls
            session.update(finished_at=manifests.now(), error=str(err) or type(err).__name__)
            with contextlib.suppress(EviScopeError):  # the error being raised is the one to report
                _write(out, ident, task, rows, info, settings, args, previous=previous,
                       sessions=[*sessions, session])  # fmt: skip
            raise
        session.update(finished_at=manifests.now(), engine_calls=calls)
        sessions.append(session)
    elif previous is not None:
        info = _previous_info(previous)
    manifest = _write(out, ident, task, rows, info, settings, args, previous=previous, sessions=sessions)
    return _finish(out, task, rows, manifest, console)


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
    )


def _write(
    out: Path,
    ident: dict[str, Any],
    task: Task,
    rows: list[dict[str, Any]],
    info: BackendInfo,
    settings: RunSettings,
    args: argparse.Namespace,
    **state: Any,
) -> dict[str, Any]:
    records = read_records(out)
    manifest = manifests.build(
        ident,
        info=info,
        schema=task.schema,
        prices=settings.prices,
        data_parallel_size=args.data_parallel_size,
        batch_size=settings.batch_size,
        rows_total=len(rows),
        records=[records[row["id"]] for row in rows if row["id"] in records],
        **state,
    )
    manifests.write_manifest(out, manifest)
    return manifest


def _finish(
    out: Path, task: Task, rows: list[dict[str, Any]], manifest: dict[str, Any], console: Console
) -> int:
    records = read_records(out)
    missing = [row["id"] for row in rows if row["id"] not in records]
    if missing:
        raise EviScopeError(f"{len(missing)} rows are not done (first: {missing[0]}); rerun to resume")
    lines = (json.dumps(task.prediction(records[row["id"]]), ensure_ascii=False) for row in rows)
    predictions = out / "predictions.jsonl"
    write_atomic(predictions, "".join(f"{line}\n" for line in lines))
    usage, parse = manifest["usage"], manifest["parse_failures"]
    console.print(
        f"{len(rows)} rows: {parse['unresolved']} unparsable after retries, {parse['replies']} unparsable "
        f"replies, {manifest['engine_calls']} engine calls, {usage['prompt_tokens']}+{usage['completion_tokens']} "
        f"tokens, ${usage['cost_usd']:.4f}"
    )
    score = (
        f"eviscope forcebench score {predictions}"
        if task.name == FORCEBENCH
        else (f"eviscope score --config {manifest['config']} --predictions {predictions}")
    )
    console.print(f"wrote {predictions} and {out / manifests.MANIFEST}; score it with `{score}`")
    return 0


def _progress(console: Console) -> Progress:
    return Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
    )


def _run_shard(
    args: argparse.Namespace,
    task: Task,
    rows: list[dict[str, Any]],
    sampling: SamplingConfig,
    dtype: str | None,
    settings: RunSettings,
    shard: tuple[int, int],
) -> int:
    """One data-parallel process: rows ``i, i+n, …`` not yet done, journaled to its own file."""
    index, count = shard
    done = read_records(args.out)
    mine = [row for k, row in enumerate(rows) if k % count == index and row["id"] not in done]
    backend = make_backend(args, sampling, dtype)
    run_rows(task, mine, backend, Journal(journal_path(args.out, shard)), settings)
    state = {"info": asdict(backend.info()), "engine_calls": backend.engine_calls}
    write_atomic(args.out / f"session.shard-{index}-of-{count}.json", json.dumps(state, default=str))
    return 0


def _device_groups(count: int, per_process: int) -> list[str]:
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    devices = visible.split(",") if visible else [str(i) for i in range(count * per_process)]
    if len(devices) < count * per_process:
        raise EviScopeError(
            f"--data-parallel-size {count} × --tensor-parallel-size {per_process} needs "
            f"{count * per_process} GPUs; CUDA_VISIBLE_DEVICES lists {len(devices)}"
        )
    return [",".join(devices[i * per_process : (i + 1) * per_process]) for i in range(count)]


def _child_argv(args: argparse.Namespace, shard: str) -> list[str]:
    argv = [sys.executable, "-m", "eviscope.cli", "run", "--shard", shard]
    for action in args.run_parser._actions:
        value = getattr(args, action.dest, None)
        if not action.option_strings or action.dest in _INTERNAL or value is None:
            continue
        if isinstance(action, argparse._StoreTrueAction | argparse._StoreFalseAction):
            if value != action.default:
                argv.append(action.option_strings[0])
        else:
            argv += [action.option_strings[0], str(value)]
    return argv


def _run_data_parallel(args: argparse.Namespace, out: Path, console: Console) -> tuple[BackendInfo, int]:
    """Run one shard process per device group and wait for all; their backend info and engine calls."""
    count = args.data_parallel_size
    groups = _device_groups(count, args.tensor_parallel_size) if args.backend == "vllm" else [""] * count
    for stale in out.glob("session.shard-*.json"):
        stale.unlink()
    children = []
    for index, devices in enumerate(groups):
        env = dict(os.environ, CUDA_VISIBLE_DEVICES=devices) if devices else dict(os.environ)
        children.append(subprocess.Popen(_child_argv(args, f"{index}/{count}"), env=env))
    console.print(f"started {count} shard processes; each journals to {out}/records.shard-*.jsonl")
    failed = [index for index, child in enumerate(children) if child.wait() != 0]
    if failed:
        raise EviScopeError(f"shard processes {failed} failed (see above); rerun the same command to resume")
    states = [json.loads((out / f"session.shard-{i}-of-{count}.json").read_text()) for i in range(count)]
    return BackendInfo(**states[0]["info"]), sum(s["engine_calls"] for s in states)
