"""Runner overhead: ``eviscope run`` wall time ÷ raw engine wall time on the same prompts.

The engine is the tiny random-weight transformers model on CPU (built offline), or, with
``--vllm MODEL`` on a machine with a GPU and vLLM, a real model through ``LLM.chat``. The raw side
loads the same model, tokenizes the same rendered prompts and generates with the same settings
(the same length-sorted groups and xgrammar processor for transformers; one ``LLM.chat`` for vLLM),
with no journal, parser or manifest. Prints both times, their ratio (target ≤ 1.10) and the engine
calls the run made for its 160 rows (target: 1 per backend process).

    python benchmarks/runner.py [--dataset dataset] [--max-tokens 128] [--repeats 2] [--vllm MODEL]
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

from eviscope.cli import main
from eviscope.core.registry import DEFAULT_CONFIG
from eviscope.runner.tiny_model import build_tiny_model
from eviscope.suites.eviscope.dataset import load_rows
from eviscope.suites.eviscope.policies import render
from eviscope.suites.eviscope.schemas import ANSWER_SCHEMA


def raw_transformers(model_dir: Path, prompts: list[str], max_tokens: int, max_batch_tokens: int) -> float:
    """Wall time of plain transformers + xgrammar on ``prompts`` (load, tokenize, generate, decode)."""
    start = time.perf_counter()
    import torch
    import xgrammar
    import xgrammar.contrib.hf
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(model_dir)
    tokenizer.padding_side = "left"
    model = AutoModelForCausalLM.from_pretrained(model_dir, dtype=torch.float32).eval()
    info = xgrammar.TokenizerInfo.from_huggingface(tokenizer, vocab_size=model.config.vocab_size)
    grammar = xgrammar.GrammarCompiler(info).compile_json_schema(
        json.dumps(ANSWER_SCHEMA), any_whitespace=False
    )
    chats = [
        tokenizer.apply_chat_template(
            [{"role": "user", "content": p}], tokenize=False, add_generation_prompt=True
        )
        for p in prompts
    ]
    ids = sorted(tokenizer(chats, add_special_tokens=False)["input_ids"], key=len)
    groups, group = [], []
    for seq in ids:
        if group and len(seq) * (len(group) + 1) > max_batch_tokens:
            groups.append(group)
            group = []
        group.append(seq)
    groups.append(group)
    for group in groups:
        batch = tokenizer.pad({"input_ids": group}, return_tensors="pt")
        with torch.inference_mode():
            out = model.generate(
                **batch,
                max_new_tokens=max_tokens,
                do_sample=False,
                pad_token_id=tokenizer.pad_token_id,
                logits_processor=[xgrammar.contrib.hf.LogitsProcessor(grammar)],
            )
        tokenizer.batch_decode(out[:, batch["input_ids"].shape[1] :], skip_special_tokens=True)
    return time.perf_counter() - start


def raw_vllm(model: str, prompts: list[str], max_tokens: int) -> float:
    """Wall time of plain vLLM on ``prompts`` (engine start, one ``LLM.chat``)."""
    start = time.perf_counter()
    from vllm import LLM, SamplingParams
    from vllm.sampling_params import StructuredOutputsParams

    llm = LLM(model=model, seed=0, enable_prefix_caching=True, generation_config="vllm")
    params = SamplingParams(
        temperature=0.0,
        max_tokens=max_tokens,
        seed=0,
        structured_outputs=StructuredOutputsParams(json=ANSWER_SCHEMA),
    )
    llm.chat([[{"role": "user", "content": p}] for p in prompts], sampling_params=params, use_tqdm=False)
    return time.perf_counter() - start


def timed_run(argv: list[str], out: Path) -> tuple[float, dict]:
    start = time.perf_counter()
    assert main([*argv, "--out", str(out)]) == 0
    return time.perf_counter() - start, json.loads((out / "manifest.json").read_text())


def main_benchmark() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dataset", default="dataset")
    parser.add_argument("--max-tokens", type=int, default=128)
    parser.add_argument("--max-batch-tokens", type=int, default=16384)
    parser.add_argument("--repeats", type=int, default=2, help="measurements per side (best kept)")
    parser.add_argument("--vllm", metavar="MODEL", help="also measure vLLM with this model (needs a GPU)")
    args = parser.parse_args()
    rows = load_rows(DEFAULT_CONFIG, args.dataset)
    prompts = [render("vanilla", row) for row in rows]
    with tempfile.TemporaryDirectory() as tmp:
        tmp_dir = Path(tmp)
        model_dir = build_tiny_model(tmp_dir / "tiny", prompts)
        # no re-asks: the raw side makes none, so both sides do the same generation work
        common = [
            "run",
            "--dataset",
            args.dataset,
            "--max-tokens",
            str(args.max_tokens),
            "--max-retries",
            "0",
        ]
        side = [
            (
                "transformers (tiny, CPU)",
                str(model_dir),
                lambda: raw_transformers(model_dir, prompts, args.max_tokens, args.max_batch_tokens),
            )
        ]
        if args.vllm:
            side.append(("vllm", args.vllm, lambda: raw_vllm(args.vllm, prompts, args.max_tokens)))
        print(
            f"{len(rows)} rows of {DEFAULT_CONFIG}, vanilla policy, max {args.max_tokens} new tokens, structured output"
        )
        print(f"{'backend':<26}{'raw engine s':>14}{'runner s':>10}{'ratio':>8}{'engine calls':>14}")
        for name, model, raw in side:
            backend = name.split()[0]
            (
                raw(),
                timed_run(
                    [*common, "--backend", backend, "--model", model, "--limit", "8"],
                    tmp_dir / f"warm-{backend}",
                ),
            )
            raw_s = raw()
            extra = ["--max-batch-tokens", str(args.max_batch_tokens)] if backend == "transformers" else []
            run_s, manifest = timed_run(
                [*common, "--backend", backend, "--model", model, *extra], tmp_dir / backend
            )
            print(
                f"{name:<26}{raw_s:>14.2f}{run_s:>10.2f}{run_s / raw_s:>8.3f}{manifest['engine_calls']:>14}"
            )


if __name__ == "__main__":
    main_benchmark()
