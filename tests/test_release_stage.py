"""The staged release: every repository loads offline the way a hub user loads it, and passes validation."""

from __future__ import annotations

import hashlib
import runpy
import sys
import types
from pathlib import Path

import datasets
import evaluate
import pytest
import yaml
from huggingface_hub import DatasetCard, SpaceCard
from release_fixtures import LABELS, PACKAGE_SPEC, check, confquestions_copy, stage

from eviscope.core.errors import EviScopeError
from eviscope.core.registry import releasable
from eviscope.release.eval_results import eval_yaml_problems
from eviscope.release.stage import Release


def test_the_staged_release_passes_every_check_with_a_checksum_per_file(
    release: Release, built_dataset: Path, tmp_path: Path
) -> None:
    validation = check(release, tmp_path, confquestions_copy())

    assert validation.problems == []
    assert tuple(validation.files) == LABELS
    for repo in release.repos:
        staged = sorted(p.relative_to(repo.folder).as_posix() for p in repo.folder.rglob("*") if p.is_file())
        assert [entry.path for entry in validation.files[repo.label]] == staged
        for entry in validation.files[repo.label]:
            assert entry.sha256 == hashlib.sha256((repo.folder / entry.path).read_bytes()).hexdigest()
    parquet = {
        e.path: e.sha256 for e in validation.files["datasets/test/eviscope"] if e.path.endswith(".parquet")
    }
    built = {
        f"data/{config}/test.parquet": hashlib.sha256(
            (built_dataset / "data" / config / "test.parquet").read_bytes()
        ).hexdigest()
        for config in releasable()
    }
    assert parquet == built


def test_the_staged_dataset_loads_offline_with_its_declared_split_sizes(
    release: Release, tmp_path: Path
) -> None:
    folder = release.repo("benchmark").folder
    card = DatasetCard.load(folder / "README.md")
    declared = {info["config_name"]: info["splits"][0]["num_examples"] for info in card.data["dataset_info"]}
    assert set(declared) == set(releasable())
    for config in releasable():
        rows = datasets.load_dataset(str(folder), config, split="test", cache_dir=str(tmp_path))
        assert rows.num_rows == declared[config]
    assert declared["eviscope-v1.1"] == declared["eviscope-v1"] == 160
    assert (
        declared["eviscope-xl"] % 4 == 0 and declared["eviscope-xl"] >= 4 * 300
    )  # every quartet its sources allow


def test_the_staged_metric_spaces_load_offline_and_score(release: Release, tmp_path: Path) -> None:
    rows = datasets.load_dataset(
        str(release.repo("benchmark").folder), "eviscope-v1.1", split="test", cache_dir=str(tmp_path)
    )
    eviscope = evaluate.load(str(release.stage_dir / "spaces" / "eviscope_metric"))
    abstain_everywhere = [{"id": row["id"], "action": "abstain"} for row in rows]
    result = eviscope.compute(predictions=abstain_everywhere, references=list(rows))
    assert result["joint_success"] == 0.25  # the insufficient row of each quartet
    assert result["n_rows"] == 160

    forcebench = evaluate.load(str(release.stage_dir / "spaces" / "forcebench"))
    pair = {"evaluator": "judge", "prompt": "force_aware", "label_safe": "force_calibrated"}
    result = forcebench.compute(
        predictions=[
            {"id": "fb-1", **pair, "label_raised": "force_gap"},
            {"id": "fb-2", **pair, "label_raised": "force_calibrated"},
        ],
        references=[
            {"id": "fb-1", "axis": "modality", "severity": 2},
            {"id": "fb-2", "axis": "scope", "severity": 1},
        ],
    )
    assert (result["mvr"], result["fs"]) == (0.5, 0.5)


