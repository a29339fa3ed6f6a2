"""The ``eviscope`` command line. Each subcommand lives in ``eviscope.commands.<name>``."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from eviscope import __version__
from eviscope.commands import (
    attribute,
    baseline,
    build,
    compare,
    confquestions,
    forcebench,
    release,
    results,
    review,
    run,
    score,
    tasks,
    tiny_model,
)
from eviscope.core.errors import EviScopeError, plain

COMMANDS = (
    build,
    score,
    compare,
    baseline,
    forcebench,
    run,
    tiny_model,
    confquestions,
    attribute,
    release,
    results,
    review,
    tasks,
)
"""Subcommand modules; each has ``register(subparsers)`` that sets ``func`` on its parser."""


def make_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="eviscope", description="EviScope suite: build, score and compare evidence diagnostics."
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for command in COMMANDS:
        command.register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = make_parser().parse_args(argv)
    try:
        return args.func(args) or 0
    except EviScopeError as err:
        # One line whatever the message quotes: line breaks and control characters are escaped.
        print(f"eviscope {args.command}: error: {plain(str(err), None)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"eviscope {args.command}: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
