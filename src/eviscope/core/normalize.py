"""Text normalization shared by builders, metrics, runner and Space (contract §1).

This is the SQuAD answer normalization, read as the contract (§1) writes it: every Unicode punctuation
character (category ``P*``, e.g. ``—`` or ``«``) is dropped, and so is every character of SQuAD's own
``string.punctuation`` (which also holds the ASCII symbols ``$+<=>^`|~``), so that ``$5 million``
still matches ``5 million`` as it does in the SQuAD evaluation script.

>>> norm("The  Denver Broncos!")
'denver broncos'
>>> tokens("An apple, a day")
['apple', 'day']
>>> contains("It opened in 2010.", "10")
False
>>> contains("It opened in 2010.", "in 2010")
True
"""

from __future__ import annotations

import re
import string
import unicodedata
from functools import cache, lru_cache

from bm25s.stopwords import STOPWORDS_EN

__all__ = ["QUESTION_WORDS", "STOPWORDS", "contains", "english_stop_words", "norm", "tokens"]

STOPWORDS: frozenset[str] = frozenset(STOPWORDS_EN)
"""The suite's English stopwords: bm25s's list (Lucene's 33 function words), the one its BM25
retrieval drops; EviScope's question words extend it."""


@cache
def english_stop_words() -> frozenset[str]:
    """scikit-learn's English stop words (318, the Glasgow list; :data:`STOPWORDS` is a subset), for
    ForceBench's content words. Imported on first use: sklearn takes over a second to import, and
    every CLI command loads the modules that use it.

    >>> STOPWORDS < english_stop_words(), len(english_stop_words())
    (True, 318)
    """
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    return ENGLISH_STOP_WORDS


QUESTION_WORDS: frozenset[str] = STOPWORDS | {
    *("what", "when", "who", "whom", "whose", "which", "where", "why", "how"),
    *("did", "does", "do", "was", "were", "is", "are", "many", "much"),
}
"""Words that say how a question asks, not what it asks about: the stopwords, the question words and
their auxiliaries."""


class _DropPunctuation(dict[int, int | None]):
    """A ``str.translate`` table that drops punctuation, filled in as new characters are seen."""

    def __missing__(self, codepoint: int) -> int | None:
        char = chr(codepoint)
        keep = not (unicodedata.category(char).startswith("P") or char in string.punctuation)
        self[codepoint] = codepoint if keep else None
        return self[codepoint]


_DROP_PUNCTUATION = _DropPunctuation()
_ARTICLES = re.compile(r"\b(a|an|the)\b")


@lru_cache(maxsize=65536)
def norm(s: str) -> str:
    """Lower-case, drop Unicode punctuation and the words a/an/the, collapse white space."""
    s = s.lower().translate(_DROP_PUNCTUATION)
    s = _ARTICLES.sub(" ", s)
    return " ".join(s.split())


def tokens(s: str) -> list[str]:
    """``norm(s).split()``."""
    return norm(s).split()


def contains(hay: str, needle: str) -> bool:
    """True when ``tokens(needle)`` is non-empty and a contiguous run inside ``tokens(hay)``."""
    n = norm(needle)
    if not n:
        return False
    # Space-padded substring search on normalized text is a token-boundary run search.
    return f" {n} " in f" {norm(hay)} "
