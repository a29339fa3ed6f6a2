"""The run loop: pending rows in batches, one backend call per batch, bounded re-asks, journaling.

A batch's requests go to the backend in one call. Replies that cannot be parsed, and were not cut
by the token limit (at temperature 0 the same prompt would be cut the same way), are asked again,
all in one further call, with the unreadable reply and :data:`~eviscope.suites.eviscope.parsing.RETRY_INSTRUCTION`
appended, at most ``max_retries`` times; what is still unreadable is kept as unparsed (``action:
null``). A reply that came back as an error (e.g. an HTTP 400) is final: it is not asked again.
Finished rows are journaled (fsync) before the next batch. Requests whose server stayed unavailable
are not journaled: the run stops with a one-line error naming the first such row and its error, and
rerunning resumes them. A backend that gave up on a server that looks down (the OpenAI-compatible
backend's circuit breaker) returns the requests it did not send as ``retryable`` with ``calls=0``
and the reason as their error; the rows answered before are journaled all the same, and the error
leads with that reason and says how many rows were left unsent.

The journal keeps what a resume and a reader need, not whatever a server sent: a reply's text is
kept up to :data:`RAW_TEXT_CHARS` characters (the rest is cut, and the record says how long it was);
the parsed fields come from the whole reply.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from eviscope.core.errors import EviScopeError, id_text, plain
from eviscope.runner.accounting import PriceTable, row_usage
from eviscope.runner.backends.base import Backend, ChatRequest, Completion
from eviscope.runner.store import Journal
from eviscope.runner.tasks import RETRY_INSTRUCTION, Part, Task

RAW_TEXT_CHARS = 65_536
"""The most characters of a reply's text a journal record keeps (a real reply is a few thousand)."""


def kept_text(text: str) -> str:
    """``text`` as the journal keeps it: cut at :data:`RAW_TEXT_CHARS` characters, saying so.

    >>> kept_text("x" * 70_000)[-44:]
    'xxx… [cut: the reply held 70,000 characters]'
    """
    if len(text) <= RAW_TEXT_CHARS:
        return text
    return f"{text[:RAW_TEXT_CHARS]}… [cut: the reply held {len(text):,} characters]"


@dataclass(frozen=True)
class RunSettings:
    """``batch_size`` 0 sends every pending row in one batch (one engine call per process)."""

    max_retries: int = 2
    batch_size: int = 0
    prices: PriceTable = field(default_factory=PriceTable)


def _retry(request: ChatRequest, reply: str) -> ChatRequest:
    turns = [{"role": "assistant", "content": reply}, {"role": "user", "content": RETRY_INSTRUCTION}]
    return ChatRequest(request.key, [*request.messages, *turns], request.schema)


def generate(
    task: Task, backend: Backend, requests: Sequence[ChatRequest], max_retries: int
) -> dict[str, tuple[Part, list[Completion]]]:
    """Each request's :class:`Part` and every completion made for it; one backend call per round."""
    made: dict[str, list[Completion]] = {r.key: [] for r in requests}
    parts: dict[str, Part] = {}
    todo = list(requests)
    for attempt in range(max_retries + 1):
        if not todo:
            break
        again = []
        for request, completion in zip(todo, backend.complete(todo), strict=True):
            made[request.key].append(completion)
            parsed = None if completion.error else task.parse(completion.text)
            part = Part(
                parsed, kept_text(completion.text), attempt + 1, completion.error, completion.truncated
            )
            final = completion.error is not None or completion.truncated
            if parsed is None and not final and attempt < max_retries:
                again.append(_retry(request, completion.text))
                continue
            parts[request.key] = part
        todo = again
    return {key: (parts[key], made[key]) for key in made}


def run_rows(
    task: Task,
    rows: Sequence[Mapping[str, Any]],
    backend: Backend,
    journal: Journal,
    settings: RunSettings,
    advance: Callable[[int], None] = lambda n: None,
) -> int:
    """Run ``rows`` (the pending ones) batch by batch, journal each finished row; the number done."""
    done = 0
    size = settings.batch_size or len(rows) or 1
    for start in range(0, len(rows), size):
        batch = rows[start : start + size]
        requests = {row["id"]: task.requests(row) for row in batch}
        results = generate(task, backend, [r for rs in requests.values() for r in rs], settings.max_retries)
        finished, unavailable, failed_rows, gave_up = [], [], 0, None
        for row in batch:
            outcomes = [results[r.key] for r in requests[row["id"]]]
            stuck = [made[-1] for _, made in outcomes if made[-1].retryable]
            if stuck:
                failed = [(row["id"], c.error) for c in stuck if c.calls]  # calls=0: never sent
                unavailable.extend(failed)
                failed_rows += bool(failed)
                gave_up = gave_up or next((c.error for c in stuck if not c.calls), None)
                continue
            parts = [part for part, _ in outcomes]
            record = task.record(row, parts)
            record["usage"] = row_usage([c for _, made in outcomes for c in made], settings.prices)
            record["parse"] = {
                "failures": sum(p.attempts - (p.parsed is not None) for p in parts),
                "retries": sum(p.attempts - 1 for p in parts),
                "unresolved": sum(p.parsed is None for p in parts),
                "truncated": sum(p.truncated for p in parts),
            }
            finished.append(record)
        journal.append(finished)
        done += len(finished)
        advance(len(finished))
        saved = (
            f"{done} finished rows of this session are saved in {journal.path}: "
            "rerun the same command to resume"
        )
        if gave_up:
            unsent = len(rows) - done - failed_rows  # this batch's and every later batch's
            also = ""
            if unavailable:
                row_id, _ = unavailable[0]
                also = f" and {len(unavailable)} requests failed (first: row {id_text(row_id)})"
            raise EviScopeError(f"{plain(str(gave_up), 400)}; {unsent} rows were left unsent{also}; {saved}")
        if unavailable:
            row_id, error = unavailable[0]
            raise EviScopeError(
                f"{len(unavailable)} requests failed after every retry (first: row {id_text(row_id)}: "
                f"{plain(str(error), 300)}); {saved}"
            )
    return done
