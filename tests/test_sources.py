"""contract §8: a source comes from its flag, else its environment variable, else its default."""

import pytest

from eviscope.core.errors import EviScopeError
from eviscope.core.sources import Source, resolve, sources

HUMAN = ["insciout", "vitaminc_real", "check_covid", "missciplus", "citation_integrity", "timeqa_human"]
"""ForceBench's sources of human-written claims (issue 33), each with its flag and variable."""


def test_flag_wins_over_environment() -> None:
    ref = resolve("squad", "/flag.json", environ={"EVISCOPE_SQUAD": "/env.json"})
    assert (ref.location, ref.via, ref.is_hub) == ("/flag.json", "--squad", False)


def test_environment_wins_over_default() -> None:
    ref = resolve("attributionbench", None, environ={"EVISCOPE_ATTRIBUTIONBENCH": "/ab"})
    assert (ref.location, ref.via) == ("/ab", "EVISCOPE_ATTRIBUTIONBENCH")


def test_default_is_the_hub_dataset() -> None:
    ref = resolve("squad", None, environ={})
    assert (ref.location, ref.is_hub) == ("rajpurkar/squad", True)


def test_confquestions_has_no_default() -> None:
    with pytest.raises(EviScopeError, match="--confquestions PATH or EVISCOPE_CONFQUESTIONS"):
        resolve("confquestions", None, environ={})


def test_every_source_is_declared_by_what_reads_it_and_every_config_names_one_of_its_benchmark() -> None:
    """The core names no source: each benchmark declares its own (``Benchmark.sources``), RAGONITE's
    ConfQuestions is declared where it is read, and ``eviscope build`` offers a flag for each."""
    from eviscope.cli import make_parser
    from eviscope.core.registry import benchmarks, source_of
    from eviscope.ragonite.confquestions import CONFQUESTIONS

    assert list(sources()) == [
        "squad",
        "squad-train",
        "tydiqa-goldp-en",
        "squadshifts-new-wiki",
        "mlqa-en-dev",
        "attributionbench",
        *HUMAN,
        "confquestions",
    ]
    assert sources()["confquestions"] is CONFQUESTIONS
    for bench in benchmarks():
        for config in bench.configs:
            assert source_of(bench, config) in (None, *bench.sources), config.name
    build = next(a for a in make_parser()._actions if a.dest == "command").choices["build"]
    flags = {flag for action in build._actions for flag in action.option_strings}
    assert {source.flag for source in sources().values()} <= flags


def test_an_unknown_source_or_an_undeclared_one_names_the_known_ones(monkeypatch: pytest.MonkeyPatch) -> None:
    from eviscope.core.registry import Config, benchmark, source_of

    with pytest.raises(
        EviScopeError,
        match=r"^unknown source 'sqaud'; known: squad, squad-train, tydiqa-goldp-en, squadshifts-new-wiki, "
        rf"mlqa-en-dev, attributionbench, {', '.join(HUMAN)}, confquestions$",
    ):
        resolve("sqaud", None, environ={})
    with pytest.raises(
        EviScopeError,
        match=r"names source 'squad', which ForceBench does not declare \(its sources: attributionbench, insciout,",
    ):
        source_of(benchmark("forcebench"), Config("forcebench", "squad"))
    # two different sources under one name would make a flag mean two things
    other = Source("squad", "another SQuAD", "--squad", "EVISCOPE_SQUAD", None)
    monkeypatch.setattr(type(benchmark("forcebench")), "sources", (*benchmark("forcebench").sources, other))
    with pytest.raises(EviScopeError, match=r"^two different sources are named 'squad'"):
        sources()
