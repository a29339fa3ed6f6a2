"""``eviscope tiny-model PATH``: a tiny random-weight model to try ``eviscope run`` offline."""

from __future__ import annotations

import argparse
from pathlib import Path

from eviscope.commands import add_config_argument, add_dataset_argument, add_subcommand, console
from eviscope.core.errors import EviScopeError
from eviscope.suites.eviscope.dataset import load_rows
from eviscope.suites.eviscope.policies import render


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
    rows = load_rows(args.config, args.dataset)
    path = build_tiny_model(args.path, [render("vanilla", row) for row in rows])
    console(stderr=True).print(f"wrote a tiny model to {path}")
    return 0
