"""A test-only benchmark: sums of two small numbers. One package (this module) and one registry line
(``BENCHMARKS["toy"] = "toy_benchmark:BENCHMARK"``) bring it through build, score, run and the Space."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
from datasets import Features, Value

from eviscope.core.errors import EviScopeError
from eviscope.core.layout import split_path
from eviscope.core.registry import BrowseFilter, BuildRequest, Config, RunOption, Scored, SpaceScore
from eviscope.runner.backends.base import ChatRequest
from eviscope.runner.tasks import Part

CONFIG = "toy-v1"
FEATURES = Features({"id": Value("string"), "a": Value("int32"), "b": Value("int32")})
SCHEMA = {"type": "object", "properties": {"sum": {"type": "integer"}}, "required": ["sum"]}


def rows() -> list[dict[str, Any]]:
    return [{"id": f"t{i}", "a": i, "b": 2 * i} for i in range(6)]


def question(row: Mapping[str, Any]) -> str:
    return f'What is {row["a"]} + {row["b"]}? Reply with JSON {{"sum": N}}.'


class ToyBuilder:
    contextualize = False

    def build(self, request: BuildRequest) -> dict[str, Any]:
        from eviscope.builders.parquet_split import write_split

        for name in request.configs:
            write_split(request.out, name, rows(), FEATURES)
        return {"configs": list(request.configs), "rows": len(rows())}

    def summary(self, report: Mapping[str, Any]) -> list[Any]:
        return [f"toy: {report['rows']} rows in {', '.join(report['configs'])}"]


class ToyTask:
    name = "toy"
    prompt_id = "toy.v1"
    prompt_file = "tests/toy_benchmark.py"
    parser_version = "toy/1"
    prompt_text = "What is {a} + {b}?"
    schema = SCHEMA

    def requests(self, row: Mapping[str, Any]) -> list[ChatRequest]:
        return [ChatRequest(row["id"], [{"role": "user", "content": question(row)}], self.schema)]

    def parse(self, text: str) -> int | None:
        try:
            value = json.loads(text)["sum"]
        except (ValueError, KeyError, TypeError):
            return None
        return value if isinstance(value, int) else None

    def record(self, row: Mapping[str, Any], parts: Sequence[Part]) -> dict[str, Any]:
        [part] = parts
        return {"id": row["id"], "sum": part.parsed, "raw": part.raw}

    def prediction(self, record: Mapping[str, Any]) -> dict[str, Any]:
        return {"id": record["id"], "sum": record["sum"]}


def accuracy(rows: Sequence[Mapping[str, Any]], predictions: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    by_id = {p["id"]: p for p in predictions}
    unknown = sorted(set(by_id) - {row["id"] for row in rows})
    if unknown:
        raise EviScopeError(f"unknown ids {', '.join(unknown)}")
    right = [by_id.get(row["id"], {}).get("sum") == row["a"] + row["b"] for row in rows]
    return {"n": len(rows), "accuracy": sum(right) / len(rows)}


def read(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


class ToySpace:
    browse_columns = ("id", "a", "b")
    browse_filters = (BrowseFilter("a", "a", tuple(str(row["a"]) for row in rows())),)
    leaderboard_columns = ("accuracy",)
    lower_is_better = ()
    annotation = None

    def score_upload(self, rows: Sequence[Mapping[str, Any]], path: Path, source: str) -> SpaceScore:
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
    configs = (Config(CONFIG, None),)
    builder = "toy_benchmark:BUILDER"
    run_options = (RunOption("toy_note", "toy: a note the task ignores", metavar="TEXT"),)
    hub_tasks = ()
    metric = None
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

    def score(self, config: str, rows: list[dict[str, Any]], predictions: Path, out: Path | None) -> Scored:
        result = accuracy(rows, read(predictions))
        written = []
        if out is not None:
            out.mkdir(parents=True, exist_ok=True)
            written.append(out / "results.json")
            written[0].write_text(json.dumps(result) + "\n", encoding="utf-8")
        return Scored(result, [f"toy accuracy {result['accuracy']:.3f}"], written)

    def score_command(self, config: str, predictions: Path) -> str:
        return f"eviscope score {predictions} --config {config}"


BENCHMARK = Toy()
BUILDER = ToyBuilder()


def answer(body: Mapping[str, Any]) -> str:
    """What a model that adds correctly replies (the stub server's ``answer``)."""
    a, b = map(int, re.findall(r"What is (\d+) \+ (\d+)\?", body["messages"][0]["content"])[0])
    return json.dumps({"sum": a + b})
