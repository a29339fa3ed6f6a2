"""``eviscope run``: parse the options of a run and print its progress; the run is
:func:`eviscope.runner.session.run`.

The options of each benchmark's task (``--policy``, ``--judge``…) come from the benchmark registry
and those of each backend from its settings (:mod:`eviscope.runner.backends`), so a new benchmark or
backend brings its own options.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from eviscope.commands import add_dataset_argument, add_subcommand, console
from eviscope.core.errors import EviScopeError
from eviscope.core.ranges import AT_LEAST_ONE, FINITE_NON_NEGATIVE, FINITE_POSITIVE, NON_NEGATIVE, SEED
from eviscope.core.registry import DEFAULT_CONFIG, run_options
from eviscope.runner.accounting import PriceTable
from eviscope.runner.backends import BACKENDS, backend_settings, settings_class
from eviscope.runner.backends.base import SamplingConfig
from eviscope.runner.execute import RunSettings
from eviscope.runner.manifest import MANIFEST
from eviscope.runner.ray_pool import RayOptions
from eviscope.runner.session import Advance, RunRequest, run


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = add_subcommand(
        subparsers,
        "run",
        help="run a model over a config (vLLM, OpenAI-compatible server, or transformers on CPU)",
        description=(
            "Run a model over a config (an EviScope policy, or a ForceBench judge prompt) and write\n"
            "predictions.jsonl, records.jsonl and manifest.json into --out; rerun to resume.\n"
            "Backend options say which backend they are for."
        ),
    )
    what = parser.add_argument_group("what to run")
    what.add_argument("--config", default=DEFAULT_CONFIG, help="config to run")
    add_dataset_argument(what)
    for option in run_options().values():
        if option.switch:
            what.add_argument(option.flag, action="store_true", help=option.help)
            continue
        default = "" if option.default is None else f" (default: {option.default})"
        what.add_argument(
            option.flag, choices=option.choices, metavar=option.metavar, help=option.help + default
        )
    what.add_argument(
        "--limit", type=AT_LEAST_ONE, metavar="N", help="run only the first N rows (default: all)"
    )
    what.add_argument(
        "--out", type=Path, required=True, metavar="DIR", help="run folder, e.g. runs/qwen-gate/"
    )
    what.add_argument(
        "--save-prompts", action="store_true", help="write each rendered prompt to prompts.jsonl"
    )

    model = parser.add_argument_group("model and backend")
    model.add_argument("--backend", choices=list(BACKENDS), required=True, help="one of %(choices)s")
    model.add_argument(
        "--model",
        required=True,
        help="hub id, local folder, or GGUF file (or a folder holding one) (openai: the served model name)",
    )
    _add_backend_options(model)

    pool = parser.add_argument_group("Ray (needs the ray extra)")
    pool.add_argument("--ray", nargs="?", const="", metavar="ADDRESS",
                      help="answer the rows on a Ray cluster: no ADDRESS starts a local one, `auto` the one "
                      "`ray start` started, else HOST:PORT or ray://HOST:PORT (default: in this process)")  # fmt: skip
    pool.add_argument(
        "--workers", type=AT_LEAST_ONE, metavar="N", help="Ray worker actors, one backend each (default: 1)"
    )
    pool.add_argument("--gpus-per-worker", type=FINITE_NON_NEGATIVE, metavar="G",
                      help="GPUs per Ray worker (default: what the backend needs: vllm its --tensor-parallel-size)")  # fmt: skip
    pool.add_argument("--cpus-per-worker", type=FINITE_POSITIVE, metavar="C",
                      help="CPUs per Ray worker (default: 1)")  # fmt: skip

    decode = parser.add_argument_group("decoding")
    decode.add_argument("--max-tokens", type=AT_LEAST_ONE, default=512, metavar="N", help="per reply")
    decode.add_argument("--seed", type=SEED, default=0, help="sampling and engine seed")
    decode.add_argument("--generation-config", choices=("engine", "model"), default="engine",
                        help="defaults beside temperature 0: the engine's, or the model's "
                        "generation_config.json")  # fmt: skip
    decode.add_argument("--max-retries", type=NON_NEGATIVE, default=2, metavar="N",
                        help="re-asks of an unparsable reply before it is kept as action null; a reply "
                        "cut by --max-tokens is not re-asked")  # fmt: skip
    decode.add_argument("--batch-size", type=NON_NEGATIVE, default=0, metavar="N",
                        help="rows per backend call and per journal flush; 0: all in one call")  # fmt: skip
    decode.add_argument("--price-prompt", type=FINITE_NON_NEGATIVE, default=0.0, metavar="USD",
                        help="per 1M prompt tokens")  # fmt: skip
    decode.add_argument("--price-completion", type=FINITE_NON_NEGATIVE, default=0.0, metavar="USD",
                        help="per 1M completion tokens")  # fmt: skip
    parser.set_defaults(func=main)


def _add_backend_options(group: argparse._ArgumentGroup) -> None:
    """One option per field of every backend's settings; a field several backends share is one option
    whose help gives each backend's default. A number is parsed by its declared range, so a value out
    of it is argparse's one line naming the option."""
    seen: dict[str, list[tuple[str, Any]]] = {}
    meta: dict[str, dataclasses.Field] = {}
    for name in BACKENDS:
        for f in dataclasses.fields(settings_class(name)):
            if f.name == "model":
                continue
            seen.setdefault(f.name, []).append((name, f.default))
            meta.setdefault(f.name, f)
    taken = {action.dest for action in group._actions}
    for dest, backends in seen.items():
        if dest in taken:
            raise RuntimeError(f"backend option {dest!r} clashes with an option of eviscope run; rename it")
        f = meta[dest]
        flag = f.metadata.get("flag") or "--" + dest.replace("_", "-")
        everyone = len(backends) == len(BACKENDS)
        where = "" if everyone else "/".join(name for name, _ in backends) + ": "
        if f.type in (bool, "bool"):
            group.add_argument(
                flag, dest=dest, action="store_const", const=not f.default, help=where + f.metadata["help"]
            )
            continue
        defaults = {str(default) for _, default in backends}
        if len(defaults) == 1:
            default = "" if None in (d for _, d in backends) else f" (default: {backends[0][1]})"
        else:
            default = " (default: " + ", ".join(f"{n} {d}" for n, d in backends if d is not None) + ")"
        limits = f.metadata.get("range")
        if limits is None and str(f.type).split(" | ")[0] in ("int", "float"):
            raise RuntimeError(f"backend option {dest!r} is a number: declare its range (option(range=...))")
        group.add_argument(flag, dest=dest, type=limits or str, metavar=f.metadata.get("metavar"),
                           help=where + f.metadata["help"] + default)  # fmt: skip


