"""transformers on CPU for small models (a hub id, a model folder, or a GGUF file or a folder holding
one, dequantized once into a cached float32 folder keyed by the file's SHA-256, which later runs and resumes
load): the whole batch in one backend call, generated greedily in length-sorted groups (a group holds at
most ``max_batch_tokens`` padded prompt tokens). Each prompt of a group is prefilled alone, without
padding, into the group's key/value cache, which is reserved for the prompts and then 64 new tokens at
a time and written in place; the group then decodes as one left-padded batch (:mod:`eviscope.runner.backends.kv_cache`; the
manifest's ``kv_cache``).

Structured output uses xgrammar's logits processor (one grammar matcher per row, JSON without free
white space) when xgrammar is installed; without it the tolerant parser and bounded retries do the
work, and the manifest says so. A tokenizer without a chat template gets a plain
``role: content`` transcript, also recorded in the manifest.

Creating the backend fixes glibc's mmap threshold at 4 MiB for the rest of the process
(:func:`eviscope.core.memory.map_large_blocks`): a batch's freed activations are unmapped instead of
staying in the heap, which holds the peak RSS to the weights, the key/value cache and one layer's work,
at the price of page faults on every fresh large block (the manifest's ``large_blocks_mapped``). So that
those faults come 2 MiB at a time, not 4 KiB, torch is asked, before it is first imported, to back its
large blocks with transparent huge pages (:func:`eviscope.core.memory.huge_pages_for_torch`; the
manifest's ``huge_pages``): on SmolLM2-135M, 16 rows without schemas, 7.4 M page faults became 1.1 M
and system CPU 20.4 s became 6.8 s (docs/benchmarks.md).
"""

from __future__ import annotations

import copy
import dataclasses
import json
import time
from dataclasses import dataclass
from typing import Any

from eviscope.core.errors import EviScopeError
from eviscope.core.memory import huge_pages_for_torch, map_large_blocks
from eviscope.core.ranges import AT_LEAST_ONE
from eviscope.runner import manifest, model_files
from eviscope.runner.backends.base import (
    BackendInfo,
    BackendSettings,
    ChatRequest,
    Completion,
    Message,
    SamplingConfig,
    option,
    package_version,
)

FALLBACK_CHAT_FORMAT = "role: content per turn, then 'assistant:'"


def grammar_compiler(tokenizer: Any, vocab_size: int) -> Any:
    """xgrammar's compiler for a model's tokenizer and (padded) vocabulary; None without xgrammar."""
    try:
        import xgrammar
    except ImportError:
        return None
    return xgrammar.GrammarCompiler(xgrammar.TokenizerInfo.from_huggingface(tokenizer, vocab_size=vocab_size))


def schema_grammar(compiler: Any, schema: dict[str, Any]) -> Any:
    """The compiled grammar of a JSON schema: JSON without free white space (also the lm-eval tasks')."""
    return compiler.compile_json_schema(json.dumps(schema, sort_keys=True), any_whitespace=False)


def _fallback_prompt(messages: list[Message]) -> str:
    return "".join(f"{m['role']}: {m['content']}\n\n" for m in messages) + "assistant:"


MAX_BATCH_TOKENS = 6144
"""Padded prompt tokens per ``generate`` group by default. It bounds a group's key/value cache (its
prompts; room for up to 64 new tokens a row comes on top), most of a run's memory beyond the weights.
On SmolLM2-135M with each row's schema (16 ``eviscope-v1.1`` rows, 64 new tokens, batch size 8, 2 cores;
``/usr/bin/time``) prompts prefilled by row peak at 1383, 1442 and 1566 MiB with 4096, 6144 and 8192
(lm-eval: 1364 MiB) in 67.6, 59.5 and 52.1 s: 6144 is the largest within 1.1x lm-eval's memory, and
about what 4096 took when the prefill was batched (1429 MiB, VmHWM read by a throwaway wrapper; 1478 in
``benchmarks/peer.py``)."""


