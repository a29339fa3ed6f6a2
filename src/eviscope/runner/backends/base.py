"""The one small interface every backend implements: a whole batch of chat requests in, completions out."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from importlib import metadata
from typing import Any, ClassVar, Literal, Protocol, Self

from eviscope.core.errors import EviScopeError
from eviscope.core.ranges import Range

Message = dict[str, str]
"""A chat turn: ``{"role": "user" | "assistant" | "system", "content": ...}``."""


@dataclass(frozen=True)
class SamplingConfig:
    """What every backend decodes with: greedy (temperature 0), bounded length, a fixed seed.

    ``generation_config`` says whose defaults fill in the rest: ``engine`` (the engine's own
    defaults; reproducible across models) or ``model`` (the model's ``generation_config.json``,
    e.g. its repetition penalty).
    """

    max_tokens: int = 512
    seed: int = 0
    temperature: float = 0.0
    generation_config: Literal["engine", "model"] = "engine"


@dataclass(frozen=True)
class ChatRequest:
    """One chat completion to make; ``key`` is unique within a batch."""

    key: str
    messages: list[Message]
    schema: dict[str, Any]


@dataclass(frozen=True)
class Completion:
    """What a backend returned for one request.

    ``latency_s`` is this request's share of the engine time (a batched call's wall time divided by
    its size; an HTTP request's own time). ``calls`` counts every engine or HTTP call made for it,
    retries included. ``error`` is set when no text came back; ``retryable`` errors (a server that
    stayed unavailable) stop the run so a rerun can resume, others count as an unparsable reply.
    ``truncated``: the reply was cut by ``max_tokens`` (asked again, at temperature 0, it would be
    cut the same way, so it is not re-asked).
    """

    text: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency_s: float = 0.0
    calls: int = 1
    error: str | None = None
    retryable: bool = False
    truncated: bool = False


@dataclass
class BackendInfo:
    """What the manifest records about a backend."""

    backend: str
    model: str
    revision: str | None = None
    dtype: str | None = None
    tensor_parallel_size: int | None = None
    structured_output: str = "none"
    sampling: dict[str, Any] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)
    model_identity: dict[str, Any] = field(default_factory=dict)
    """Which weights answered: :func:`eviscope.runner.manifest.model_identity` (empty: not known)."""


class Backend(Protocol):
    """A model behind one batched call. ``engine_calls`` counts batched engine (or HTTP) calls."""

    engine_calls: int

    def info(self) -> BackendInfo: ...

    def complete(self, requests: list[ChatRequest]) -> list[Completion]:
        """One completion per request, in order."""
        ...


def option(
    default: Any,
    help: str,
    *,
    flag: str | None = None,
    metavar: str | None = None,
    range: Range | None = None,
) -> Any:
    """A field of a backend's settings that ``eviscope run`` offers as ``--flag`` (the field name
    with dashes unless ``flag`` says otherwise), with ``help`` and the field's default. A numeric
    field declares its ``range``: the command line refuses a value outside it as it parses it, and
    settings built from elsewhere (a manifest) are checked against it."""
    return field(default=default, metadata={"help": help, "flag": flag, "metavar": metavar, "range": range})


@dataclass(frozen=True)
class BackendSettings:
    """What a backend is built from. Each backend module subclasses it as ``Settings``: its fields,
    declared with :func:`option`, become the options of ``eviscope run`` and are recorded in the
    manifest (``backend_settings``), from which :mod:`eviscope.suites.eviscope.run_attribution` rebuilds
    the backend."""

    name: ClassVar[str]
    model: str
    revision: str | None = option(None, "model revision (branch, tag or commit)")
    dtype: str | None = option(None, "weights dtype")
    structured_output: bool = option(
        True,
        "do not constrain decoding to the task's JSON schema (the tolerant parser still reads it)",
        flag="--no-structured-output",
    )

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            limits = f.metadata.get("range")
            problem = None if value is None or limits is None else limits.problem(value)
            if problem:
                flag = f.metadata.get("flag") or "--" + f.name.replace("_", "-")
                raise EviScopeError(f"{self.name} backend setting {flag}: {problem}")

    def create(self, sampling: SamplingConfig) -> Backend:
        """The backend these settings describe (its engine imported here, not before)."""
        raise NotImplementedError

    def device_group_size(self) -> int:
        """GPUs one Ray worker of this backend needs (``--gpus-per-worker`` default; 0: none)."""
        return 0

    @classmethod
    def from_options(cls, options: dict[str, Any]) -> Self:
        """Settings from named options (a command line's or a manifest's); None keeps a default.

        Unknown names are ignored, so one command line can carry every backend's options."""
        names = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in options.items() if k in names and v is not None})

    def to_dict(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}

    def recorded(self) -> dict[str, Any]:
        """The settings as the manifest records them (a backend leaves out any secret they hold)."""
        return self.to_dict()


def package_version(package: str) -> str | None:
    """The installed version of ``package``, or None, for the manifest."""
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return None
