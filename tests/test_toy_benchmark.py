"""A new benchmark is one package and one registry line: the toy benchmark goes through
``eviscope build``, ``eviscope run`` (against the stub server), ``eviscope score`` and the Space."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from stub_server import StubServer
from toy_benchmark import CONFIG, answer

from eviscope.cli import main
from eviscope.core import registry as benchmark


@pytest.fixture
def toy(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(benchmark.BENCHMARKS, "toy", "toy_benchmark:BENCHMARK")


def test_the_toy_benchmark_builds_runs_scores_and_shows_in_the_space(toy, tmp_path: Path, capsys) -> None:
    dataset = tmp_path / "dataset"
    dataset.mkdir()
    (dataset / "README.md").write_text("---\n---\n", encoding="utf-8")
    assert main(["build", CONFIG, "--out", str(dataset)]) == 0
    assert "toy: 6 rows in toy-v1" in capsys.readouterr().out
    assert json.loads((dataset / "build_report.json").read_text()) == {
        "toy": {"configs": [CONFIG], "rows": 6}
    }

    run = tmp_path / "runs" / "adder"
    server = StubServer(answer=answer)
    with server.serving():
        argv = ["run", "--config", CONFIG, "--dataset", str(dataset), "--backend", "openai", "--model", "adder",
                "--base-url", server.url, "--out", str(run), "--toy-note", "hello"]  # fmt: skip
        assert main(argv) == 0
    assert len(server.log) == 6
    assert f"eviscope score {run / 'predictions.jsonl'} --config {CONFIG}" in capsys.readouterr().err
    manifest = json.loads((run / "manifest.json").read_text())
    assert (manifest["task"], manifest["rows"]["done"]) == ("toy", 6)

    assert (
        main(
            ["score", str(run / "predictions.jsonl"), "--config", CONFIG, "--dataset", str(dataset), "--json"]
        )
        == 0
    )
    assert json.loads(capsys.readouterr().out) == {"n": 6, "accuracy": 1.0}
    assert json.loads((run / "report" / "results.json").read_text())["accuracy"] == 1.0

    # an option of another benchmark is refused, naming the ones the toy takes
    assert main([*argv[:-2], "--policy", "gate"]) == 2
    assert (
        "--policy is not an option of Toy configs like toy-v1; they take --toy-note"
        in capsys.readouterr().err
    )

    pytest.importorskip("gradio")
    from eviscope.space.annotation import AnnotationStore
    from eviscope.space.data import RowSource
    from eviscope.space.leaderboard import LocalResultStore, leaderboard_table
    from eviscope.space.ui import build_demo

    store = LocalResultStore(tmp_path / "results")
    demo = build_demo(RowSource(dataset), store, AnnotationStore(tmp_path / "results" / "annotations"))
    api = {fn.api_name: fn.fn for fn in demo.fns.values()}
    status, markdown, _ = api["submit"](CONFIG, "adder", str(run / "predictions.jsonl"))
    assert "Recorded **adder**" in status and "accuracy 1.000" in markdown
    table = leaderboard_table(CONFIG, store.records(CONFIG))
    assert table[["system", "accuracy"]].values.tolist() == [["adder", 1.0]]
    assert api["show"](CONFIG, "t2") == "<p>2 + 4</p>"
    # its Browse filter joins the others', after them; the others ignore its rows
    filters = {f.label: "any" for f in benchmark.browse_filters()}
    assert list(filters)[-1] == "a"
    table, note = api["browse"](CONFIG, *{**filters, "a": "2"}.values(), "")
    assert table["id"].tolist() == ["t2"] and note == "1 of 6 rows match"
    table, note = api["browse"](CONFIG, *{**filters, "variant": "noisy"}.values(), "")
    assert note == "6 of 6 rows match"
    # annotation is optional: the toy declares none, so the Annotate tab refuses it by name
    with pytest.raises(Exception, match="no annotation flow for 'toy'; choose one of eviscope, forcebench"):
        api["annotate_next"]("toy")
