"""contract §1: the one normalization every matcher in the suite uses."""

from eviscope.core.normalize import contains, norm, tokens


def test_norm_is_squad_normalization() -> None:
    assert norm("  The Denver   Broncos! ") == "denver broncos"
    assert norm("An apple a day") == "apple day"
    assert norm("Levi's Stadium.") == "levis stadium"


def test_unicode_punctuation_is_dropped() -> None:
    assert norm("«Quoted» — text…") == "quoted text"
    assert norm("¿Dónde?") == "dónde"


def test_squad_ascii_symbols_are_dropped_too() -> None:
    assert norm("$5 million") == norm("5 million")


def test_articles_only_as_whole_words() -> None:
    assert tokens("Theatre and anthem at the end") == ["theatre", "and", "anthem", "at", "end"]


def test_contains_is_on_token_boundaries() -> None:
    assert not contains("It opened in 2010.", "10")
    assert contains("It opened in 2010.", "2010")
    assert contains("The Denver Broncos won.", "denver broncos")
    assert not contains("Broncos", "Denver Broncos")


def test_contains_needs_a_non_empty_needle() -> None:
    assert not contains("the text", "the")
    assert not contains("the text", "")
