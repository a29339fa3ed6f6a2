"""The ``eviscope`` command line. Each shared subcommand lives in ``eviscope.commands.<name>``; a
benchmark's own subcommands are modules its :attr:`~eviscope.core.registry.Benchmark.commands` names."""

from __future__ import annotations

import argparse
import importlib
import logging
import sys
import warnings
from collections.abc import Sequence
from typing import TextIO

from eviscope import __version__
from eviscope.commands import (
    build,
    confquestions,
    release,
    results,
    run,
    score,
    tasks,
    tiny_model,
)
from eviscope.core.errors import EviScopeError, EviScopeWarning, plain
from eviscope.core.registry import command_modules, for_config

COMMANDS = (
    build,
    score,
    run,
    tiny_model,
    confquestions,
    release,
    results,
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
    for module in command_modules():
        importlib.import_module(module).register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = make_parser().parse_args(argv)
    shown = warnings.showwarning

    def show(
        message: Warning | str,
        category: type[Warning],
        filename: str,
        lineno: int,
        file: TextIO | None = None,
        line: str | None = None,
    ) -> None:
        if issubclass(category, EviScopeWarning):  # one line, as an error is
            print(f"eviscope {args.command}: warning: {plain(str(message), None)}", file=sys.stderr)
        else:
            shown(message, category, filename, lineno, file, line)

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("always", EviScopeWarning)
            warnings.showwarning = show
            if getattr(args, "config", None) is not None:  # every command's --config, before any work
                for_config(args.config)
            return args.func(args) or 0
    except EviScopeError as err:
        # One line whatever the message quotes: line breaks and control characters are escaped.
        print(f"eviscope {args.command}: error: {plain(str(err), None)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        # A signal that lands inside an asyncio task (an HTTP write of the OpenAI backend) is stored in
        # that task too, and asyncio would print it again, with a traceback, as "Task exception was
        # never retrieved" when the task is collected at exit: the one line below says it all.
        logging.getLogger("asyncio").disabled = True
        print(f"eviscope {args.command}: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
