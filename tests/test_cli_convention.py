"""Every subcommand follows one command-line convention: a description, visible defaults, the same
flag names for the same things, and a bare group command that prints its help."""

from __future__ import annotations

import argparse
from collections.abc import Iterator

import pytest

from eviscope.cli import main, make_parser
from eviscope.core.registry import configs


def _parsers(
    parser: argparse.ArgumentParser, name: str = "eviscope"
) -> Iterator[tuple[str, argparse.ArgumentParser]]:
    yield name, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub_name, sub in action.choices.items():
                yield from _parsers(sub, f"{name} {sub_name}")


PARSERS = dict(_parsers(make_parser()))


@pytest.mark.parametrize("name", sorted(PARSERS))
def test_every_command_says_what_it_does_and_shows_its_defaults(name: str) -> None:
    parser = PARSERS[name]
    assert (parser.description or "").strip(), f"{name} has no description"
    for action in parser._actions:
        if not action.option_strings or any(
            action.default is nothing for nothing in (None, False, argparse.SUPPRESS)
        ):
            continue
        if isinstance(action, argparse._HelpAction | argparse._VersionAction):
            continue
        shown = parser._get_formatter()._get_help_string(action) % {
            "default": action.default,
            "choices": action.choices,
        }
        assert "(default: " in shown, (
            f"{name} {action.option_strings[0]} hides its default {action.default!r}"
        )


def test_the_same_things_have_the_same_flags() -> None:
    flags = {flag for parser in PARSERS.values() for a in parser._actions for flag in a.option_strings}
    assert not flags & {"--rows", "--predictions", "--run"}, (
        "files a command reads are positional; rows come from --dataset"
    )
    readers = [name for name, p in PARSERS.items() if any("--config" in a.option_strings for a in p._actions)]
    for name in readers:
        assert any("--dataset" in a.option_strings for a in PARSERS[name]._actions), name


@pytest.mark.parametrize("group", ["forcebench", "confquestions"])
def test_a_bare_group_command_prints_its_help(group: str, capsys) -> None:
    assert main([group]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"usage: eviscope {group}") and "COMMAND" in out


def _argv_with_config(name: str, config: str) -> list[str]:
    """``name``'s words, a placeholder for each positional and required option, and ``--config``."""
    argv = name.split()[1:]
    for action in PARSERS[name]._actions:
        if action.option_strings and action.required:
            argv += [action.option_strings[0], action.choices[0] if action.choices else "x"]
        elif not action.option_strings and not isinstance(action, argparse._SubParsersAction):
            argv.append("x")
    return [*argv, "--config", config]


CONFIG_COMMANDS = sorted(
    name for name, p in PARSERS.items() if any("--config" in a.option_strings for a in p._actions)
)


@pytest.mark.parametrize("name", CONFIG_COMMANDS)
def test_every_command_names_the_known_configs_for_an_unknown_one(name: str, capsys) -> None:
    # issue 35: `eviscope baseline --config eviscopexl` said to run `eviscope build eviscopexl`
    assert main(_argv_with_config(name, "eviscopexl")) == 2
    err = capsys.readouterr().err
    known = ", ".join(configs())  # eviscope-v1, eviscope-v1.1, eviscope-xl, forcebench (and any added)
    assert err == f"eviscope {name.split()[1]}: error: unknown config 'eviscopexl'; known: {known}\n"


def test_an_eviscope_command_names_the_eviscope_configs_for_a_forcebench_one(tmp_path, capsys) -> None:
    assert main(["baseline", "--config", "forcebench", "--dataset", str(tmp_path)]) == 2
    assert capsys.readouterr().err == (
        "eviscope baseline: error: config 'forcebench' belongs to ForceBench, not EviScope; "
        "EviScope configs: eviscope-v1, eviscope-v1.1, eviscope-xl\n"
    )