def test_eval_yaml_registers_benchmark_tasks_on_released_configs(release: Release) -> None:
    folder = release.repo("benchmark").folder
    document = yaml.safe_load((folder / "eval.yaml").read_text(encoding="utf-8"))
    declared = {c["config_name"]: c for c in DatasetCard.load(folder / "README.md").data["configs"]}

    assert document["name"] == "EviScope"
    assert "test/eviscope" in document["description"]
    assert [task["id"] for task in document["tasks"]] == [
        "joint_success",
        "quartet_consistency",
        "joint_success_xl",
        "force_sensitivity",
    ]
    for task in document["tasks"]:
        assert set(task) == {"id", "config", "split"}  # as the hub's documentation lists them
        assert task["split"] in {f["split"] for f in declared[task["config"]]["data_files"]}
    assert document["evaluation_framework"] == "eviscope"
    assert eval_yaml_problems((folder / "eval.yaml").read_text(encoding="utf-8")) == []


def test_eval_yaml_schema_refuses_what_the_documentation_does_not_list() -> None:
    text = "name: X\ndescription: Y\ntasks:\n- {id: a, name: A, config: c, split: test}\n"
    assert eval_yaml_problems(text) == [
        "eval.yaml: evaluation_framework: Field required",
        "eval.yaml: tasks.0.name: Extra inputs are not permitted",
    ]
    assert eval_yaml_problems("name: X\ndescription: Y\nevaluation_framework: e\ntasks: []\n") == [
        "eval.yaml: no tasks"
    ]


def test_spaces_install_the_released_package(release: Release) -> None:
    for name in ("eviscope_metric", "forcebench", "eviscope-browser"):
        lines = (release.stage_dir / "spaces" / name / "requirements.txt").read_text().splitlines()
        assert lines[0] == f"eviscope[space] @ {PACKAGE_SPEC}"
        assert [line for line in lines if line.startswith("eviscope")] == [lines[0]]
        assert not any(line.startswith("#") for line in lines)


def test_every_space_declares_its_python_and_pins_the_gradio_of_its_sdk(release: Release) -> None:
    """The Hub installs ``gradio==sdk_version`` beside requirements.txt, on ``python_version``
    (default 3.10, which eviscope does not support)."""
    spaces = [repo for repo in release.repos if repo.repo_type == "space"]
    cards = [SpaceCard.load(repo.folder / "README.md").data for repo in spaces]
    assert len(spaces) == 3
    for repo, card in zip(spaces, cards, strict=True):
        assert tuple(map(int, str(card["python_version"]).split("."))) >= (3, 11), repo.label
        pins = [line for line in (repo.folder / "requirements.txt").read_text().splitlines() if "==" in line]
        assert f"gradio=={card['sdk_version']}" in pins, repo.label
        assert not (repo.folder / "eviscope.py").exists()  # it would shadow the package
    assert len({(c["python_version"], c["sdk_version"]) for c in cards}) == 1


