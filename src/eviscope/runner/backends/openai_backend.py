"""An OpenAI-compatible chat completions client (vllm serve, Ollama, llama.cpp server, hosted APIs).

Requests of a batch run concurrently, at most ``concurrency`` at a time, each with a timeout. A 429,
a 5xx, a timeout or a dropped connection is retried with exponential backoff (honouring a numeric
``Retry-After``, capped) up to ``max_retries`` times; every HTTP call counts in the row's ``calls``.
Another 4xx is final for that request (kept as an unparsable reply); a request still failing after
its retries is ``retryable``, which stops the run so that a later rerun resumes it. Structured output
is ``response_format: {"type": "json_schema", ...}``.
"""

from __future__ import annotations

import asyncio
import random
import time
from typing import Any

from eviscope.errors import EviScopeError
from eviscope.runner.backends.base import (
    BackendInfo,
    ChatRequest,
    Completion,
    SamplingConfig,
    package_version,
)

RETRY_STATUSES = frozenset({408, 409, 425, 429, 500, 502, 503, 504})


class OpenAIBackend:
    """POST ``{base_url}/chat/completions`` for each request of a batch."""

    def __init__(
        self,
        model: str,
        sampling: SamplingConfig,
        *,
        base_url: str,
        api_key: str | None = None,
        concurrency: int = 8,
        timeout_s: float = 120.0,
        max_retries: int = 5,
        backoff_s: float = 1.0,
        max_backoff_s: float = 60.0,
        structured_output: bool = True,
    ) -> None:
        try:
            import httpx
        except ImportError as err:
            raise EviScopeError(f"the openai backend needs httpx ({err}): `pip install httpx`") from None
        self._httpx = httpx
        self.model = model
        self.sampling = sampling
        self.base_url = base_url.rstrip("/")
        self._headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self.concurrency = concurrency
        self.timeout_s = timeout_s
        self.max_retries = max_retries
        self.backoff_s = backoff_s
        self.max_backoff_s = max_backoff_s
        self.structured_output = structured_output
        self.engine_calls = 0
        self.transport_retries = 0

    def info(self) -> BackendInfo:
        return BackendInfo(
            backend="openai",
            model=self.model,
            structured_output="response_format json_schema" if self.structured_output else "none",
            sampling={
                "temperature": self.sampling.temperature,
                "max_tokens": self.sampling.max_tokens,
                "seed": self.sampling.seed,
            },
            extra={
                "base_url": self.base_url,
                "concurrency": self.concurrency,
                "timeout_s": self.timeout_s,
                "http_max_retries": self.max_retries,
                "backoff_s": self.backoff_s,
                "http_retries_made": self.transport_retries,
                "httpx_version": package_version("httpx"),
            },
        )

    def body(self, request: ChatRequest) -> dict[str, Any]:
        """The JSON body of one chat completion request."""
        body: dict[str, Any] = {
            "model": self.model,
            "messages": request.messages,
            "temperature": self.sampling.temperature,
            "max_tokens": self.sampling.max_tokens,
            "seed": self.sampling.seed,
        }
        if self.structured_output:
            body["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": request.schema.get("title", "output"), "schema": request.schema},
            }
        return body

    def complete(self, requests: list[ChatRequest]) -> list[Completion]:
        return asyncio.run(self._complete_all(requests)) if requests else []

    async def _complete_all(self, requests: list[ChatRequest]) -> list[Completion]:
        httpx = self._httpx
        limits = httpx.Limits(max_connections=self.concurrency, max_keepalive_connections=self.concurrency)
        async with httpx.AsyncClient(
            base_url=self.base_url, headers=self._headers, timeout=self.timeout_s, limits=limits
        ) as client:
            gate = asyncio.Semaphore(self.concurrency)
            return list(await asyncio.gather(*(self._one(client, gate, r) for r in requests)))

    def _delay(self, attempt: int, retry_after: str | None) -> float:
        if retry_after is not None:
            try:
                return min(self.max_backoff_s, max(0.0, float(retry_after)))
            except ValueError:
                pass
        return min(self.max_backoff_s, self.backoff_s * 2**attempt) * random.uniform(0.5, 1.0)

    async def _one(self, client: Any, gate: asyncio.Semaphore, request: ChatRequest) -> Completion:
        httpx = self._httpx
        body = self.body(request)
        async with gate:
            start = time.perf_counter()
            calls = 0
            error = ""
            for attempt in range(self.max_retries + 1):
                if attempt:
                    self.transport_retries += 1
                calls += 1
                self.engine_calls += 1
                retry_after = None
                try:
                    response = await client.post("/chat/completions", json=body)
                except (httpx.TimeoutException, httpx.TransportError) as err:
                    error = f"{type(err).__name__} from {self.base_url}"
                else:
                    if response.status_code == 200:
                        return _completion(response.json(), calls, time.perf_counter() - start)
                    error = f"HTTP {response.status_code} from {self.base_url}: {response.text[:200]}"
                    if response.status_code not in RETRY_STATUSES:
                        return Completion("", calls=calls, latency_s=time.perf_counter() - start, error=error)
                    retry_after = response.headers.get("retry-after")
                if attempt < self.max_retries:
                    await asyncio.sleep(self._delay(attempt, retry_after))
            return Completion(
                "", calls=calls, latency_s=time.perf_counter() - start, error=error, retryable=True
            )


def _completion(payload: dict[str, Any], calls: int, latency_s: float) -> Completion:
    usage = payload.get("usage") or {}
    try:
        text = payload["choices"][0]["message"].get("content") or ""
    except (KeyError, IndexError, TypeError, AttributeError):
        return Completion("", calls=calls, latency_s=latency_s, error="response without choices[0].message")
    return Completion(
        text=text,
        prompt_tokens=int(usage.get("prompt_tokens") or 0),
        completion_tokens=int(usage.get("completion_tokens") or 0),
        latency_s=latency_s,
        calls=calls,
    )
