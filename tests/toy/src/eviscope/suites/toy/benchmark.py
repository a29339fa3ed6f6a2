"""The toy as a :class:`~eviscope.core.registry.Benchmark`: its registry entry is
``"toy": "eviscope.suites.toy.benchmark:BENCHMARK"``."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

from eviscope.core.errors import EviScopeError
from eviscope.core.layout import split_path
from eviscope.core.registry import (
    BrowseFilter,
    Config,
    Harness,
    Metric,
    RunOption,
    Scored,
    SpaceScore,
    named_rows,
)
from eviscope.suites.toy.rows import A_VALUES, CONFIG, PAIRS
from eviscope.suites.toy.scoring import accuracy, read
from eviscope.suites.toy.task import ToyTask


class ToySpace:
    """What the Space shows of the toy config."""

    browse_columns = ("id", "a", "b")
    browse_filters = (BrowseFilter("a", "a", A_VALUES),)
    leaderboard_columns = ("accuracy",)
    lower_is_better = ()
    annotation = None
    reported = ()
    reference_command = ""

    def reference_systems(self, rows: Sequence[Mapping[str, Any]]) -> dict[str, list[dict[str, Any]]]:
        return {}

    def score_upload(
        self,
        rows: Sequence[Mapping[str, Any]],
        path: Path,
        source: str,
        config: str | None = None,
        rows_of: Callable[[str], Sequence[Mapping[str, Any]]] | None = None,  # one config: none to fit
    ) -> SpaceScore:
        predictions = read(path)
        return SpaceScore(accuracy(rows, predictions), predictions)

    def report(self, meta: dict[str, Any], scored: SpaceScore, out_dir: Path) -> tuple[str, list[Path]]:
        return f"# toy: {meta['system']}\n\naccuracy {scored.result['accuracy']:.3f}\n", []

    def leaderboard_line(self, result: Mapping[str, Any]) -> dict[str, Any]:
        return {"accuracy": result["accuracy"]}

    def leaderboard_plot(self, records: Sequence[Mapping[str, Any]], path: Path) -> Path:
        from matplotlib.figure import Figure

        fig = Figure(figsize=(3, 2))
        fig.subplots().bar([r["system"] for r in records], [r["result"]["accuracy"] for r in records])
        fig.savefig(path)
        return path

    def row_html(self, rows: Sequence[Mapping[str, Any]], row: Mapping[str, Any]) -> str:
        return f"<p>{row['a']} + {row['b']}</p>"

    def compare(self, record_a: Any, record_b: Any, rows: Any) -> list[dict[str, Any]]:
        raise EviScopeError("no paired comparison for the toy benchmark")


class Toy:
    name = "toy"
    title = "Toy"
    configs = (Config(CONFIG, PAIRS.name, releasable=False),)
    """Made from the user's own copy (:data:`PAIRS` has no hub dataset), so never released."""
    sources = (PAIRS,)
    builder = "eviscope.builders.toy.entry:BUILDER"
    run_options = (RunOption("toy_note", "toy: a note the task ignores", metavar="TEXT"),)
    hub_tasks = ()
    metric = Metric("toy", CONFIG)
    harness = Harness(
        glue="eviscope.suites.toy.harness",
        lm_eval_tasks="eviscope.suites.toy:lm_eval_tasks",
        inspect_tasks="eviscope.suites.toy.inspect_tasks",
    )
    commands = ()
    space = ToySpace()

    def load_rows(self, config: str, dataset: Path) -> list[dict[str, Any]]:
        path = split_path(dataset, config)
        if not path.is_file():
            raise EviScopeError(f"{path}: no toy rows; run `eviscope build {config}`")
        return pq.read_table(path).to_pylist()

    def run_rows(
        self, config: str, dataset: Path, options: Mapping[str, Any]
    ) -> tuple[list[dict[str, Any]], None]:
        return self.load_rows(config, dataset), None

    def task(self, options: Mapping[str, Any], model: str) -> ToyTask:
        return ToyTask()

    def score(
        self,
        config: str,
        rows: list[dict[str, Any]],
        predictions: Path,
        out: Path | None,
        *,
        subset: bool = False,
        rows_of: Callable[[str], Sequence[Mapping[str, Any]]] | None = None,  # one config: none to fit
    ) -> Scored:
        preds = read(predictions)
        if subset:
            rows = named_rows(config, rows, (p["id"] for p in preds), str(predictions))
        result = accuracy(rows, preds)
        written = []
        if out is not None:
            out.mkdir(parents=True, exist_ok=True)
            written.append(out / "results.json")
            written[0].write_text(json.dumps(result) + "\n", encoding="utf-8")
        return Scored(
            result, [f"toy accuracy {result['accuracy']:.3f}"], written, rows=rows if subset else None
        )

    def score_command(self, config: str, predictions: Path) -> str:
        return f"eviscope score {predictions} --config {config}"

    def metric_example(self, rows: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
        """Every row, answered right but the first."""
        return {
            "predictions": [{"id": r["id"], "sum": r["a"] + r["b"] + (i == 0)} for i, r in enumerate(rows)],
            "references": [{"id": r["id"], "a": r["a"], "b": r["b"]} for r in rows],
        }


BENCHMARK = Toy()
