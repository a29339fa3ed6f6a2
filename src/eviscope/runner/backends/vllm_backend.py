"""vLLM offline inference: the whole batch in one ``LLM.chat`` call (continuous batching and prefix
caching do the rest), structured output with ``StructuredOutputsParams(json=schema)``.

vLLM is the optional ``gpu`` extra and is imported here, lazily, only when this backend is built.
Data parallelism is a pool of Ray worker actors, each holding one of these backends on its own
``tensor_parallel_size`` GPUs (``eviscope run --ray [ADDRESS] --workers N``, :mod:`eviscope.runner.ray_pool`).
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any

from eviscope.core.errors import EviScopeError
from eviscope.core.ranges import AT_LEAST_ONE
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


@dataclass(frozen=True)
class Settings(BackendSettings):
    """``--backend vllm``: offline vLLM on this machine's GPUs."""

    name = "vllm"

    dtype: str | None = option("auto", "weights dtype (auto, bfloat16, float16…)")
    tensor_parallel_size: int = option(1, "GPUs per model", metavar="N", range=AT_LEAST_ONE)
    max_model_len: int | None = option(
        None, "context length (default: the model's)", metavar="N", range=AT_LEAST_ONE
    )

    def create(self, sampling: SamplingConfig) -> VLLMBackend:
        return VLLMBackend(
            self.model,
            sampling,
            revision=self.revision,
            dtype=self.dtype or "auto",
            tensor_parallel_size=self.tensor_parallel_size,
            max_model_len=self.max_model_len,
            structured_output=self.structured_output,
        )

    def device_group_size(self) -> int:
        return self.tensor_parallel_size


class VLLMBackend:
    """``LLM(model, revision, dtype, tensor_parallel_size, seed, enable_prefix_caching=True)``."""

    def __init__(
        self,
        model: str,
        sampling: SamplingConfig,
        *,
        revision: str | None = None,
        dtype: str = "auto",
        tensor_parallel_size: int = 1,
        max_model_len: int | None = None,
        structured_output: bool = True,
    ) -> None:
        try:
            from vllm import LLM
        except ImportError as err:
            raise EviScopeError(
                f"the vllm backend needs vLLM ({err}); install it with `pip install 'eviscope[gpu]'` "
                "on a machine with a GPU, or use --backend openai or transformers"
            ) from None
        self.structured_output = structured_output
        self.engine_calls = 0
        self._info = BackendInfo(
            backend="vllm",
            model=model,
            revision=revision,
            dtype=dtype,
            tensor_parallel_size=tensor_parallel_size,
            structured_output="vllm StructuredOutputsParams(json=...)" if structured_output else "none",
            extra={"vllm_version": package_version("vllm"), "max_model_len": max_model_len},
            model_identity=manifest.model_identity(model, local=model),
        )
        kwargs: dict[str, Any] = {
            "model": model,
            "revision": revision,
            "dtype": dtype,
            "tensor_parallel_size": tensor_parallel_size,
            "seed": sampling.seed,
            "enable_prefix_caching": True,
            # "auto" reads the model's generation_config.json; "vllm" uses the engine's defaults.
            "generation_config": "auto" if sampling.generation_config == "model" else "vllm",
        }
        if max_model_len is not None:
            kwargs["max_model_len"] = max_model_len
        self._llm = LLM(**kwargs)
        self._kwargs: dict[str, Any] = {
            "temperature": sampling.temperature,
            "max_tokens": sampling.max_tokens,
            "seed": sampling.seed,
        }
        if sampling.generation_config == "model":
            # Under greedy decoding only the penalties of the model's defaults still matter.
            defaults = self._llm.get_default_sampling_params()
            for name in ("repetition_penalty", "presence_penalty", "frequency_penalty"):
                self._kwargs[name] = getattr(defaults, name)
        self._info.sampling = dict(self._kwargs)
        self._params_cache: dict[str, Any] = {}

    def info(self) -> BackendInfo:
        return self._info

    def sampling_params(self, schema: dict[str, Any]) -> Any:
        """Greedy ``SamplingParams`` for one schema (built once per distinct schema)."""
        key = json.dumps(schema, sort_keys=True)
        if key in self._params_cache:
            return self._params_cache[key]
        from vllm import SamplingParams
        from vllm.sampling_params import StructuredOutputsParams

        kwargs = dict(self._kwargs)
        if self.structured_output:
            kwargs["structured_outputs"] = StructuredOutputsParams(json=schema)
        params = self._params_cache[key] = SamplingParams(**kwargs)
        return params

    def complete(self, requests: list[ChatRequest]) -> list[Completion]:
        if not requests:
            return []
        params = [self.sampling_params(r.schema) for r in requests]
        same = all(p is params[0] for p in params)
        start = time.perf_counter()
        outputs = self._llm.chat(
            [r.messages for r in requests], sampling_params=params[0] if same else params, use_tqdm=True
        )
        self.engine_calls += 1
        share = (time.perf_counter() - start) / len(requests)
        return [
            Completion(
                text=out.outputs[0].text,
                prompt_tokens=len(out.prompt_token_ids or []),
                completion_tokens=len(out.outputs[0].token_ids),
                latency_s=share,
                truncated=getattr(out.outputs[0], "finish_reason", None) == "length",
            )
            for out in outputs
        ]
