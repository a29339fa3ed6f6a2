"""``eviscope tiny-model PATH``: a tiny random-weight model to try ``eviscope run`` offline."""

from __future__ import annotations

import argparse
from pathlib import Path

from eviscope.commands import add_config_argument, add_dataset_argument, add_subcommand, console
from eviscope.core.errors import EviScopeError
from eviscope.core.registry import for_config, task_options


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = add_subcommand(
        subparsers,
        "tiny-model",
        help="write a tiny random-weight model for trying `eviscope run` offline",
        description=(
            "Write a 2-layer Llama with random weights and a BPE tokenizer trained on the config's\n"
            "prompts into PATH (needs the cpu extra: torch, transformers). Its replies are meaningless;\n"
            "it shows the transformers backend end to end in seconds:\n"
            "  eviscope run --backend transformers --model PATH --out runs/tiny/ --limit 8"
        ),
    )
    parser.add_argument("path", type=Path, metavar="PATH", help="folder to write the model into")
    add_config_argument(parser)
    add_dataset_argument(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from eviscope.runner.tiny_model import build_tiny_model

    try:
        import torch  # noqa: F401
        import transformers  # noqa: F401
    except ImportError as err:
        raise EviScopeError(
            f"a tiny model needs torch and transformers ({err}): pip install 'eviscope[cpu]'"
        ) from None
    bench = for_config(args.config)
    task = bench.task(task_options(bench, args.config, {}), str(args.path))
    corpus = [
        message["content"]
        for row in bench.load_rows(args.config, args.dataset)
        for request in task.requests(row)
        for message in request.messages
    ]
    path = build_tiny_model(args.path, corpus)
    console(stderr=True).print(f"wrote a tiny model to {path}")
    return 0
