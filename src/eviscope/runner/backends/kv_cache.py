"""Key/value caches for greedy batches on CPU (imports torch and transformers).

Two costs of transformers' defaults grow with a batch, and both are avoidable without changing a
logit that matters:

- **Padding in the prefill.** A left-padded batch computes its padding tokens, and its attention
  mask keeps the prefill off SDPA's causal kernel, which skips the upper triangle.
  :func:`prefilled_cache` runs each prompt alone instead (no padding, no mask) and writes its keys
  and values, right-aligned, into its row of the batch's cache; ``generate`` then decodes the batch
  from the last prompt token on. On SmolLM2-135M (float32, 2 CPU threads, 16 ``eviscope-v1.1`` rows,
  groups of at most 4096 padded tokens) the prefill took 24 s instead of 34–38 s, with the same
  16 replies (``docs/benchmarks.md``).
- **Copying the cache every step.** ``DynamicCache`` appends each decoded token with ``torch.cat``,
  copying the whole cache: at 8 rows of 800–1100 tokens, 40–50% of a decode step (189 → 116 ms and
  263 → 136 ms a step without it). :class:`ReservedLayer` reserves one block per layer for the prompt
  and the new tokens, writes each token into it and gives attention a view of the filled part: the
  same values in the same shapes, so the same logits, bit for bit.
"""

from __future__ import annotations

import functools
import inspect
from typing import Any

import torch
from transformers.cache_utils import Cache, DynamicCache, DynamicLayer


