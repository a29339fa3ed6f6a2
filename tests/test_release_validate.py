"""A staged release with a fault is reported, one line naming the repository and file, and never pushed."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hub_server import FAKE_TOKEN, FakeHub
from huggingface_hub import DatasetCard, SpaceCard
from release_fixtures import check, release_args, stage

from eviscope.cli import main
from eviscope.core.registry import Config, benchmark
from eviscope.core.sources import Source

"""Shaped like a Hugging Face token (built here so that no token-shaped literal sits in the source)."""


def _edit_card(path: Path, card_class: type[DatasetCard] | type[SpaceCard], edit) -> None:
    card = card_class.load(path)
    edit(card)
    path.write_text(str(card), encoding="utf-8")


def test_a_wrong_split_size_is_reported(built_dataset: Path, tmp_path: Path) -> None:
    release = stage(built_dataset, tmp_path / "stage")

    def declare_161(card: DatasetCard) -> None:
        info = next(i for i in card.data["dataset_info"] if i["config_name"] == "eviscope-v1.1")
        info["splits"][0]["num_examples"] = 161

    _edit_card(release.repo("benchmark").folder / "README.md", DatasetCard, declare_161)

    assert check(release, tmp_path).problems == [
        "datasets/test/eviscope/data/eviscope-v1.1/test.parquet: 160 rows, but README.md declares 161 "
        "for eviscope-v1.1/test"
    ]


def test_a_planted_token_is_reported_without_repeating_it(built_dataset: Path, tmp_path: Path) -> None:
    release = stage(built_dataset, tmp_path / "stage")
    app = release.repo("browser").folder / "app.py"
    lines = app.read_text().splitlines()
    app.write_text("\n".join([*lines[:3], f"# debugging with {FAKE_TOKEN}", *lines[3:]]) + "\n")

    problems = check(release, tmp_path).problems

    assert problems == ["spaces/test/eviscope-browser/app.py:4: looks like a Hugging Face token; remove it"]


def test_confquestions_content_is_reported_in_data_and_cards(built_dataset: Path, tmp_path: Path) -> None:
    copy = tmp_path / "confquestions"
    (copy / "documents").mkdir(parents=True)
    page = {
        "id": "confluence-042",
        "title": "OpenXT Measured Launch Walkthrough",
        "url": "https://openxt.atlassian.net/wiki/spaces/DC/pages/42/OpenXT+Measured+Launch+Walkthrough",
        "content": "<p>Owned by someone</p>",
    }
    (copy / "documents" / "confluence-042.json").write_text(json.dumps(page))
    release = stage(built_dataset, tmp_path / "stage")
    data = release.repo("benchmark").folder / "data" / "forcebench" / "test.parquet"
    table = pq.read_table(data)
    rows = table.to_pylist()
    rows[4]["evidence"] += " See OpenXT Measured Launch Walkthrough for the steps."
    pq.write_table(pa.Table.from_pylist(rows, schema=table.schema), data)
    card = release.stage_dir / "spaces" / "forcebench" / "README.md"
    card.write_text(card.read_text() + "\nAdapted from confluence-042.\n")

    problems = check(release, tmp_path, confquestions=copy).problems

    assert problems == [
        "datasets/test/eviscope/data/forcebench/test.parquet row 5: ConfQuestions content "
        "(page title 'OpenXT Measured Launch Walkthrough'); it is never released",
        f"spaces/test/forcebench/README.md:{card.read_text().count(chr(10))}: ConfQuestions content "
        "(page id 'confluence-042'); it is never released",
    ]


def test_a_confquestions_config_is_refused(built_dataset: Path, tmp_path: Path) -> None:
    release = stage(built_dataset, tmp_path / "stage")

    def declare_confquestions(card: DatasetCard) -> None:
        card.data["configs"].append(
            {
                "config_name": "confquestions",
                "data_files": [{"split": "test", "path": "data/confquestions/test.parquet"}],
            }
        )

    _edit_card(release.repo("benchmark").folder / "README.md", DatasetCard, declare_confquestions)

    assert check(release, tmp_path).problems == [
        "datasets/test/eviscope/README.md: declares config 'confquestions'; ConfQuestions is never released",
        "datasets/test/eviscope/README.md: config 'confquestions' names data/confquestions/test.parquet, "
        "which is not staged",
    ]


def test_cards_must_carry_licence_citation_and_provenance(built_dataset: Path, tmp_path: Path) -> None:
    release = stage(built_dataset, tmp_path / "stage")

    def drop_licence_and_a_source(card: DatasetCard) -> None:
        card.data["license"] = None
        card.data["source_datasets"] = ["rajpurkar/squad"]
        next(p for p in card.data["provenance"] if p["config_name"] == "eviscope-xl")["license"] = None

    _edit_card(release.repo("benchmark").folder / "README.md", DatasetCard, drop_licence_and_a_source)
    metric_card = release.stage_dir / "spaces" / "eviscope_metric" / "README.md"
    text = metric_card.read_text()
    metric_card.write_text(text[: text.index("## Citation")])

    assert check(release, tmp_path).problems == [
        "datasets/test/eviscope/README.md: no licence (`license:` in the card header)",
        "datasets/test/eviscope/README.md: `provenance` gives no licence and source (rajpurkar/squad) for "
        "config 'eviscope-xl'",
        "datasets/test/eviscope/README.md: no provenance for config 'forcebench': osunlp/AttributionBench "
        "is not in source_datasets",
        "spaces/test/eviscope_metric/README.md: no citation (a section titled Citation, or a BibTeX entry)",
    ]


def test_a_config_from_nothing_external_or_from_a_users_own_copy_is_checked_in_one_line(
    built_dataset: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A releasable config made from nothing external (no source) needs its licence in ``provenance``
    and no source dataset; one made from a user's own copy (a source with no hub dataset, never
    redistributed) is refused, naming the source."""
    release = stage(built_dataset, tmp_path / "stage")
    forcebench = type(benchmark("forcebench"))
    monkeypatch.setattr(forcebench, "configs", (Config("forcebench", None),))
    assert check(release, tmp_path).problems == []

    def drop_the_licence(card: DatasetCard) -> None:
        next(p for p in card.data["provenance"] if p["config_name"] == "forcebench")["license"] = None

    _edit_card(release.repo("benchmark").folder / "README.md", DatasetCard, drop_the_licence)
    assert check(release, tmp_path).problems == [
        "datasets/test/eviscope/README.md: `provenance` gives no licence for config 'forcebench'"
    ]

    own_copy = Source("attributionbench", "AttributionBench (folder of JSONL)", "--attributionbench",
                      "EVISCOPE_ATTRIBUTIONBENCH", None)  # fmt: skip
    monkeypatch.setattr(forcebench, "configs", (Config("forcebench", own_copy.name),))
    monkeypatch.setattr(forcebench, "sources", (own_copy,))
    assert check(release, tmp_path).problems == [
        "datasets/test/eviscope/README.md: config 'forcebench' is made from AttributionBench (folder of "
        "JSONL), a user's own copy that is never redistributed (no hub dataset); only a config with "
        "releasable=False may use it"
    ]


def test_a_failing_release_stops_before_anything_leaves_the_machine(
    built_dataset: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    dataset = tmp_path / "dataset"
    shutil.copytree(built_dataset, dataset)
    card = dataset / "README.md"
    card.write_text(card.read_text() + f"\nUploaded with {FAKE_TOKEN}.\n")
    hub = FakeHub()
    url = hub.start()
    monkeypatch.setenv("HF_TOKEN", FAKE_TOKEN)
    try:
        code = main(
            release_args(dataset, tmp_path / "stage", "--push", "--endpoint", url, "--skip-runtime-check")
        )
    finally:
        hub.stop()

    err = capsys.readouterr().err
    assert code == 2
    assert (
        f"datasets/test/eviscope/README.md:{card.read_text().count(chr(10))}: looks like a Hugging Face token"
        in err
    )
    assert "1 problem(s)" in err and "nothing was uploaded" in err
    assert FAKE_TOKEN not in err
    assert hub.requests == []
