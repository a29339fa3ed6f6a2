"""Counterfactual attribution: every counterfactual in one batched backend call vs one call each.

Attributes the first N rows of a built config with the tiny random-weight transformers model on CPU
(built offline), through the same code as ``eviscope attribute``
(:class:`~eviscope.ragonite.run_attribution.BackendGenerate` under
:func:`~eviscope.ragonite.attribution.attribute`), once with every counterfactual in one
``complete`` call and once with one ``complete`` call per counterfactual. Both sides share the
loaded model and MiniLM, and embed into separate empty caches. Each row's original answer is its
first gold alias. Prints both wall times, end to end and of generation alone, and their ratios
(target: batched ≥ 5× faster end to end).

    python benchmarks/attribution.py [--dataset dataset] [--rows 40] [--max-tokens 64] [--repeats 1]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from eviscope.dataset import DEFAULT_CONFIG, load_rows
from eviscope.ragonite.attribution import CounterfactualRequest, attribute
from eviscope.ragonite.retrieval import Embedder
from eviscope.ragonite.run_attribution import BackendGenerate, attribution_rows, embed_answers
from eviscope.runner.backends.base import SamplingConfig
from eviscope.runner.backends.transformers_backend import TransformersBackend
from eviscope.runner.policies import render
from eviscope.runner.tasks import EviScopeTask
from eviscope.runner.tiny_model import build_tiny_model


def main_benchmark() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dataset", default="dataset")
    parser.add_argument("--rows", type=int, default=40, help="rows to attribute (default: 40)")
    parser.add_argument("--max-tokens", type=int, default=64)
    parser.add_argument("--repeats", type=int, default=1, help="m: generations per counterfactual")
    args = parser.parse_args()
    rows = load_rows(DEFAULT_CONFIG, args.dataset)[: args.rows]
    inputs = attribution_rows(rows, {row["id"]: row["answers"][0] for row in rows})
    task = EviScopeTask("vanilla")
    with tempfile.TemporaryDirectory() as tmp:
        tmp_dir = Path(tmp)
        model_dir = build_tiny_model(tmp_dir / "tiny", [render("vanilla", row) for row in rows])
        backend = TransformersBackend(str(model_dir), SamplingConfig(max_tokens=args.max_tokens))
        minilm = Embedder(show_progress=False).model
        BackendGenerate(task, backend)(
            [CounterfactualRequest("warm-up", inputs[0].question, inputs[0].documents, (), 0)]
        )

        def timed(name: str, one_call: bool) -> tuple[float, float, int]:
            """Wall time of the whole attribution, of its generation alone, and the engine calls."""
            generate = BackendGenerate(task, backend)
            calls = backend.engine_calls
            generation_s = 0.0

            def timed_generate(requests: list[CounterfactualRequest]) -> list[str]:
                nonlocal generation_s
                start = time.perf_counter()
                if one_call:
                    answers = generate(requests)
                else:
                    answers = [answer for request in requests for answer in generate([request])]
                generation_s = time.perf_counter() - start
                return answers

            embed = embed_answers(Embedder(minilm, cache=tmp_dir / name, show_progress=False))
            start = time.perf_counter()
            attribute(inputs, timed_generate, embed, repeats=args.repeats)
            return time.perf_counter() - start, generation_s, backend.engine_calls - calls

        sequential_s, sequential_gen_s, sequential_calls = timed("sequential", one_call=False)
        batched_s, batched_gen_s, batched_calls = timed("batched", one_call=True)
    print(
        f"{len(rows)} rows of {DEFAULT_CONFIG}, {sequential_calls} counterfactuals, m = {args.repeats}, "
        f"tiny transformers model on CPU, max {args.max_tokens} new tokens, structured output"
    )
    print(f"{'side':<18}{'engine calls':>14}{'attribution s':>15}{'generation s':>14}")
    print(f"{'one call each':<18}{sequential_calls:>14}{sequential_s:>15.2f}{sequential_gen_s:>14.2f}")
    print(f"{'all in one call':<18}{batched_calls:>14}{batched_s:>15.2f}{batched_gen_s:>14.2f}")
    print(
        f"batched is {sequential_s / batched_s:.1f}x faster end to end (target >= 5x), "
        f"{sequential_gen_s / batched_gen_s:.1f}x in generation alone (MiniLM embedding is the rest)"
    )


if __name__ == "__main__":
    main_benchmark()
