"""Keeping secrets out of what a run writes and prints: credentials in URLs, echoed API keys.

A server URL may carry credentials (``http://user:KEY@host/v1``, ``?api-key=KEY``, ``?key=``,
``?token=``…). :func:`safe_url` is the URL as it may be recorded or printed: the user and password
dropped, the value of every query parameter whose name says it is a credential replaced by
``REDACTED``. :class:`Redactor` replaces each configured secret (the API key, the URL's credentials)
wherever a server echoes it back, in reply text and error messages, before they reach the journal,
the manifest or the screen.

>>> safe_url("http://user:s3cret@127.0.0.1:8000/v1?api-key=s3cret&api-version=2024")
'http://127.0.0.1:8000/v1?api-key=REDACTED&api-version=2024'
>>> sorted(url_secrets("http://user:s3cret@host/v1?token=tok%2F1"))
['dXNlcjpzM2NyZXQ=', 's3cret', 'tok%2F1', 'tok/1']
>>> Redactor(["s3cret"]).text("Authorization: Bearer s3cret")
'Authorization: Bearer [REDACTED]'
"""

from __future__ import annotations

import base64
import re
from collections.abc import Iterable
from urllib.parse import parse_qsl, unquote, urlsplit, urlunsplit

REDACTED = "[REDACTED]"

_SECRET_PARAM = re.compile(r"key|token|secret|passw|pwd|auth|sig|credential|session", re.IGNORECASE)
"""Query parameter names whose values are credentials (``api-key``, ``key``, ``access_token``…)."""

MIN_SECRET_CHARS = 4
"""Shorter secrets are not searched for in text (a one-letter user name would blank every word)."""


def _split(url: str):  # type: ignore[no-untyped-def]
    try:
        return urlsplit(url)
    except ValueError:  # an unreadable URL: nothing of it is recorded
        return None


def _query_pairs(query: str) -> list[tuple[str, str]]:
    return [tuple(part.split("=", 1)) if "=" in part else (part, "") for part in query.split("&") if part]  # type: ignore[misc]


def safe_url(url: str) -> str:
    """``url`` without its credentials (see the module docstring)."""
    parts = _split(url)
    if parts is None:
        return "<an unreadable URL>"
    host = parts.hostname or ""
    if ":" in host:  # IPv6
        host = f"[{host}]"
    try:
        port = parts.port
    except ValueError:
        port = None
    netloc = host + (f":{port}" if port is not None else "")
    query = "&".join(
        f"{name}=REDACTED" if _SECRET_PARAM.search(unquote(name)) else (f"{name}={value}" if value else name)
        for name, value in _query_pairs(parts.query)
    )
    return urlunsplit((parts.scheme, netloc, parts.path, query, ""))


def url_secrets(url: str) -> set[str]:
    """The credentials ``url`` carries: its password (its user name when it has none, as in
    ``http://KEY@host``) and the HTTP basic credentials made of them, and the values of
    credential-named query parameters, each as written and percent-decoded."""
    parts = _split(url)
    if parts is None:
        return {url}
    found = {parts.password or parts.username or ""}
    if parts.username or parts.password:
        basic = f"{unquote(parts.username or '')}:{unquote(parts.password or '')}"
        found.add(base64.b64encode(basic.encode()).decode())
    found |= {v for name, v in parse_qsl(parts.query, keep_blank_values=True) if _SECRET_PARAM.search(name)}
    found |= {v for name, v in _query_pairs(parts.query) if _SECRET_PARAM.search(unquote(name))}
    found |= {unquote(s) for s in found}
    return {s for s in found if s}


class Redactor:
    """Replaces each of ``secrets`` (those of at least :data:`MIN_SECRET_CHARS` characters) in text."""

    def __init__(self, secrets: Iterable[str | None]) -> None:
        kept = sorted({s for s in secrets if s and len(s) >= MIN_SECRET_CHARS}, key=len, reverse=True)
        self._pattern = re.compile("|".join(map(re.escape, kept))) if kept else None

    def text(self, text: str) -> str:
        return text if self._pattern is None or not text else self._pattern.sub(REDACTED, text)
