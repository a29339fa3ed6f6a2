"""The ForceBench drafting builder on the real AttributionBench files, and its error messages."""

from __future__ import annotations

import csv
import json
import os
import re
from collections import Counter
from pathlib import Path

import pytest
from datasets import load_dataset
from forcebench_fixtures import REPO, require_attributionbench

from eviscope.builders.forcebench.drafting import build_forcebench
from eviscope.core.errors import EviScopeError
from eviscope.core.normalize import contains, norm
from eviscope.core.sources import resolve
from eviscope.suites.forcebench.annotation import (
    apply_adjudication,
    export_sheet,
    locality_filter,
    read_sheet,
)
from eviscope.suites.forcebench.baselines import baseline_predictions
from eviscope.suites.forcebench.lints import DRAFT_LINTS, failed_lints
from eviscope.suites.forcebench.rows import AXES, CLAIM_SOURCES, FORCEBENCH_FEATURES, read_rows
from eviscope.suites.forcebench.scoring import score_units, units_from_predictions


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
    from_claims = [row for row in rows if row["claim_source"] == "attribution_claim"]
    assert len(from_claims) / len(rows) >= 0.7
    assert {row["claim_source"] for row in rows} <= set(CLAIM_SOURCES)
    assert report["claim_source"] == {
        axis: {cs: sum(r["axis"] == axis and r["claim_source"] == cs for r in rows) for cs in CLAIM_SOURCES}
        for axis in AXES
    }
    assert {row["annotation_status"] for row in rows} == {"drafted"}
    assert report["rows"] == len(rows)
    assert report["axis"] == {axis: per_axis[axis] for axis in AXES}
    assert report["annotation_status"] == {"drafted": len(rows)}
    assert len({row["id"] for row in rows}) == len(rows)
    assert set(report["source"]["files"]) == {p.name for p in require_attributionbench().glob("*.jsonl")}
    json.dumps(report)  # the report is JSON-able


def test_the_build_table_counts_each_claim_source_per_axis(built: tuple[Path, dict]) -> None:
    from rich.console import Console

    from eviscope.builders.forcebench.entry import BUILDER as FORCEBENCH

    _, report = built
    console = Console(width=80, record=True, file=open(os.devnull, "w"))  # noqa: SIM115
    console.print(*FORCEBENCH.summary(report))
    lines = console.export_text().splitlines()
    assert all(len(line) <= 80 for line in lines)
    assert any(re.search(r"axis .* pairs .* attribution_claim .* evidence_sentence", line) for line in lines)
    rows = read_rows(built[0])
    for axis in (*AXES, "all"):
        counts = [int(n) for n in re.findall(r"\d+", next(line for line in lines if f" {axis} " in line))]
        of_axis = [r for r in rows if axis in ("all", r["axis"])]
        assert counts == [
            len(of_axis),
            *(sum(r["claim_source"] == cs for r in of_axis) for cs in CLAIM_SOURCES),
        ]


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


def test_cited_claims_are_the_claims_of_their_source_rows_not_the_evidence(built: tuple[Path, dict]) -> None:
    rows = read_rows(built[0])
    source = {}
    for path in sorted(require_attributionbench().glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            source[row["id"]] = row
    from_claims = [row for row in rows if row["claim_source"] == "attribution_claim"]
    for row in from_claims:
        original = source[row["source"].split(":", 1)[1]]
        assert original["attribution_label"] == "attributable"
        # the calibrated claim is a sentence of the cited claim (citation markers dropped)
        claim = re.sub(r"\s*\[[\d,\s–-]+\]", "", original["claim"])
        assert contains(claim, row["calibrated_claim"].rstrip(".")), row["id"]
    # most cited claims paraphrase their span rather than copy it
    verbatim = sum(norm(row["calibrated_claim"]) == norm(row["evidence_span"]) for row in from_claims)
    assert verbatim < len(from_claims) / 2
    for row in rows:
        if row["claim_source"] == "evidence_sentence":
            assert row["calibrated_claim"] == row["evidence_span"]


def test_the_report_counts_what_each_lint_removed_per_axis(built: tuple[Path, dict]) -> None:
    _, report = built
    for claim_source in CLAIM_SOURCES:
        stats = report["drafting"][claim_source]
        assert set(stats["removed_by_lint"]) == set(DRAFT_LINTS)
        for axis in AXES:
            removed = max(stats["removed_by_lint"][name][axis] for name in DRAFT_LINTS)
            assert stats["drafts"][axis] - stats["passing"][axis] >= removed
            assert stats["kept"][axis] <= stats["distinct"][axis] <= stats["passing"][axis]
    claims = report["drafting"]["attribution_claim"]["removed_by_lint"]
    assert sum(claims["span_licenses_marker"].values()) > 0  # real claims do not all match their span


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


def test_the_annotation_workflow_keeps_claim_rows_and_their_claim_source(
    built: tuple[Path, dict], tmp_path: Path
) -> None:
    rows = read_rows(built[0])
    sheet = export_sheet(rows, tmp_path / "sheet.csv")
    with sheet.open(newline="", encoding="utf-8") as handle:
        exported = list(csv.DictReader(handle))
    assert [r["claim_source"] for r in exported] == [r["claim_source"] for r in rows]
    for name in ("a", "b"):
        with (tmp_path / f"{name}.csv").open("w", newline="", encoding="utf-8") as handle:
            writer = csv.DictWriter(handle, fieldnames=list(exported[0]))
            writer.writeheader()
            writer.writerows({**r, "annotation_decision": "accept_force_gap"} for r in exported)
    a, b = read_sheet(tmp_path / "a.csv", rows), read_sheet(tmp_path / "b.csv", rows)
    settled = apply_adjudication(rows, a, b, {})
    kept, removed = locality_filter(settled.rows)
    assert removed == {}
    assert {r["id"]: r["claim_source"] for r in kept} == {r["id"]: r["claim_source"] for r in rows}
    assert {r["annotation_status"] for r in kept} == {"annotated"}


def test_the_card_states_the_built_claim_sources(built: tuple[Path, dict]) -> None:
    _, report = built
    text = " ".join((REPO / "dataset" / "README.md").read_text(encoding="utf-8").split())
    for axis, counts in report["claim_source"].items():
        row = f"| {axis} | {sum(counts.values())} | {counts['attribution_claim']} | {counts['evidence_sentence']} |"
        assert row in text, row
    claims = sum(c["attribution_claim"] for c in report["claim_source"].values())
    assert f"| all | {report['rows']} | {claims} ({100 * claims / report['rows']:.1f}%) |" in text
