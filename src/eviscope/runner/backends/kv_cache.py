"""Key/value caches for greedy batches on CPU (imports torch and transformers).

Two costs of transformers' defaults grow with a batch, and both are avoidable without changing a
logit that matters:

- **Padding in the prefill.** A left-padded batch computes its padding tokens, and its attention
  mask keeps the prefill off SDPA's causal kernel, which skips the upper triangle.
  :func:`prefilled_cache` runs each prompt alone instead (no padding, no mask) and writes its keys
  and values, right-aligned, into its row of the batch's cache; ``generate`` then decodes the batch
  from the last prompt token on. On SmolLM2-135M (float32, 2 CPU threads, 16 ``eviscope-v1.1`` rows
  in groups of at most 4096 padded tokens, 64 new tokens) the prefill took 24.8 s instead of 34–38 s,
  with the same 16 replies (``docs/benchmarks.md``).
- **Copying the cache every step.** ``DynamicCache`` appends each decoded token with ``torch.cat``,
  copying the whole cache: at 8 rows of 800–1100 tokens, 40–50% of a decode step (189 → 116 ms and
  263 → 136 ms a step without it). :class:`ReservedLayer` reserves room for :data:`RESERVE` more tokens
  at a time, writes each token into it and gives attention a view of the filled part: the same values
  in the same shapes, which on CPU's SDPA kernels gives the same logits, bit for bit
  (``tests/test_kv_cache.py``).

Both rely on transformers' cache layers (``transformers.cache_utils``), which :func:`cache_kind`
checks before they are used: anything else gets transformers' own cache.
"""

from __future__ import annotations

import inspect
from typing import Any

import torch
from transformers.cache_utils import Cache, DynamicCache, DynamicLayer

RESERVE = 64
"""New tokens a :class:`ReservedLayer` makes room for at a time: a row's unused room is at most this,
and a reply of ``n`` tokens copies the cache ``n / RESERVE`` times, where ``torch.cat`` copies it ``n``."""


class ReservedLayer(DynamicLayer):
    """A full-attention layer whose keys and values are views of blocks with room for ``reserve`` more
    tokens than the cache holds when they are (re)made: at prefill, when full, or after transformers
    replaced ``keys`` (beam reordering, batch selection), whose result is then copied in."""

    def __init__(self, reserve: int = RESERVE) -> None:
        super().__init__()
        self.reserve = reserve
        self._blocks: tuple[torch.Tensor, torch.Tensor] | None = None

    def reset(self) -> None:
        self._blocks = None
        super().reset()

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
        held = self.get_seq_length()
        end = self.start + held + key_states.shape[-2]
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
    """The kind of cache :func:`generation_cache` makes for ``model`` under ``generation_config``:

    - :data:`TRANSFORMERS` (``generate`` makes its own) for a model that brings its own kind of cache,
      whose generation config (or ``generation_config``) names one, or with no plain full-attention layer;
    - :data:`PREFILLED_BY_ROW` when every layer is plain full attention and the model takes the
      ``position_ids`` that ``generate`` derives from the attention mask (a row prefilled alone must
      keep its positions in the padded batch) and ``logits_to_keep``;
    - :data:`RESERVED` otherwise: its plain layers reserved, the rest (sliding windows…) as
      transformers makes them.
    """
    named = getattr(generation_config, "cache_implementation", None) or getattr(
        getattr(model, "generation_config", None), "cache_implementation", None
    )
    if named or not getattr(model, "_supports_default_dynamic_cache", lambda: False)():
        return TRANSFORMERS
    plain = [type(layer) is DynamicLayer for layer in DynamicCache(config=model.config).layers]
    if not any(plain):
        return TRANSFORMERS
    takes = inspect.signature(type(model).forward).parameters
    return PREFILLED_BY_ROW if all(plain) and {"position_ids", "logits_to_keep"} <= takes.keys() else RESERVED


def generation_cache(model: Any, kind: str, prompts: list[list[int]]) -> dict[str, Cache]:
    """``generate``'s cache argument (none for :data:`TRANSFORMERS`) for ``prompts`` left-padded into
    one batch. Call it, and ``generate``, under ``torch.inference_mode()`` or ``torch.no_grad()``."""
    if kind == TRANSFORMERS:
        return {}
    cache = prefilled_cache(model, prompts) if kind == PREFILLED_BY_ROW else reserved_cache(model)
    return {cache_argument(model): cache}


def reserved_cache(model: Any, reserve: int = RESERVE) -> DynamicCache:
    """``model``'s default cache with each plain full-attention layer a :class:`ReservedLayer`
    (sliding-window and other layers stay as transformers makes them)."""
    cache = DynamicCache(config=model.config)
    cache.layers = [
        ReservedLayer(reserve) if type(layer) is DynamicLayer else layer for layer in cache.layers
    ]
    return cache


@torch.no_grad()
def prefilled_cache(model: Any, prompts: list[list[int]], reserve: int = RESERVE) -> DynamicCache:
    """A cache of :class:`ReservedLayer` holding every prompt but its last token, each prefilled alone
    and right-aligned (zeros before it, which the batch's attention mask hides; a one-token prompt is
    all zeros), with room for ``reserve`` more tokens; for a model of kind :data:`PREFILLED_BY_ROW`.
    ``generate`` on the left-padded prompts with this cache runs their last tokens as one batch."""
    cache, end = reserved_cache(model, reserve), max(map(len, prompts)) - 1
    if end == 0:
        return cache
    argument = cache_argument(model)
    device = next(model.parameters()).device
    for row, prompt in enumerate(prompts):
        if len(prompt) < 2:
            continue
        start = end - len(prompt) + 1
        layers = [_RowPrefill(layer, row, len(prompts), start, end + reserve) for layer in cache.layers]
        tokens = torch.tensor([prompt[:-1]], device=device)
        model(input_ids=tokens, use_cache=True, logits_to_keep=1, **{argument: Cache(layers=layers)})
    for layer in cache.layers:
        layer.lazy_initialization(*layer._blocks)
        layer._hold(layer._blocks, end)
    return cache
