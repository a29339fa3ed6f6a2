"""One module per ``eviscope`` subcommand; each only parses its arguments and prints.

The convention every subcommand follows: the files a command reads are positional (``eviscope
score PREDICTIONS``), ``--config NAME`` names a config (default: ``eviscope-v1.1``), ``--dataset DIR``
the folder ``eviscope build`` wrote (default: ``dataset``), ``--out`` what a command writes (its
default in its help), and ``--json`` prints JSON instead of tables. Every option's help ends with its
default (argparse's, through :class:`HelpFormatter`), and a command that groups others (``eviscope forcebench``) prints its help when run bare.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from rich.console import Console

from eviscope.core.layout import DEFAULT_DATASET_DIR
from eviscope.core.registry import DEFAULT_CONFIG


class HelpFormatter(argparse.RawDescriptionHelpFormatter, argparse.ArgumentDefaultsHelpFormatter):
    """Descriptions keep their line breaks; argparse ends an option's help with its default, unless
    the default is None or False (nothing to show) or the help says it in words ("default: all")."""

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        if "(default:" in text or any(
            action.default is nothing for nothing in (None, False, argparse.SUPPRESS)
        ):
            return text
        return super()._get_help_string(action) or text


def add_subcommand(
    subparsers: argparse._SubParsersAction, name: str, *, help: str, description: str
) -> argparse.ArgumentParser:
    """A subcommand parser with a description and help that keeps the description's line breaks."""
    return subparsers.add_parser(name, help=help, description=description, formatter_class=HelpFormatter)


def add_group(
    subparsers: argparse._SubParsersAction, name: str, *, help: str, description: str
) -> argparse._SubParsersAction:
    """A subcommand that groups others (``eviscope forcebench baselines``); run bare, it prints its help."""
    parser = add_subcommand(subparsers, name, help=help, description=description)

    def print_help(args: argparse.Namespace) -> int:
        parser.print_help()
        return 0

    parser.set_defaults(func=print_help)
    return parser.add_subparsers(dest=f"{name}_command", metavar="COMMAND")


def add_config_argument(parser: argparse.ArgumentParser | argparse._ArgumentGroup) -> None:
    parser.add_argument("--config", default=DEFAULT_CONFIG, metavar="NAME", help="config")


def add_dataset_argument(parser: argparse.ArgumentParser | argparse._ArgumentGroup) -> None:
    parser.add_argument(
        "--dataset",
        type=Path,
        default=Path(DEFAULT_DATASET_DIR),
        metavar="DIR",
        help="folder `eviscope build` wrote",
    )


def add_json_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print JSON instead of tables")


def console(stderr: bool = False) -> Console:
    """Where a command prints: lines are never broken (a path stays whole in a pipe or a log), and
    tables take the terminal's width, 80 columns when there is none."""
    return Console(stderr=stderr, soft_wrap=True)
