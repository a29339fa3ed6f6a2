"""The transformers backend's key/value caches give the logits transformers' own cache gives."""

from __future__ import annotations

from typing import Any

import pytest

torch = pytest.importorskip("torch", reason="torch is not installed: pip install -e '.[cpu]'")
transformers = pytest.importorskip(
    "transformers", reason="transformers is not installed: pip install -e '.[cpu]'"
)

from eviscope.runner.backends import kv_cache  # noqa: E402

NEW_TOKENS = 12
SIZES = {
    "vocab_size": 300,
    "hidden_size": 64,
    "intermediate_size": 128,
    "num_hidden_layers": 2,
    "num_attention_heads": 4,
    "num_key_value_heads": 2,
    "pad_token_id": 0,
}


def _llama() -> Any:
    torch.manual_seed(0)
    return transformers.LlamaForCausalLM(transformers.LlamaConfig(**SIZES)).eval()


def _prompts(lengths: list[int]) -> list[list[int]]:
    generator = torch.Generator().manual_seed(1)
    return [torch.randint(1, 300, (n,), generator=generator).tolist() for n in lengths]


def _generate(
    model: Any, prompts: list[list[int]], cache: dict[str, Any]
) -> tuple[torch.Tensor, torch.Tensor]:
    """Greedy and left-padded, as the backend generates: (new tokens, their logits)."""
    width = max(map(len, prompts))
    ids = torch.tensor([[0] * (width - len(p)) + p for p in prompts])
    mask = torch.tensor([[0] * (width - len(p)) + [1] * len(p) for p in prompts])
    config = transformers.GenerationConfig(
        do_sample=False, max_new_tokens=NEW_TOKENS, min_new_tokens=NEW_TOKENS, pad_token_id=0
    )
    with torch.inference_mode():
        out = model.generate(
            input_ids=ids,
            attention_mask=mask,
            generation_config=config,
            return_dict_in_generate=True,
            output_logits=True,
            **cache,
        )
    return out.sequences[:, width:], torch.stack(out.logits)


def _cache(model: Any, make: Any, prompts: list[list[int]], reserve: int) -> dict[str, Any]:
    with torch.inference_mode():
        cache = make(model, prompts, reserve) if make is kv_cache.prefilled_cache else make(model, reserve)
    return {kv_cache.cache_argument(model): cache}


def _count_blocks(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """A list that grows by one each time a :class:`ReservedLayer` makes new blocks."""
    made: list[int] = []
    reserved = kv_cache.ReservedLayer._reserved

    def counted(self, *args: Any) -> Any:
        made.append(1)
        return reserved(self, *args)

    monkeypatch.setattr(kv_cache.ReservedLayer, "_reserved", counted)
    return made


@pytest.mark.parametrize(
    ("reserve", "blocks"), [(NEW_TOKENS, 1), (3, 3)], ids=["in place", "grows when full"]
)
def test_a_reserved_cache_gives_transformers_logits_bit_for_bit(reserve, blocks, monkeypatch):
    model, prompts = _llama(), _prompts([9, 23, 17])
    tokens, logits = _generate(model, prompts, {})
    made = _count_blocks(monkeypatch)
    reserved_tokens, reserved_logits = _generate(
        model, prompts, _cache(model, kv_cache.reserved_cache, prompts, reserve)
    )
    assert torch.equal(reserved_tokens, tokens) and torch.equal(reserved_logits, logits)
    # blocks made at the prefill and, 3 tokens at a time, for the 11 tokens fed back: per layer
    assert len(made) == blocks * SIZES["num_hidden_layers"]


def test_prompts_prefilled_by_row_skip_the_padding_and_give_the_batch_tokens(monkeypatch):
    model, prompts = _llama(), _prompts([9, 23, 17, 1])
    assert kv_cache.cache_kind(model, transformers.GenerationConfig()) == kv_cache.PREFILLED_BY_ROW
    tokens, logits = _generate(model, prompts, {})
    seen: list[int] = []
    hook = model.register_forward_pre_hook(
        lambda _, args, kwargs: seen.append(kwargs["input_ids"].numel()), with_kwargs=True
    )
    made = _count_blocks(monkeypatch)
    try:
        row_tokens, row_logits = _generate(
            model, prompts, _cache(model, kv_cache.prefilled_cache, prompts, NEW_TOKENS)
        )
    finally:
        hook.remove()
    # each prompt but its last token alone, unpadded (nothing of the one-token prompt); then the last
    # tokens and each new one as a batch, written into the blocks the prefill filled
    assert seen == [8, 22, 16] + [len(prompts)] * NEW_TOKENS and made == []
    assert torch.equal(row_tokens, tokens)
    torch.testing.assert_close(row_logits, logits, rtol=0, atol=1e-5)


def test_sliding_window_layers_stay_as_transformers_makes_them():
    torch.manual_seed(0)
    config = transformers.Qwen2Config(**SIZES, use_sliding_window=True, sliding_window=8, max_window_layers=1)
    model, prompts = transformers.Qwen2ForCausalLM(config).eval(), _prompts([9, 23, 17])
    assert kv_cache.cache_kind(model, transformers.GenerationConfig()) == kv_cache.RESERVED
    cache = _cache(model, kv_cache.reserved_cache, prompts, NEW_TOKENS)
    assert [type(layer).__name__ for layer in next(iter(cache.values())).layers] == [
        "ReservedLayer",
        "DynamicSlidingWindowLayer",
    ]
    tokens, logits = _generate(model, prompts, {})
    reserved_tokens, reserved_logits = _generate(model, prompts, cache)
    assert torch.equal(reserved_tokens, tokens) and torch.equal(reserved_logits, logits)


@pytest.mark.parametrize("where", ["the run's generation config", "the model's generation config"])
def test_a_generation_config_naming_a_cache_keeps_it(where):
    model, config = _llama(), transformers.GenerationConfig()
    (
        config if where == "the run's generation config" else model.generation_config
    ).cache_implementation = "static"
    assert kv_cache.cache_kind(model, config) == kv_cache.TRANSFORMERS
    assert kv_cache.generation_cache(model, kv_cache.TRANSFORMERS, _prompts([4])) == {}