class ReservedLayer(DynamicLayer):
    """A full-attention layer whose keys and values are views of blocks reserved for ``reserve`` more
    tokens than the cache holds when they are (re)made: at prefill, when full, or after transformers
    replaced ``keys`` (beam reordering, batch selection), whose result is then copied in."""

    def __init__(self, reserve: int) -> None:
        super().__init__()
        self.reserve = reserve
        self._blocks: tuple[torch.Tensor, torch.Tensor] | None = None

    def update(
        self, key_states: torch.Tensor, value_states: torch.Tensor, *args: Any, **kwargs: Any
    ) -> tuple[torch.Tensor, torch.Tensor]:
        if not self.is_initialized:
            self.lazy_initialization(key_states, value_states)
        held = self.get_seq_length()
        needed = held + key_states.shape[-2]
        blocks = self._blocks
        if (
            not held
            or blocks is None
            or self.keys.data_ptr() != blocks[0].data_ptr()
            or needed > blocks[0].shape[-2]
        ):
            blocks = self._reserved(key_states, value_states, held, needed + self.reserve)
        keys, values = blocks
        keys[:, :, held:needed] = key_states
        values[:, :, held:needed] = value_states
        self._hold(blocks, needed)
        return self.keys, self.values

    def _reserved(
        self, key_states: torch.Tensor, value_states: torch.Tensor, held: int, capacity: int
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """New blocks of ``capacity`` tokens holding the cache's first ``held``."""
        batch, heads, _, key_dim = key_states.shape
        keys = key_states.new_empty((batch, heads, capacity, key_dim))
        values = value_states.new_empty((batch, heads, capacity, value_states.shape[-1]))
        if held:
            keys[:, :, :held] = self.keys
            values[:, :, :held] = self.values
        return keys, values

    def _hold(self, blocks: tuple[torch.Tensor, torch.Tensor], length: int) -> None:
        """Hold the first ``length`` tokens of ``blocks``."""
        self._blocks = blocks
        self.keys, self.values = blocks[0][:, :, :length], blocks[1][:, :, :length]


class _RowPrefill(DynamicLayer):
    """One row's prompt, prefilled alone: its keys and values go straight into row ``row`` of the batch
    layer's blocks (made zero, ``rows`` by ``capacity`` tokens, on the first row's update), from token
    ``start`` on, so that every row ends where the longest prompt does."""

    def __init__(self, batch: ReservedLayer, row: int, rows: int, start: int, capacity: int) -> None:
        super().__init__()
        self.batch, self.row, self.rows, self.start, self.capacity = batch, row, rows, start, capacity

    def update(
        self, key_states: torch.Tensor, value_states: torch.Tensor, *args: Any, **kwargs: Any
    ) -> tuple[torch.Tensor, torch.Tensor]:
        if not self.is_initialized:
            self.lazy_initialization(key_states, value_states)
        if self.batch._blocks is None:
            _, heads, _, key_dim = key_states.shape
            self.batch._blocks = (
                key_states.new_zeros((self.rows, heads, self.capacity, key_dim)),
                value_states.new_zeros((self.rows, heads, self.capacity, value_states.shape[-1])),
            )
        keys, values = self.batch._blocks
        held, end = self.get_seq_length(), self.start + self.get_seq_length() + key_states.shape[-2]
        self.keys = keys[self.row : self.row + 1, :, self.start : end]
        self.values = values[self.row : self.row + 1, :, self.start : end]
        self.keys[:, :, held:] = key_states
        self.values[:, :, held:] = value_states
        return self.keys, self.values


def cache_argument(model: Any) -> str:
    """The name ``model``'s forward and ``generate`` take a cache under (``past_key_values`` before
    transformers renamed it ``cache``)."""
    return "cache" if "cache" in inspect.signature(type(model).forward).parameters else "past_key_values"


PREFILLED_BY_ROW, RESERVED, TRANSFORMERS = "prefilled by row, reserved", "reserved", "transformers"
"""The kinds of cache :func:`generation_cache` makes (the manifest's ``kv_cache``)."""


def cache_kind(model: Any, generation_config: Any) -> str:
    """The kind of cache :func:`generation_cache` makes for ``model``: :data:`PREFILLED_BY_ROW` when
    every layer is plain full attention; :data:`RESERVED` when some are not (those stay as
    transformers makes them); :data:`TRANSFORMERS` (``generate`` makes it) for a model that brings
    its own kind of cache, or a generation config that names one."""
    if not (
        getattr(model, "_supports_default_dynamic_cache", lambda: False)()
        and getattr(generation_config, "cache_implementation", None) is None
    ):
        return TRANSFORMERS
    layers = DynamicCache(config=model.config).layers
    return PREFILLED_BY_ROW if layers and all(type(x) is DynamicLayer for x in layers) else RESERVED


def generation_cache(model: Any, kind: str, prompts: list[list[int]], reserve: int) -> dict[str, Cache]:
    """``generate``'s cache argument (none for :data:`TRANSFORMERS`) for ``prompts`` left-padded into
    one batch, with room for ``reserve`` new tokens; a one-token prompt is not prefilled by row."""
    if kind == TRANSFORMERS:
        return {}
    if kind == RESERVED or min(map(len, prompts)) < 2:
        return {cache_argument(model): reserved_cache(model, reserve)}
    return {cache_argument(model): prefilled_cache(model, prompts, reserve)}


def reserved_cache(model: Any, reserve: int) -> DynamicCache:
    """``model``'s default cache with each plain full-attention layer a :class:`ReservedLayer`
    (sliding-window and other layers stay as transformers makes them)."""
    cache = DynamicCache(config=model.config)
    cache.layers = [
        ReservedLayer(reserve) if type(layer) is DynamicLayer else layer for layer in cache.layers
    ]
    if cache.layer_class_to_replicate is DynamicLayer:
        cache.layer_class_to_replicate = functools.partial(ReservedLayer, reserve)
    return cache


def prefilled_cache(model: Any, prompts: list[list[int]], reserve: int) -> DynamicCache:
    """A cache of :class:`ReservedLayer` holding every prompt but its last token, each prefilled alone
    and right-aligned (zeros before it, which the batch's attention mask hides), with room for
    ``reserve`` more tokens; for a model whose layers are all plain full attention (:func:`cache_kind`).
    ``generate`` on the left-padded prompts with this cache runs their last tokens as one batch."""
    cache = reserved_cache(model, reserve)
    end = max(map(len, prompts)) - 1
    argument = cache_argument(model)
    device = next(model.parameters()).device
    for row, prompt in enumerate(prompts):
        layers = [
            _RowPrefill(layer, row, len(prompts), end - len(prompt) + 1, end + reserve)
            for layer in cache.layers
        ]
        tokens = torch.tensor([prompt[:-1]], device=device)
        model(input_ids=tokens, use_cache=True, logits_to_keep=1, **{argument: Cache(layers=layers)})
    for layer in cache.layers:
        layer.lazy_initialization(*layer._blocks)
        layer._hold(layer._blocks, end)
    return cache
