"""contract §8: a source comes from its flag, else its environment variable, else its default."""

import pytest

from eviscope.core.errors import EviScopeError
from eviscope.core.sources import resolve


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
