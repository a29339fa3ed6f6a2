"""Counterfactual attribution: every counterfactual in one batched backend call vs one call each.

Attributes the first N rows of a built config with the tiny random-weight transformers model on CPU
(built offline), through the same code as ``eviscope attribute``
(:class:`~eviscope.suites.eviscope.run_attribution.BackendGenerate` under
:func:`~eviscope.ragonite.attribution.attribute`), once with every counterfactual in one
``complete`` call and once with one ``complete`` call per counterfactual. Both sides share the
loaded model and MiniLM. Each row's original answer is its first gold alias.

Each side runs twice: with an empty embedding cache (cold: MiniLM embeds the evidences, a fixed cost
batching cannot change), and with the evidences' vectors already cached (warm: what ``eviscope
attribute`` meets when it attributes a second run of the same config, the usual case when a study
compares models). Answers are always embedded afresh. Prints the wall times, end to end and of
generation alone, and their ratios (target: batched ≥ 5× faster).

    python benchmarks/attribution.py [--dataset dataset] [--rows 40] [--max-tokens 512] [--repeats 1]
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from pathlib import Path

from eviscope.core.registry import DEFAULT_CONFIG
from eviscope.ragonite.attribution import CounterfactualRequest, attribute
from eviscope.ragonite.retrieval import Embedder
from eviscope.runner.backends.base import SamplingConfig
from eviscope.runner.backends.transformers_backend import TransformersBackend
from eviscope.runner.tiny_model import build_tiny_model
from eviscope.suites.eviscope.dataset import load_rows
from eviscope.suites.eviscope.policies import render
from eviscope.suites.eviscope.run_attribution import BackendGenerate, attribution_rows, embed_answers
from eviscope.suites.eviscope.task import EviScopeTask


def main_benchmark() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dataset", default="dataset")
    parser.add_argument("--rows", type=int, default=40, help="rows to attribute (default: 40)")
    parser.add_argument(
        "--max-tokens",
        type=int,
        default=SamplingConfig().max_tokens,
        help="new tokens per answer (default: %(default)s, the budget `eviscope run` gives, which "
        "`eviscope attribute` reuses from the run's manifest)",
    )
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

        def timed(cache: Path, one_call: bool) -> tuple[float, float, int]:
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

            embed = embed_answers(Embedder(minilm, cache=cache, show_progress=False))
            start = time.perf_counter()
            attribute(inputs, timed_generate, embed, repeats=args.repeats)
            return time.perf_counter() - start, generation_s, backend.engine_calls - calls

        evidences = tmp_dir / "evidences"
        Embedder(minilm, cache=evidences, show_progress=False)(
            sorted({doc.text for row in inputs for doc in row.documents})
        )
        results = {}
        for cache in ("cold", "warm"):
            for side, one_call in (("one call each", False), ("all in one call", True)):
                folder = tmp_dir / cache / side
                if cache == "warm":
                    shutil.copytree(evidences, folder)
                results[cache, side] = timed(folder, one_call)
    calls = results["cold", "one call each"][2]
    print(
        f"{len(rows)} rows of {DEFAULT_CONFIG}, {calls} counterfactuals, m = {args.repeats}, "
        f"tiny transformers model on CPU, max {args.max_tokens} new tokens, structured output"
    )
    print(f"{'evidence cache':<16}{'side':<18}{'engine calls':>14}{'attribution s':>15}{'generation s':>14}")
    for (cache, side), (total_s, generation_s, engine_calls) in results.items():
        print(f"{cache:<16}{side:<18}{engine_calls:>14}{total_s:>15.2f}{generation_s:>14.2f}")
    for cache in ("cold", "warm"):
        sequential, batched = results[cache, "one call each"], results[cache, "all in one call"]
        print(
            f"{cache}: batched is {sequential[0] / batched[0]:.1f}x faster end to end, "
            f"{sequential[1] / batched[1]:.1f}x in generation alone (target >= 5x)"
        )


if __name__ == "__main__":
    main_benchmark()
