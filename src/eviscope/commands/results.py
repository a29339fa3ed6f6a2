"""``eviscope results export runs/NAME --model-repo ORG/MODEL --benchmark ORG/eviscope [--push [--create-pr]]``.

Writes the run's headline metrics as ``.eval_results/*.yaml`` for the model repo (the format the
Hub's benchmark leaderboards read; see :mod:`eviscope.release.eval_results`), and with ``--push``
commits them to the model repo, or opens a pull request there with ``--create-pr``.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from eviscope.commands import add_dataset_argument, add_group, add_subcommand
from eviscope.core.errors import EviScopeError


def register(subparsers: argparse._SubParsersAction) -> None:
    commands = add_group(
        subparsers,
        "results",
        help="share a run's results on the hub",
        description="Share a run's results on the hub, in the format its benchmark leaderboards read.",
    )
    export = add_subcommand(
        commands,
        "export",
        help="write a run's headline metrics as .eval_results/*.yaml for a model repo",
        description=(
            "Score the finished run against the built dataset and write one .eval_results/*.yaml per\n"
            "leaderboard task of its config (the hub's eval-results format), into --out; with --push,\n"
            "commit them to --model-repo (or open a pull request with --create-pr)."
        ),
    )
    export.add_argument("run", type=Path, metavar="RUN", help="a run folder `eviscope run` wrote")
    export.add_argument(
        "--model-repo", required=True, metavar="ORG/MODEL", help="the model repo the results are for"
    )
    export.add_argument(
        "--benchmark",
        metavar="ORG/eviscope",
        help="the benchmark dataset repo `eviscope release` published (required: the results name it)",
    )
    add_dataset_argument(export)
    export.add_argument(
        "--out", type=Path, metavar="DIR", help="where to write .eval_results/ (default: the run folder)"
    )
    export.add_argument("--push", action="store_true", help="commit the files to --model-repo on the hub")
    export.add_argument("--create-pr", action="store_true", help="with --push: open a pull request instead")
    export.add_argument(
        "--endpoint", metavar="URL", help="hub endpoint (default: $HF_ENDPOINT, else huggingface.co)"
    )
    export.set_defaults(func=run_export)


def run_export(args: argparse.Namespace) -> int:
    from eviscope.release.eval_results import push_results, run_results, write_results

    if args.create_pr and not args.push:
        raise EviScopeError("--create-pr needs --push")
    if not args.benchmark:
        raise EviScopeError("name the benchmark dataset the results are for: --benchmark ORG/eviscope")
    files = run_results(args.run, args.benchmark, args.dataset)
    for path in write_results(files, args.out or args.run):
        print(f"wrote {path}")
    if args.push:
        link = push_results(files, args.model_repo, create_pr=args.create_pr, endpoint=args.endpoint)
        print(f"{args.model_repo}: {'pull request' if args.create_pr else 'commit'} {link}")
    return 0