@dataclass(frozen=True)
class Settings(BackendSettings):
    """``--backend transformers``: a small model with transformers, on CPU by default."""

    name = "transformers"

    dtype: str | None = option("float32", "torch dtype of the weights (float32, bfloat16…)")
    device: str = option("cpu", "torch device")
    max_batch_tokens: int = option(
        MAX_BATCH_TOKENS, "padded prompt tokens per generate group", metavar="N", range=AT_LEAST_ONE
    )

    def create(self, sampling: SamplingConfig) -> TransformersBackend:
        return TransformersBackend(
            self.model,
            sampling,
            revision=self.revision,
            dtype=self.dtype or "float32",
            device=self.device,
            structured_output=self.structured_output,
            max_batch_tokens=self.max_batch_tokens,
        )


class TransformersBackend:
    """``AutoModelForCausalLM`` + ``AutoTokenizer`` from a hub id or a local folder, on one device."""

    def __init__(
        self,
        model: str,
        sampling: SamplingConfig,
        *,
        revision: str | None = None,
        dtype: str = "float32",
        device: str = "cpu",
        structured_output: bool = True,
        max_batch_tokens: int = MAX_BATCH_TOKENS,
    ) -> None:
        huge_pages = huge_pages_for_torch()  # before torch is imported: it reads the switch once
        try:
            import torch
            import transformers
        except ImportError as err:
            raise EviScopeError(
                f"the transformers backend needs torch and transformers ({err}); "
                "install them with `pip install 'eviscope[cpu]'`"
            ) from None
        from eviscope.runner.backends import kv_cache

        self._kv_cache = kv_cache
        self.sampling = sampling
        self.engine_calls = 0
        self.generate_calls = 0
        self.max_batch_tokens = max_batch_tokens
        self._torch = torch
        self.device = device
        # a batch's activations, freed layer by layer, would otherwise stay in glibc's heap (see
        # eviscope.core.memory): the run's peak RSS is then the weights, the cache and one layer's work
        large_blocks_mapped = map_large_blocks()
        source = model_files.model_source(model)
        load_from, converted, started = source.name_or_path, None, time.perf_counter()
        try:
            if source.file is not None:
                folder, now = model_files.converted_folder(source.file)
                load_from, converted = str(folder), {"folder": str(folder), "converted_now": now}
            self.tokenizer = transformers.AutoTokenizer.from_pretrained(load_from, revision=revision)
            self.model = transformers.AutoModelForCausalLM.from_pretrained(
                load_from, revision=revision, dtype=getattr(torch, dtype)
            )
        except (OSError, ValueError, ImportError) as err:
            raise EviScopeError(f"cannot load model {model}: {str(err).splitlines()[0]}") from None
        load_s = round(time.perf_counter() - started, 3)
        self.model.to(device).eval()
        self.tokenizer.padding_side = "left"
        if self.tokenizer.pad_token_id is None:
            self.tokenizer.pad_token = self.tokenizer.eos_token
        self.chat_template = "tokenizer" if self.tokenizer.chat_template else FALLBACK_CHAT_FORMAT
        self.generation_config = self._generation_config()
        self._cache_kind = kv_cache.cache_kind(self.model, self.generation_config)
        self._grammar = (
            grammar_compiler(self.tokenizer, self.model.config.vocab_size) if structured_output else None
        )
        self._compiled: dict[str, Any] = {}
        torch.manual_seed(sampling.seed)
        self._info = BackendInfo(
            backend="transformers",
            model=model,
            revision=revision or getattr(self.model.config, "_commit_hash", None),
            dtype=dtype,
            structured_output="xgrammar logits processor" if self._grammar else "none (tolerant parser)",
            sampling={
                "temperature": sampling.temperature,
                "do_sample": False,
                "max_new_tokens": sampling.max_tokens,
                "seed": sampling.seed,
                **{
                    k: getattr(self.generation_config, k)
                    for k in ("repetition_penalty", "no_repeat_ngram_size")
                },
            },
            extra={
                "device": device,
                "gguf_converted": converted,
                "load_s": load_s,
                "max_batch_tokens": max_batch_tokens,
                "large_blocks_mapped": large_blocks_mapped,
                "huge_pages": huge_pages,
                "kv_cache": self._cache_kind,
                "chat_template": self.chat_template,
                "torch_version": torch.__version__,
                "transformers_version": transformers.__version__,
                "xgrammar_version": package_version("xgrammar") if self._grammar else None,
            },
            model_identity=manifest.model_identity(model, local=model),
        )

    def _generation_config(self) -> Any:
        from transformers import GenerationConfig

        if self.sampling.generation_config == "model":
            config = copy.deepcopy(self.model.generation_config)
        else:
            config = GenerationConfig()
        config.do_sample = False
        config.temperature = None
        config.top_p = None
        config.top_k = None
        config.num_beams = 1
        config.max_new_tokens = self.sampling.max_tokens
        config.pad_token_id = self.tokenizer.pad_token_id
        config.eos_token_id = self.tokenizer.eos_token_id
        return config

    def info(self) -> BackendInfo:
        self._info.extra["generate_calls"] = self.generate_calls
        return self._info

    def _prompt(self, messages: list[Message]) -> str:
        if self.chat_template == "tokenizer":
            return self.tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
        return _fallback_prompt(messages)

    def _logits_processors(self, requests: list[ChatRequest]) -> list[Any]:
        if self._grammar is None:
            return []
        import xgrammar.contrib.hf

        grammars = []
        for request in requests:
            key = json.dumps(request.schema, sort_keys=True)
            if key not in self._compiled:
                self._compiled[key] = schema_grammar(self._grammar, request.schema)
            grammars.append(self._compiled[key])
        return [xgrammar.contrib.hf.LogitsProcessor(grammars)]

    def complete(self, requests: list[ChatRequest]) -> list[Completion]:
        """All requests in one backend call: sorted by prompt length and generated in groups of at most
        ``max_batch_tokens`` padded prompt tokens, which bound a group's key/value cache."""
        if not requests:
            return []
        start = time.perf_counter()
        prompts = [self._prompt(r.messages) for r in requests]
        ids = self.tokenizer(prompts, add_special_tokens=False)["input_ids"]
        order = sorted(range(len(requests)), key=lambda i: len(ids[i]))
        results: dict[int, tuple[str, int, int]] = {}
        group: list[int] = []
        for i in order:
            if group and len(ids[i]) * (len(group) + 1) > self.max_batch_tokens:
                results.update(self._generate(group, ids, requests))
                group = []
            group.append(i)
        results.update(self._generate(group, ids, requests))
        self.engine_calls += 1
        share = (time.perf_counter() - start) / len(requests)
        return [dataclasses.replace(results[i], latency_s=share) for i in range(len(requests))]

    def _generate(
        self, group: list[int], ids: list[list[int]], requests: list[ChatRequest]
    ) -> dict[int, Completion]:
        """One left-padded greedy ``generate`` over ``group``: index → its completion, latency not
        yet shared out; ``truncated`` when no stop token came within ``max_tokens``."""
        torch = self._torch
        prompts = [ids[i] for i in group]
        batch = self.tokenizer.pad({"input_ids": prompts}, return_tensors="pt").to(self.device)
        with torch.inference_mode():
            cache = self._kv_cache.generation_cache(self.model, self._cache_kind, prompts)
            output = self.model.generate(
                **batch,
                **cache,
                generation_config=self.generation_config,
                logits_processor=self._logits_processors([requests[i] for i in group]),
            )
        self.generate_calls += 1
        new_tokens = output[:, batch["input_ids"].shape[1] :].tolist()
        stop = {self.tokenizer.eos_token_id, self.tokenizer.pad_token_id}
        results = {}
        for i, tokens in zip(group, new_tokens, strict=True):
            ends = [k for k, token in enumerate(tokens) if token in stop]
            kept = tokens[: ends[0]] if ends else tokens
            text = self.tokenizer.decode(kept, skip_special_tokens=True)
            # the stop token, when one was generated, is a completion token too
            cut = not ends and len(tokens) >= self.sampling.max_tokens
            results[i] = Completion(text, len(ids[i]), len(kept) + (1 if ends else 0), truncated=cut)
        return results
