"""An OpenAI-compatible chat completions client (vllm serve, Ollama, llama.cpp server, hosted APIs).

Requests of a batch run concurrently, at most ``concurrency`` at a time. Each HTTP call has a total
deadline, ``--timeout`` (connecting, sending and every read of the reply: a server that trickles a
byte at a time is cut there), and a reply is read up to ``--max-reply-bytes``; a longer one is that
request's final error (kept as an unparsable reply, not retried). A reply's ``usage`` counts must be
whole numbers between 0 and :data:`~eviscope.core.io.MAX_COUNT` (absent or null: 0); anything else
(``1e400``, ``-1000000``, ``"100"``) is the request's final error too, and the run goes on. Every
body is read by :func:`eviscope.core.untrusted_json.loads`: one nested deeper than its depth limit
is the request's final error, and a lone surrogate in a reply is read as its escaped text.

Secrets are never written: the URL is recorded and printed as :func:`~eviscope.runner.redact.safe_url`
gives it (no user, password or credential-named query value), and the API key and the URL's
credentials are redacted from every reply text and error a server sends back (a server that echoes
the ``Authorization`` header leaks nothing into the journal, the manifest or the screen). A backend
rebuilt from a manifest (``eviscope attribute``) thus gets its credentials from the environment again.

A 429,
a 5xx, a timeout, a dropped or reset connection, or a 200 whose body is not a JSON object is retried
with exponential backoff (honouring ``Retry-After``, in seconds or as an HTTP date, capped at
``max_backoff_s``) up to ``max_retries`` times, so one request makes at most ``max_retries + 1`` HTTP
calls; every HTTP call counts in the row's ``calls``. Another 4xx is final for that request (kept as
an unparsable reply); a request still failing after its retries is ``retryable``, which stops the
run so that a later rerun resumes it. Structured output is ``response_format`` in the form
``--response-format`` names: ``json_schema`` (OpenAI's ``{"type": "json_schema", "json_schema":
{"name": ..., "schema": ...}}``: vLLM, hosted APIs), ``json_object`` (``{"type": "json_object",
"schema": ...}``: llama-cpp-python's server, which answers the other form with HTTP 500) or ``none``
(nothing sent: the prompt and the tolerant parser alone, as with a server that ignores it).

What model answered is asked once per session, ``GET {base_url}/models`` (not retried, not an engine
call): its entry for ``--model`` goes into the manifest's ``model_identity.served``, beside the hash
and licence of ``--model-file``, the file the server serves when it is on this machine.

A circuit breaker stops a run against a server that is down quickly: once ``give_up_after``
requests in a row (in the order they end, across rows and batches) have failed after every retry,
each try with a dropped or refused connection, a timeout, a 408 or a 5xx, and none succeeded in
between, no further HTTP call is made, retries included: HTTP calls in flight finish (a reply that
comes back is kept), requests not yet sent come back ``retryable`` with ``calls=0`` and an error
that says the server looks down, and the run stops so that a rerun resumes. Any other reply (an
answer, a 4xx, a 429 rate limit, a 200 with a bad body) shows the server is alive and resets the
count. A dead server thus costs about ``give_up_after × (max_retries + 1)`` HTTP calls, not one
retry cycle per row.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import time
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from eviscope.core.errors import EviScopeError, brief, id_text, plain
from eviscope.core.io import MiB
from eviscope.core.ranges import AT_LEAST_ONE, FINITE_NON_NEGATIVE, FINITE_POSITIVE, NON_NEGATIVE
from eviscope.core.untrusted_json import TooDeep, UntrustedJSONError, loads
from eviscope.core.usage import COUNT, count_problem
from eviscope.runner import manifest
from eviscope.runner.backends.base import (
    BackendInfo,
    BackendSettings,
    ChatRequest,
    Completion,
    SamplingConfig,
    option,
    package_version,
)
from eviscope.runner.redact import Redactor, safe_url, url_secrets

RETRY_STATUSES = frozenset({408, 409, 425, 429, 500, 502, 503, 504})
DOWN_STATUSES = frozenset({408, 500, 502, 503, 504})
"""Retried statuses that say the server is down or overwhelmed, not alive and pushing back (429)."""
GIVE_UP_AFTER = 8
"""Requests in a row that failed after every retry, server down, before a run stops sending more."""


DEFAULT_BASE_URL = "http://localhost:8000/v1"
DEFAULT_TIMEOUT_S = 120.0
DEFAULT_MAX_REPLY_BYTES = 8 * MiB
"""A chat reply of a few thousand tokens is some kilobytes; 8 MiB leaves room for any real one."""
MODELS_TIMEOUT_S = 10.0
"""The most seconds the one ``GET /models`` of a run waits (never more than ``--timeout``)."""
MODELS_MAX_BYTES = 64 * 1024
"""The most of the ``/models`` reply read; a longer one is not recorded."""
RESPONSE_FORMATS = ("json_schema", "json_object", "none")
"""The forms of ``response_format`` ``--response-format`` offers (see the module docstring)."""


def response_format(form: str, schema: dict[str, Any]) -> dict[str, Any] | None:
    """The ``response_format`` field of a chat completion request that asks for ``schema`` in
    ``form`` (one of :data:`RESPONSE_FORMATS`), None for ``none``; also what the harness tasks send.

    >>> response_format("json_object", {"type": "object"})
    {'type': 'json_object', 'schema': {'type': 'object'}}
    """
    if form == "json_schema":
        return {
            "type": "json_schema",
            "json_schema": {"name": schema.get("title", "output"), "schema": schema},
        }
    if form == "json_object":
        return {"type": "json_object", "schema": schema}
    if form == "none":
        return None
    raise EviScopeError(f"response format {form!r}: not one of {', '.join(RESPONSE_FORMATS)}")


@dataclass(frozen=True)
class Settings(BackendSettings):
    """``--backend openai``: any OpenAI-compatible chat completions server."""

    name = "openai"

    base_url: str | None = option(
        None, f"server URL (default: $OPENAI_BASE_URL, else {DEFAULT_BASE_URL})", metavar="URL"
    )
    api_key_env: str = option("OPENAI_API_KEY", "environment variable holding the API key", metavar="VAR")
    concurrency: int = option(8, "requests in flight", metavar="N", range=AT_LEAST_ONE)
    timeout_s: float = option(
        DEFAULT_TIMEOUT_S,
        "total seconds per HTTP call: connecting, sending and reading the whole reply (a trickling "
        "server is cut there)",
        flag="--timeout",
        metavar="S",
        range=FINITE_POSITIVE,
    )
    max_reply_bytes: int = option(
        DEFAULT_MAX_REPLY_BYTES,
        "the most bytes one reply may hold; a longer one is that request's error (not retried)",
        metavar="N",
        range=AT_LEAST_ONE,
    )
    http_retries: int = option(
        5,
        "retries on 408, 409, 425, 429, 500, 502-504, timeouts and connection errors, with "
        "exponential backoff",
        metavar="N",
        range=NON_NEGATIVE,
    )
    backoff_s: float = option(
        1.0, "first backoff, in seconds", flag="--backoff", metavar="S", range=FINITE_NON_NEGATIVE
    )
    give_up_after: int = option(
        GIVE_UP_AFTER,
        "stop sending once N requests in a row failed every retry with the server down (refused, "
        "timeouts, 5xx; not 429); 0: never",
        flag="--http-give-up-after",
        metavar="N",
        range=NON_NEGATIVE,
    )
    response_format: str = option(
        "json_schema",
        f"how the schema is sent: {' | '.join(RESPONSE_FORMATS)} (llama-cpp-python's server: json_object)",
        metavar="FORM",
    )
    model_file: str | None = option(
        None,
        "the model file (or folder) the server serves, when it is on this machine: its SHA-256 and "
        "licence go into the manifest",
        metavar="PATH",
    )

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.model_file is not None and not Path(self.model_file).exists():  # before a run starts
            raise EviScopeError(f"--model-file {self.model_file}: no such file or folder")
        if self.base_url is None:  # resolved now, so that the manifest records the URL used
            object.__setattr__(self, "base_url", os.environ.get("OPENAI_BASE_URL", DEFAULT_BASE_URL))

    def recorded(self) -> dict[str, Any]:
        """The settings as the manifest records them: the URL without its credentials."""
        return {**self.to_dict(), "base_url": safe_url(str(self.base_url))}

    def create(self, sampling: SamplingConfig) -> OpenAIBackend:
        return OpenAIBackend(
            self.model,
            sampling,
            base_url=str(self.base_url),
            api_key=os.environ.get(self.api_key_env),
            api_key_env=self.api_key_env,
            concurrency=self.concurrency,
            timeout_s=self.timeout_s,
            max_reply_bytes=self.max_reply_bytes,
            max_retries=self.http_retries,
            backoff_s=self.backoff_s,
            structured_output=self.structured_output,
            give_up_after=self.give_up_after,
            response_format=self.response_format,
            model_file=self.model_file,
        )


class OpenAIBackend:
    """POST ``{base_url}/chat/completions`` for each request of a batch."""

    def __init__(
        self,
        model: str,
        sampling: SamplingConfig,
        *,
        base_url: str,
        api_key: str | None = None,
        api_key_env: str = "OPENAI_API_KEY",
        concurrency: int = 8,
        timeout_s: float = DEFAULT_TIMEOUT_S,
        max_reply_bytes: int = DEFAULT_MAX_REPLY_BYTES,
        max_retries: int = 5,
        backoff_s: float = 1.0,
        max_backoff_s: float = 60.0,
        structured_output: bool = True,
        give_up_after: int = GIVE_UP_AFTER,
        response_format: str = "json_schema",
        model_file: str | None = None,
    ) -> None:
        if response_format not in RESPONSE_FORMATS:
            raise EviScopeError(
                f"--response-format {response_format}: not one of {', '.join(RESPONSE_FORMATS)}"
            )
        try:
            import aiohttp
        except ImportError as err:
            raise EviScopeError(f"the openai backend needs aiohttp ({err}): `pip install aiohttp`") from None
        self._aiohttp = aiohttp
        self.model = model
        self.sampling = sampling
        if not (timeout_s > 0 and max_reply_bytes > 0):
            raise EviScopeError(
                f"--timeout and --max-reply-bytes must be positive, got {timeout_s} and {max_reply_bytes}"
            )
        self._url = base_url.rstrip("/")
        self.base_url = safe_url(self._url)
        """The server URL as recorded and printed: without its credentials."""
        parts = urlsplit(self._url)
        if api_key and (parts.username or parts.password):
            raise EviScopeError(
                f"--base-url {self.base_url} carries a user name or password and ${api_key_env} is set "
                "too: give the credentials one way"
            )
        self._endpoint = urlunsplit(parts._replace(path=parts.path.rstrip("/") + "/chat/completions"))
        self._redactor = Redactor([api_key, *url_secrets(self._url)])
        self._headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self.concurrency = concurrency
        self.timeout_s = timeout_s
        self.max_reply_bytes = max_reply_bytes
        self.max_retries = max_retries
        self.backoff_s = backoff_s
        self.max_backoff_s = max_backoff_s
        self.response_format = response_format if structured_output else "none"
        self.give_up_after = give_up_after
        """Requests in a row failed after every retry with the server down (connection errors,
        timeouts, 408 or 5xx on every try) before no more are sent; 0 never gives up early."""
        self.gave_up: str | None = None
        """Why no more requests are sent (the server looks down), once the breaker has tripped."""
        self._down_in_a_row = 0
        self._tripped: asyncio.Event | None = None
        self.engine_calls = 0
        self.transport_retries = 0
        self.most_retries = 0
        """The most HTTP retries made for any one request (at most ``max_retries``)."""
        self.model_file = model_file
        self._identity: dict[str, Any] | None = None

    def info(self) -> BackendInfo:
        if self._identity is None:  # asked once: the model the server lists, the local file's hash
            served = asyncio.run(self._served_model())
            self._identity = manifest.model_identity(
                self.model, local=self.model_file, flag="--model-file", served=served
            )
        return BackendInfo(
            backend="openai",
            model=self.model,
            structured_output=f"response_format {self.response_format}"
            if self.response_format != "none"
            else "none",
            sampling={
                "temperature": self.sampling.temperature,
                "max_tokens": self.sampling.max_tokens,
                "seed": self.sampling.seed,
            },
            extra={
                "base_url": self.base_url,
                "concurrency": self.concurrency,
                "timeout_s": self.timeout_s,
                "max_reply_bytes": self.max_reply_bytes,
                "http_max_retries": self.max_retries,
                "backoff_s": self.backoff_s,
                "http_give_up_after": self.give_up_after,
                "http_retries_made": self.transport_retries,
                "http_most_retries_of_a_request": self.most_retries,
                "aiohttp_version": package_version("aiohttp"),
            },
            model_identity=self._identity,
        )

    async def _served_model(self) -> dict[str, Any]:
        """The server's ``/v1/models`` entry for the model (``id`` equal to ``--model``), secrets
        redacted; else ``{"error": ...}`` saying why there is none. One GET, within
        :data:`MODELS_TIMEOUT_S`, not retried, not counted as an engine call."""
        aiohttp = self._aiohttp
        url = self._endpoint.removesuffix("/chat/completions") + "/models"
        timeout = aiohttp.ClientTimeout(total=min(self.timeout_s, MODELS_TIMEOUT_S))
        try:
            async with (
                aiohttp.ClientSession(headers=self._headers, timeout=timeout, trust_env=True) as client,
                client.get(url) as reply,
            ):
                status, body = reply.status, await reply.content.read(MODELS_MAX_BYTES + 1)
        except (TimeoutError, aiohttp.ClientError) as err:
            return {"error": f"{type(err).__name__} from {self.base_url}/models"}
        if status != 200 or len(body) > MODELS_MAX_BYTES:
            why = f"HTTP {status}" if status != 200 else f"a reply over {MODELS_MAX_BYTES:,} bytes"
            return {"error": f"{why} from {self.base_url}/models"}
        try:
            listed = loads(self._redactor.text(body.decode("utf-8", errors="replace")))["data"]
            entry = next((m for m in listed if isinstance(m, dict) and m.get("id") == self.model), None)
            ids = [str(m.get("id")) for m in listed if isinstance(m, dict)]
        except (ValueError, KeyError, TypeError):
            return {"error": f"{self.base_url}/models: not an OpenAI model list"}
        if entry is None:
            shown = ", ".join(id_text(i, 80) for i in ids[:5]) or "none"
            return {
                "error": f"{self.base_url}/models lists no model {id_text(self.model, 80)} (it lists {shown})"
            }
        return entry

    def body(self, request: ChatRequest) -> dict[str, Any]:
        """The JSON body of one chat completion request."""
        body: dict[str, Any] = {
            "model": self.model,
            "messages": request.messages,
            "temperature": self.sampling.temperature,
            "max_tokens": self.sampling.max_tokens,
            "seed": self.sampling.seed,
        }
        if (field := response_format(self.response_format, request.schema)) is not None:
            body["response_format"] = field
        return body

    def complete(self, requests: list[ChatRequest]) -> list[Completion]:
        return asyncio.run(self._complete_all(requests)) if requests else []

    async def _complete_all(self, requests: list[ChatRequest]) -> list[Completion]:
        aiohttp = self._aiohttp
        # each HTTP call's whole deadline (in _post); proxies from the environment
        timeout = aiohttp.ClientTimeout(total=self.timeout_s)
        connector = aiohttp.TCPConnector(limit=self.concurrency)
        async with aiohttp.ClientSession(
            headers=self._headers, timeout=timeout, connector=connector, trust_env=True
        ) as client:
            gate = asyncio.Semaphore(self.concurrency)
            self._tripped = asyncio.Event()  # an event belongs to this call's event loop
            if self.gave_up is not None:
                self._tripped.set()
            return list(await asyncio.gather(*(self._one(client, gate, r) for r in requests)))

    def _delay(self, attempt: int, retry_after: str | None) -> float:
        """Seconds to wait before retry ``attempt + 1``: ``Retry-After`` when the server sent a
        readable one, else exponential backoff with jitter; at most ``max_backoff_s`` either way."""
        wait = retry_after_seconds(retry_after)
        if wait is None:
            wait = self.backoff_s * 2**attempt * random.uniform(0.5, 1.0)
        return min(self.max_backoff_s, wait)

    async def _post(self, client: Any, url: str, post: dict[str, Any]) -> _Reply:
        """One HTTP call, connecting to the last byte within ``timeout_s``, read up to
        ``max_reply_bytes`` (a longer reply raises :class:`_TooBig` before more is read)."""
        async with asyncio.timeout(self.timeout_s), client.post(url, **post) as reply:
            if (reply.content_length or 0) > self.max_reply_bytes:
                raise _TooBig(f"announces {reply.content_length:,} bytes")
            body = bytearray()
            async for chunk in reply.content.iter_chunked(64 * 1024):
                body += chunk
                if len(body) > self.max_reply_bytes:
                    raise _TooBig(f"went on past {len(body):,} bytes")
            return _Reply(reply.status, reply.headers, bytes(body))

    async def _one(self, client: Any, gate: asyncio.Semaphore, request: ChatRequest) -> Completion:
        completion = await self._ask(client, gate, request)
        scrub = self._redactor.text
        return replace(
            completion, text=scrub(completion.text), error=completion.error and scrub(completion.error)
        )

    async def _ask(self, client: Any, gate: asyncio.Semaphore, request: ChatRequest) -> Completion:
        aiohttp = self._aiohttp
        url = self._endpoint
        data = json.dumps(self.body(request), ensure_ascii=False, separators=(",", ":"), allow_nan=False)
        post = {"data": data.encode(), "headers": {"Content-Type": "application/json"}}
        async with gate:
            start = time.perf_counter()
            calls = 0
            error = reason = ""
            down = True  # every try so far met a dropped connection, a timeout, a 408 or a 5xx
            for attempt in range(self.max_retries + 1):
                if self.gave_up is not None:  # the breaker tripped: send nothing more
                    latency = time.perf_counter() - start
                    error = error or self.gave_up  # calls=0: never sent
                    return Completion("", calls=calls, latency_s=latency, error=error, retryable=True)
                if attempt:
                    self.transport_retries += 1
                    self.most_retries = max(self.most_retries, attempt)
                calls += 1
                self.engine_calls += 1
                retry_after = None
                try:
                    response = await self._post(client, url, post)
                except _TooBig as err:  # the server is alive; the same prompt would be answered alike
                    self._down_in_a_row = 0
                    latency = time.perf_counter() - start
                    error = (
                        f"a reply from {self.base_url} over --max-reply-bytes {self.max_reply_bytes:,} "
                        f"({err}); not read further"
                    )
                    return Completion("", calls=calls, latency_s=latency, error=error)
                except TimeoutError:
                    error = f"no whole reply within --timeout {self.timeout_s:g} s from {self.base_url}"
                    reason = "TimeoutError"
                except aiohttp.ClientError as err:  # refused, reset or dropped
                    error = f"{type(err).__name__} from {self.base_url}"
                    reason = type(err).__name__
                else:
                    if response.status_code == 200:
                        try:
                            payload = _json_object(response)
                        except TooDeep as err:  # final: the same prompt would be answered alike
                            self._down_in_a_row = 0
                            latency = time.perf_counter() - start
                            error = f"HTTP 200 from {self.base_url} with a body {err}; not read"
                            return Completion("", calls=calls, latency_s=latency, error=error)
                        if payload is not None:
                            self._down_in_a_row = 0
                            return _completion(payload, calls, time.perf_counter() - start, self.base_url)
                        error = f"HTTP 200 from {self.base_url} with a body that is not a JSON object: "
                        error += self._snippet(response)
                        down = False
                    else:
                        reason = f"HTTP {response.status_code}: {self._snippet(response, 100)}"
                        error = f"HTTP {response.status_code} from {self.base_url}: {self._snippet(response)}"
                        if response.status_code not in RETRY_STATUSES:
                            self._down_in_a_row = 0
                            latency = time.perf_counter() - start
                            return Completion("", calls=calls, latency_s=latency, error=error)
                        down = down and response.status_code in DOWN_STATUSES
                        retry_after = response.headers.get("retry-after")
                if attempt < self.max_retries:
                    await self._sleep(self._delay(attempt, retry_after))
            if self.gave_up is None:  # a request that ended while the breaker was open counts no more
                self._count_failure(down, reason if down else "")
            return Completion(
                "", calls=calls, latency_s=time.perf_counter() - start, error=error, retryable=True
            )

    def _snippet(self, response: _Reply, limit: int = 200) -> str:
        """The start of a response body, as one printable line (for error messages), its secrets
        redacted before it is cut (a cut secret would leak its start)."""
        return plain(self._redactor.text(response.text), limit)

    async def _sleep(self, seconds: float) -> None:
        """Wait ``seconds`` before a retry, or less if the breaker trips meanwhile."""
        if self._tripped is None:
            await asyncio.sleep(seconds)
            return
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(self._tripped.wait(), seconds)

    def _count_failure(self, down: bool, reason: str) -> None:
        """Count a request that failed after every retry; trip the breaker at ``give_up_after`` in a
        row with the server down. A request that met a live server (a 429, say) resets the count."""
        self._down_in_a_row = self._down_in_a_row + 1 if down else 0
        if self.give_up_after > 0 and self._down_in_a_row >= self.give_up_after:
            self.gave_up = self._redactor.text(
                f"the server at {self.base_url} looks down: {self._down_in_a_row} requests in a row "
                f"failed after every retry (last: {reason})"
            )
            if self._tripped is not None:
                self._tripped.set()


def retry_after_seconds(value: str | None) -> float | None:
    """A ``Retry-After`` header in seconds (never negative), from a number or an HTTP date; None
    when absent or unreadable."""
    if value is None:
        return None
    try:
        seconds = float(value)
    except ValueError:
        try:
            when = parsedate_to_datetime(value)
        except (TypeError, ValueError, IndexError):
            return None
        if when.tzinfo is None:
            when = when.replace(tzinfo=UTC)
        seconds = (when - datetime.now(UTC)).total_seconds()
    return max(0.0, seconds) if seconds == seconds else None  # NaN is unreadable


@dataclass(frozen=True)
class _Reply:
    """One HTTP reply, read whole."""

    status_code: int
    headers: Any
    content: bytes

    @property
    def text(self) -> str:
        return self.content.decode("utf-8", errors="replace")


def _json_object(response: _Reply) -> dict[str, Any] | None:
    """The body as a JSON object (read by :func:`eviscope.core.untrusted_json.loads`), or None when
    it is not one (a truncated or garbled body); one nested past the depth limit raises
    :class:`~eviscope.core.untrusted_json.TooDeep`."""
    try:
        payload = loads(response.content)
    except TooDeep:
        raise
    except UntrustedJSONError:  # not JSON, or not UTF-8 text
        return None
    return payload if isinstance(payload, dict) else None


class _TooBig(Exception):
    """A reply over ``max_reply_bytes``."""


def _tokens(usage: dict[str, Any], key: str) -> int:
    """A usage count of a reply (:mod:`eviscope.core.usage`): absent or null is 0; a whole number in
    [0, MAX_COUNT] is kept (``100.0`` too); anything else raises ValueError naming the field and the value."""
    given = usage.get(key)
    if given is None:
        return 0
    problem = count_problem(given)
    if problem:
        raise ValueError(f"usage.{key} is {brief(given)}, {problem}")
    return COUNT.validate_python(given)


def _completion(payload: dict[str, Any], calls: int, latency_s: float, server: str) -> Completion:
    usage = payload.get("usage")
    try:
        choice = payload["choices"][0]
        text = choice["message"].get("content") or ""
    except (KeyError, IndexError, TypeError, AttributeError):
        return Completion("", calls=calls, latency_s=latency_s, error="response without choices[0].message")
    try:
        if usage is not None and not isinstance(usage, dict):
            raise ValueError(f"usage is {brief(usage)}, not an object")
        counts = {key: _tokens(usage or {}, key) for key in ("prompt_tokens", "completion_tokens")}
    except ValueError as err:  # final: the same server would count the same way
        return Completion("", calls=calls, latency_s=latency_s, error=f"a reply from {server} whose {err}")
    return Completion(
        truncated=choice.get("finish_reason") == "length",
        text=text if isinstance(text, str) else json.dumps(text),
        latency_s=latency_s,
        calls=calls,
        **counts,
    )
