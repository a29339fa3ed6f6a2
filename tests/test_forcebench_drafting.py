"""The ForceBench drafting builder on the real AttributionBench files, and its error messages."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from datasets import load_dataset
from forcebench_fixtures import require_attributionbench

from eviscope.builders.forcebench_drafting import build_forcebench
from eviscope.errors import EviScopeError
from eviscope.forcebench.baselines import baseline_predictions
from eviscope.forcebench.lints import DRAFT_LINTS, failed_lints
from eviscope.forcebench.rows import AXES, FORCEBENCH_FEATURES, read_rows
from eviscope.forcebench.scoring import score_units, units_from_predictions
from eviscope.sources import resolve


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict]:
    source = resolve("attributionbench", str(require_attributionbench()))
    out = tmp_path_factory.mktemp("forcebench")
    return out, build_forcebench(source, out)


def test_the_drafted_pool_reaches_its_targets(built: tuple[Path, dict]) -> None:
    out, report = built
    rows = read_rows(out)
    per_axis = Counter(row["axis"] for row in rows)
    assert len(rows) >= 200
    assert set(per_axis) == set(AXES)
    assert min(per_axis.values()) >= 30
    assert {row["annotation_status"] for row in rows} == {"drafted"}
    assert report["rows"] == len(rows)
    assert report["axis"] == {axis: per_axis[axis] for axis in AXES}
    assert report["annotation_status"] == {"drafted": len(rows)}
    assert len({row["id"] for row in rows}) == len(rows)
    assert set(report["source"]["files"]) == {p.name for p in require_attributionbench().glob("*.jsonl")}
    json.dumps(report)  # the report is JSON-able


def test_every_drafted_row_passes_the_locality_lints(built: tuple[Path, dict]) -> None:
    out, report = built
    rows = read_rows(out)
    failing = {row["id"]: failed_lints(row) for row in rows if failed_lints(row)}
    assert failing == {}
    assert report["lints_passed"] == dict.fromkeys(DRAFT_LINTS, len(rows))
    for row in rows:
        assert row["severity"] in (1, 2, 3)
        assert row["source"].startswith("AttributionBench/")
        assert row["evidence_span"] in row["evidence"]


def test_two_builds_are_byte_identical(built: tuple[Path, dict], tmp_path: Path) -> None:
    out, _ = built
    build_forcebench(resolve("attributionbench", str(require_attributionbench())), tmp_path)
    relative = Path("data/forcebench/test.parquet")
    assert (tmp_path / relative).read_bytes() == (out / relative).read_bytes()


def test_the_parquet_loads_with_the_forcebench_features(built: tuple[Path, dict], tmp_path: Path) -> None:
    out, report = built
    data = load_dataset(
        "parquet",
        data_files=str(out / "data/forcebench/test.parquet"),
        split="train",
        cache_dir=str(tmp_path),
    )
    assert data.features == FORCEBENCH_FEATURES
    assert data.num_rows == report["rows"]


def test_citation_presence_gives_mvr_1_and_fs_0_on_the_built_rows(built: tuple[Path, dict]) -> None:
    rows = read_rows(built[0])
    result = score_units(units_from_predictions(rows, baseline_predictions(rows, ["citation_presence"])))
    assert (result["mvr"], result["fs"], result["n"]) == (1.0, 0.0, len(rows))


def test_a_missing_folder_names_the_source_and_how_to_point(tmp_path: Path) -> None:
    source = resolve("attributionbench", str(tmp_path / "nowhere"))
    with pytest.raises(EviScopeError, match=r"nowhere.*--attributionbench PATH or EVISCOPE_ATTRIBUTIONBENCH"):
        build_forcebench(source, tmp_path / "out")


def test_a_malformed_file_names_file_line_and_field(tmp_path: Path) -> None:
    good = {
        "id": "X_1",
        "question": "q",
        "claim": "c",
        "references": ["r"],
        "attribution_label": "attributable",
        "src_dataset": "X",
    }
    (tmp_path / "a.jsonl").write_text(
        json.dumps(good) + "\n" + json.dumps({**good, "references": "r"}) + "\n"
    )
    with pytest.raises(EviScopeError, match=r"a.jsonl:2: field 'references'"):
        build_forcebench(resolve("attributionbench", str(tmp_path)), tmp_path / "out")
    (tmp_path / "a.jsonl").write_text("{not json\n")
    with pytest.raises(EviScopeError, match=r"a.jsonl:1: not a JSON object"):
        build_forcebench(resolve("attributionbench", str(tmp_path)), tmp_path / "out")
