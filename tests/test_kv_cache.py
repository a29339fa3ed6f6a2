"""The transformers backend's key/value caches give the logits transformers' own cache gives."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch", reason="torch is not installed: pip install -e '.[cpu]'")
transformers = pytest.importorskip(
    "transformers", reason="transformers is not installed: pip install -e '.[cpu]'"
)

from eviscope.runner.backends import kv_cache  # noqa: E402

NEW_TOKENS = 12
SIZES = {"vocab_size": 300, "hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 2,
         "num_attention_heads": 4, "num_key_value_heads": 2, "pad_token_id": 0}  # fmt: skip


def _model(config_class: type, **extra: int) -> torch.nn.Module:
    torch.manual_seed(0)
    model_class = {
        "LlamaConfig": transformers.LlamaForCausalLM,
        "MistralConfig": transformers.MistralForCausalLM,
    }
    return model_class[config_class.__name__](config_class(**SIZES, **extra)).eval()


def _prompts(lengths: list[int]) -> list[list[int]]:
    generator = torch.Generator().manual_seed(1)
    return [torch.randint(1, 300, (n,), generator=generator).tolist() for n in lengths]


def _generate(
    model: torch.nn.Module, prompts: list[list[int]], cache: dict
) -> tuple[torch.Tensor, torch.Tensor]:
    """Greedy, left-padded: (new tokens, their logits)."""
    width = max(map(len, prompts))
    ids = torch.tensor([[0] * (width - len(p)) + p for p in prompts])
    mask = torch.tensor([[0] * (width - len(p)) + [1] * len(p) for p in prompts])
    config = transformers.GenerationConfig(
        do_sample=False, max_new_tokens=NEW_TOKENS, min_new_tokens=NEW_TOKENS, pad_token_id=0
    )
    with torch.inference_mode():
        out = model.generate(input_ids=ids, attention_mask=mask, generation_config=config,
                             return_dict_in_generate=True, output_logits=True, **cache)  # fmt: skip
    return out.sequences[:, width:], torch.stack(out.logits)


def _with(model: torch.nn.Module, kind: str, prompts: list[list[int]], reserve: int) -> tuple:
    with torch.inference_mode():
        cache = kv_cache.generation_cache(model, kind, prompts, reserve)
    assert cache, kind
    return _generate(model, prompts, cache)


@pytest.mark.parametrize("reserve", [NEW_TOKENS, 3], ids=["room for every token", "grows when full"])
def test_a_reserved_cache_gives_transformers_logits_bit_for_bit(reserve):
    model, prompts = _model(transformers.LlamaConfig), _prompts([9, 23, 17])
    tokens, logits = _generate(model, prompts, {})
    reserved_tokens, reserved_logits = _with(model, kv_cache.RESERVED, prompts, reserve)
    assert torch.equal(reserved_tokens, tokens) and torch.equal(reserved_logits, logits)


def test_prompts_prefilled_by_row_skip_the_padding_and_give_the_batch_tokens():
    model, prompts = _model(transformers.LlamaConfig), _prompts([9, 23, 17, 2])
    assert kv_cache.cache_kind(model, transformers.GenerationConfig()) == kv_cache.PREFILLED_BY_ROW
    tokens, logits = _generate(model, prompts, {})
    seen: list[int] = []
    hook = model.register_forward_pre_hook(
        lambda _, args, kwargs: seen.append(kwargs["input_ids"].numel()), with_kwargs=True
    )
    try:
        row_tokens, row_logits = _with(model, kv_cache.PREFILLED_BY_ROW, prompts, NEW_TOKENS)
    finally:
        hook.remove()
    # each prompt but its last token alone, unpadded; then the last tokens and each new one as a batch
    assert seen == [8, 22, 16, 1] + [len(prompts)] * NEW_TOKENS
    assert torch.equal(row_tokens, tokens)
    torch.testing.assert_close(row_logits, logits, rtol=0, atol=1e-5)


def test_a_one_token_prompt_is_not_prefilled_by_row():
    model, prompts = _model(transformers.LlamaConfig), _prompts([1, 12])
    tokens, logits = _generate(model, prompts, {})
    row_tokens, row_logits = _with(model, kv_cache.PREFILLED_BY_ROW, prompts, 2)
    assert torch.equal(row_tokens, tokens) and torch.equal(
        row_logits, logits
    )  # a reserved cache's, bit for bit


def test_sliding_window_layers_stay_as_transformers_makes_them():
    model, prompts = _model(transformers.MistralConfig, sliding_window=8), _prompts([9, 23, 17])
    assert kv_cache.cache_kind(model, transformers.GenerationConfig()) == kv_cache.RESERVED
    tokens, logits = _generate(model, prompts, {})
    reserved_tokens, reserved_logits = _with(model, kv_cache.RESERVED, prompts, NEW_TOKENS)
    assert torch.equal(reserved_tokens, tokens) and torch.equal(reserved_logits, logits)


def test_a_generation_config_naming_a_cache_keeps_it():
    model = _model(transformers.LlamaConfig)
    config = transformers.GenerationConfig(cache_implementation="static")
    assert kv_cache.cache_kind(model, config) == kv_cache.TRANSFORMERS
    assert kv_cache.generation_cache(model, kv_cache.TRANSFORMERS, _prompts([4]), NEW_TOKENS) == {}