def request(args: argparse.Namespace) -> RunRequest:
    """The run the command line asks for."""
    backend = backend_settings(args.backend, vars(args))
    return RunRequest(
        config=args.config,
        out=args.out,
        backend=backend,
        sampling=SamplingConfig(
            max_tokens=args.max_tokens, seed=args.seed, generation_config=args.generation_config
        ),
        dataset=args.dataset,
        options={name: getattr(args, name) for name in run_options()},
        limit=args.limit,
        settings=RunSettings(
            max_retries=args.max_retries,
            batch_size=args.batch_size,
            prices=PriceTable(args.price_prompt, args.price_completion),
        ),
        ray=_ray_options(args),
        save_prompts=args.save_prompts,
    )


def _ray_options(args: argparse.Namespace) -> RayOptions | None:
    if args.ray is None:
        given = [f for f, v in (("--workers", args.workers), ("--gpus-per-worker", args.gpus_per_worker),
                                ("--cpus-per-worker", args.cpus_per_worker)) if v is not None]  # fmt: skip
        if given:
            raise EviScopeError(f"{given[0]} is for runs on Ray: add --ray [ADDRESS]")
        return None
    return RayOptions(
        address=args.ray or None,
        workers=args.workers or 1,
        gpus_per_worker=args.gpus_per_worker,
        cpus_per_worker=args.cpus_per_worker or 1,
    )


def main(args: argparse.Namespace) -> int:
    screen = console(stderr=True)

    @contextlib.contextmanager
    def track(total: int) -> Iterator[Advance]:
        with Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=screen,
        ) as progress:
            bar = progress.add_task("rows", total=total)
            yield lambda n: progress.advance(bar, n)

    result = run(request(args), say=screen.print, track=track)
    screen.print(result.summary())
    screen.print(
        f"wrote {result.predictions} and {args.out / MANIFEST}; score it with `{result.score_command}`"
    )
    return 0
