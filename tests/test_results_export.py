"""``eviscope results export``: a finished run's headline metrics as the hub's ``.eval_results/*.yaml``,
written with huggingface_hub's classes and read back with its parser."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from hub_server import FAKE_TOKEN, FakeHub
from huggingface_hub import parse_eval_result_entries
from runner_fixtures import chat_server

from eviscope.cli import main
from eviscope.release.eval_results import eval_yaml, read_results, tasks
from eviscope.suites.eviscope.dataset import load_rows
from eviscope.suites.eviscope.predictions import load_predictions
from eviscope.suites.eviscope.scoring import score_predictions

BENCHMARK = "test/eviscope"


@pytest.fixture(scope="module")
def finished_run(built_dataset: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real ``eviscope run`` (gate policy) against a local server that always abstains."""
    out = tmp_path_factory.mktemp("run")
    with chat_server() as server:
        argv = ["run", "--backend", "openai", "--model", "served-model", "--base-url", server["url"],
                "--policy", "gate", "--dataset", str(built_dataset), "--out", str(out)]  # fmt: skip
        assert main(argv) == 0
    return out


def _export(run: Path, dataset: Path, *more: str) -> int:
    argv = ["results", "export", str(run), "--model-repo", "acme/model", "--benchmark", BENCHMARK,
            "--dataset", str(dataset), *more]  # fmt: skip
    return main(argv)


def test_export_round_trips_through_huggingface_hub(
    finished_run: Path, built_dataset: Path, tmp_path: Path
) -> None:
    assert _export(finished_run, built_dataset, "--out", str(tmp_path)) == 0

    files = sorted((tmp_path / ".eval_results").glob("*.yaml"))
    assert [f.name for f in files] == [
        "eviscope_joint_success_gate.yaml",
        "eviscope_quartet_consistency_gate.yaml",
    ]
    rows = load_rows("eviscope-v1.1", built_dataset)
    overall = score_predictions(rows, load_predictions(finished_run / "predictions.jsonl", rows)).overall
    task_ids = {t["id"] for t in yaml.safe_load(eval_yaml([t.config for t in tasks()], "d"))["tasks"]}
    for path in files:
        (entry,) = parse_eval_result_entries(yaml.safe_load(path.read_text()))
        assert (entry.dataset_id, entry.notes) == (BENCHMARK, "gate, eviscope 0.1.0")
        assert entry.task_id in task_ids
        metric = next(t.metric for t in tasks() if t.id == entry.task_id)
        assert entry.value == pytest.approx(overall[metric], abs=1e-6)
        assert entry.date is not None
        assert read_results(path.read_text()) == [entry]
    values = {read_results(f.read_text())[0].task_id: read_results(f.read_text())[0].value for f in files}
    assert values == {"joint_success": 0.25, "quartet_consistency": 0.0}  # abstaining is right on 1 row in 4


def test_an_unfinished_run_is_refused_in_one_line(
    finished_run: Path, built_dataset: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = tmp_path / "run"
    run.mkdir()
    manifest = (
        (finished_run / "manifest.json").read_text().replace('"status": "complete"', '"status": "incomplete"')
    )
    (run / "manifest.json").write_text(manifest)

    assert _export(run, built_dataset) == 2

    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "the run is 'incomplete', not complete" in err
    assert not (run / ".eval_results").exists()


@pytest.fixture
def hub(hub: FakeHub, monkeypatch: pytest.MonkeyPatch) -> FakeHub:
    """The fake Hub with a token in the environment and the model repo the results go to."""
    monkeypatch.setenv("HF_TOKEN", FAKE_TOKEN)
    hub.repos["models/acme/model"] = {}
    return hub


def test_push_with_create_pr_opens_a_pull_request_on_the_model_repo(
    hub: FakeHub, finished_run: Path, built_dataset: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = _export(
        finished_run, built_dataset, "--out", str(tmp_path), "--push", "--create-pr", "--endpoint", hub.url
    )

    assert code == 0
    (commit,) = hub.commits
    assert commit.repo == "models/acme/model" and commit.create_pr
    assert sorted(commit.files) == [
        ".eval_results/eviscope_joint_success_gate.yaml",
        ".eval_results/eviscope_quartet_consistency_gate.yaml",
    ]
    for path, data in commit.files.items():
        assert data == (tmp_path / path).read_bytes()
    assert hub.files("models/acme/model") == {}  # a pull request leaves main alone
    out = capsys.readouterr().out
    assert (
        f"acme/model: pull request {hub.url}/models/acme/model/discussions/1" in out and FAKE_TOKEN not in out
    )
