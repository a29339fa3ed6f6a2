"""Hand-built ForceBench rows shared by the ForceBench tests (no source data needed)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def attributionbench_dir() -> Path:
    """The AttributionBench copy: ``$EVISCOPE_ATTRIBUTIONBENCH``, else ``../shared/data/...``."""
    return Path(
        os.environ.get("EVISCOPE_ATTRIBUTIONBENCH", REPO.parent / "shared/data/attribution/attributionbench")
    )


def require_attributionbench() -> Path:
    path = attributionbench_dir()
    if not any(path.glob("*.jsonl")):
        pytest.skip(f"AttributionBench not found at {path}; set EVISCOPE_ATTRIBUTIONBENCH to a copy")
    return path


def human_sources() -> dict:
    """The human-claim sources (issue 33) named by their ``EVISCOPE_<NAME>`` variables; a source not
    named is left out of the build, as ``eviscope build`` leaves it out."""
    from eviscope.builders.forcebench.human import HUMAN_SOURCES
    from eviscope.core.sources import resolve

    return {
        spec.name: resolve(spec.name, None) if os.environ.get(f"EVISCOPE_{spec.name.upper()}") else None
        for spec in HUMAN_SOURCES
    }


def make_row(row_id: str, axis: str, calibrated: str, raised: str, **extra: object) -> dict:
    """A ForceBench row whose evidence is the calibrated claim inside a short passage."""
    evidence = f"Background sentence. {calibrated} Closing sentence."
    row = {
        "id": row_id,
        "axis": axis,
        "severity": 2,
        "context": "What does the passage say?",
        "evidence": evidence,
        "evidence_span": calibrated,
        "calibrated_claim": calibrated,
        "raised_claim": raised,
        "repair": "Restore the limiter.",
        "rationale": "The raised claim exceeds the evidence.",
        "source": "AttributionBench/Test:Test_1",
        "annotation_status": "drafted",
        "claim_source": "attribution_claim",
        "raised_source": "edit",
        "source_license": "Apache-2.0",
        "pair_type": "contrast",
        "split": "pool",
    }
    row.update(extra)
    return row


PAIRS = [
    (
        "relation",
        "Smoking is associated with lung cancer in adults.",
        "Smoking causes lung cancer in adults.",
    ),
    (
        "modality",
        "Coffee may reduce fatigue in shift workers.",
        "Coffee will reduce fatigue in shift workers.",
    ),
    (
        "scope",
        "Some patients in Ohio recovered within a week.",
        "All patients in Ohio recovered within a week.",
    ),
    ("temporal", "As of 2019, New Jersey has nine casinos.", "Currently, New Jersey has nine casinos."),
    (
        "numeric",
        "Ebola's R0 typically sits around 1.5 to 2.0 in Africa.",
        "Ebola's R0 typically sits around 2.0 in Africa.",
    ),
]


def sample_rows() -> list[dict]:
    """Ten rows, two per axis, each a pair that passes every drafting lint."""
    rows = []
    for i, (axis, calibrated, raised) in enumerate(PAIRS * 2):
        rows.append(make_row(f"fb-{i:04d}", axis, calibrated, raised, severity=1 + i % 3))
    return rows