def test_the_browser_space_reads_the_released_dataset_and_records_results_in_the_results_repo(
    release: Release, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = release.repo("browser").folder
    for variable in ("EVISCOPE_SPACE_DATASET", "EVISCOPE_SPACE_RESULTS_REPO", "GRADIO_SERVER_NAME"):
        monkeypatch.setenv(variable, "")  # restored after the test, whatever the launcher sets
        monkeypatch.delenv(variable)
    app = runpy.run_path(str(folder / "eviscope_space.py"), run_name="eviscope_space")
    seen: list = []
    monkeypatch.setitem(
        sys.modules, "eviscope_space", types.SimpleNamespace(main=lambda: seen.append(app["parse_args"]([])))
    )

    runpy.run_path(str(folder / "app.py"), run_name="__main__")

    (args,) = seen
    assert (args.dataset, args.results_repo, args.host) == (
        "test/eviscope",
        "test/eviscope-results",
        "0.0.0.0",
    )
    assert SpaceCard.load(folder / "README.md").data["datasets"] == ["test/eviscope", "test/eviscope-results"]
    monkeypatch.setenv("EVISCOPE_SPACE_DATASET", "someone/else")  # a Space variable wins over the default
    runpy.run_path(str(folder / "app.py"), run_name="__main__")
    assert seen[1].dataset == "someone/else"


def test_the_dataset_card_declares_only_the_staged_configs_and_loads_from_the_hub(
    built_dataset: Path, tmp_path: Path
) -> None:
    release = stage(built_dataset, tmp_path / "stage", configs=("eviscope-v1.1", "forcebench"))
    folder = release.repo("benchmark").folder
    card = DatasetCard.load(folder / "README.md")

    assert [c["config_name"] for c in card.data["configs"]] == ["eviscope-v1.1", "forcebench"]
    assert [c["config_name"] for c in card.data["dataset_info"]] == ["eviscope-v1.1", "forcebench"]
    assert sorted(p.name for p in (folder / "data").iterdir()) == ["eviscope-v1.1", "forcebench"]
    assert 'load_dataset("test/eviscope", "eviscope-v1.1", split="test")' in card.text
    assert 'load_dataset("dataset"' not in card.text


def test_staging_replaces_a_previous_stage_and_refuses_any_other_folder(
    built_dataset: Path, tmp_path: Path
) -> None:
    stage_dir = tmp_path / "stage"
    stage(built_dataset, stage_dir)
    stale = stage_dir / "spaces" / "eviscope_metric" / "stale.txt"
    stale.write_text("left over")
    stage(built_dataset, stage_dir)
    assert not stale.exists()

    other = tmp_path / "mine"
    other.mkdir()
    (other / "notes.txt").write_text("keep me")
    with pytest.raises(EviScopeError, match="not empty"):
        stage(built_dataset, other)
    assert (other / "notes.txt").read_text() == "keep me"


def test_load_dataset_with_no_config_name_loads_eviscope_v1_1(release: Release, tmp_path: Path) -> None:
    folder = release.repo("benchmark").folder
    card = DatasetCard.load(folder / "README.md")

    rows = datasets.load_dataset(str(folder), split="test", cache_dir=str(tmp_path))

    assert [c["config_name"] for c in card.data["configs"] if c.get("default")] == ["eviscope-v1.1"]
    assert rows.num_rows == 160
    assert rows[0]["id"] == "q01-sufficient"
    expected = datasets.load_dataset(str(folder), "eviscope-v1.1", split="test", cache_dir=str(tmp_path))
    assert rows["conflict_answer"] == expected["conflict_answer"]  # v1.1's, not the legacy v1's
    legacy = datasets.load_dataset(str(folder), "eviscope-v1", split="test", cache_dir=str(tmp_path))
    assert rows["documents"] != legacy["documents"]


def test_each_config_carries_its_licence_and_source_in_the_card_header(release: Release) -> None:
    card = DatasetCard.load(release.repo("benchmark").folder / "README.md")
    provenance = {entry["config_name"]: entry for entry in card.data["provenance"]}

    assert card.data["license"] == "other"  # the configs are under different terms
    assert sorted(provenance) == sorted(release.configs)
    assert {provenance[c]["license"] for c in ("eviscope-v1", "eviscope-v1.1")} == {"cc-by-sa-4.0"}
    # eviscope-xl mixes question sources under different terms: each row's source_license names its own
    assert provenance["eviscope-xl"]["license"] == "other"
    assert "source_license" in provenance["eviscope-xl"]["license_details"]
    assert provenance["forcebench"]["license"] == "other"
    assert provenance["forcebench"]["source_datasets"] == [
        "osunlp/AttributionBench",
        "copenlu/scientific-exaggeration-detection",
    ]
    # the share-alike and copyleft rows of the human-claim sources are named in the header (issue 33)
    assert all(terms in provenance["forcebench"]["license_details"] for terms in ("GPL-3.0", "CC BY-SA 3.0"))
    for key in ("eviscope_suite", "eviscope_paper", "forcebench_paper", "ragonite_paper"):
        assert f"{{{key}," in card.text
