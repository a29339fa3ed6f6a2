"""Per-user limits on submissions (how many an hour, and how many uploaded bytes an hour), and how
long the Space keeps an upload.

Each user (the Hub username under sign-in; the one local identity otherwise) may have
:attr:`Limits.submissions` submissions scored, and :attr:`Limits.upload_bytes` bytes uploaded, in
any hour (a sliding window); one more is refused unread, with one line saying which limit, the
environment variable that sets it, and when the next is possible. Every upload that is read counts,
recorded or refused by validation, as each costs the Space the same work.

An upload, submitted or not, is removed from gradio's upload folder once older than
:attr:`Limits.upload_max_age_s` (and at exit).

The defaults (:data:`SUBMISSIONS_PER_HOUR`, :data:`UPLOAD_MIB_PER_HOUR`, :data:`UPLOAD_MAX_AGE_S`)
are set by ``EVISCOPE_SPACE_SUBMISSIONS_PER_HOUR``, ``EVISCOPE_SPACE_UPLOAD_MIB_PER_HOUR`` and
``EVISCOPE_SPACE_UPLOAD_MAX_AGE_S``.
"""

from __future__ import annotations

import math
import os
import threading
import time
from collections import defaultdict, deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from eviscope.core.errors import EviScopeError

__all__ = ["SUBMISSIONS_PER_HOUR", "UPLOAD_MAX_AGE_S", "UPLOAD_MIB_PER_HOUR", "WINDOW_S", "Limits"]

SUBMISSIONS_PER_HOUR = 30
"""Submissions a user may have scored in an hour (``EVISCOPE_SPACE_SUBMISSIONS_PER_HOUR``)."""
UPLOAD_MIB_PER_HOUR = 200
"""MiB a user may upload in an hour (``EVISCOPE_SPACE_UPLOAD_MIB_PER_HOUR``): ten full-size uploads."""
UPLOAD_MAX_AGE_S = 600
"""Seconds an upload is kept in gradio's upload folder (``EVISCOPE_SPACE_UPLOAD_MAX_AGE_S``)."""
WINDOW_S = 3600.0
COUNT_VARIABLE = "EVISCOPE_SPACE_SUBMISSIONS_PER_HOUR"
BYTES_VARIABLE = "EVISCOPE_SPACE_UPLOAD_MIB_PER_HOUR"
AGE_VARIABLE = "EVISCOPE_SPACE_UPLOAD_MAX_AGE_S"


def _positive(env: Mapping[str, str], name: str, default: float) -> float:
    text = env.get(name, "").strip()
    if not text:
        return default
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not value > 0 or math.isinf(value):
        raise EviScopeError(f"${name}: {text[:40]!r} is not a positive number")
    return value


@dataclass
class Limits:
    """The per-user limits and what each user has used of them in the last hour."""

    submissions: int = SUBMISSIONS_PER_HOUR
    upload_bytes: int = UPLOAD_MIB_PER_HOUR * 2**20
    upload_max_age_s: int = UPLOAD_MAX_AGE_S
    clock: Callable[[], float] = field(default=time.monotonic, compare=False)
    _used: dict[str, deque[tuple[float, int]]] = field(
        default_factory=lambda: defaultdict(deque), repr=False, compare=False
    )
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Limits:
        """The limits ``env`` (``os.environ``) sets, each at its default where unset; a value that
        is not a positive number is an error naming the variable."""
        env = os.environ if env is None else env
        return cls(
            submissions=int(_positive(env, COUNT_VARIABLE, SUBMISSIONS_PER_HOUR)),
            upload_bytes=int(_positive(env, BYTES_VARIABLE, UPLOAD_MIB_PER_HOUR) * 2**20),
            upload_max_age_s=max(1, int(_positive(env, AGE_VARIABLE, UPLOAD_MAX_AGE_S))),
        )

    def admit(self, user: str, size: int) -> None:
        """Count one submission of ``size`` bytes by ``user``, or refuse it (one line, nothing
        counted) when it would go over a limit."""
        with self._lock:
            now = self.clock()
            used = self._used[user]
            while used and used[0][0] <= now - WINDOW_S:
                used.popleft()
            if len(used) >= self.submissions:
                wait = _minutes(used[0][0] + WINDOW_S - now)
                raise EviScopeError(
                    f"{user} has made {len(used)} submissions in the last hour, the limit "
                    f"(${COUNT_VARIABLE}); the next is possible in {wait}"
                )
            limit = f"the {self.upload_bytes / 2**20:g} MiB limit (${BYTES_VARIABLE})"
            if size > self.upload_bytes:
                raise EviScopeError(f"this {size / 2**20:.1f} MiB upload is over {limit} of uploads an hour")
            total = sum(n for _, n in used) + size
            if total > self.upload_bytes:
                wait = _minutes(self._frees(used, total - self.upload_bytes) + WINDOW_S - now)
                raise EviScopeError(
                    f"this {size / 2**20:.1f} MiB upload would bring {user}'s uploads of the last hour to "
                    f"{total / 2**20:.1f} MiB, over {limit}; try again in {wait}"
                )
            used.append((now, size))

    @staticmethod
    def _frees(used: deque[tuple[float, int]], excess: int) -> float:
        """When the oldest uploads that free ``excess`` bytes were made (``excess`` is at most their sum)."""
        freed = 0
        for at, n in used:
            freed += n
            if freed >= excess:
                return at
        return used[-1][0]


def _minutes(seconds: float) -> str:
    return f"{max(1, math.ceil(seconds / 60))} min"
