"""The card's table of where each source's claims are lost (the build report's ``funnel``).

    python -m eviscope.builders.forcebench.funnel BUILD_REPORT.json   # prints the table

The card prints this table as the build report gives it, so that none of its figures is typed by
hand; the tests compare the card's table with the one the build they make gives.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from eviscope.suites.forcebench.rows import AXES

__all__ = ["SOURCE_ORDER", "funnel_table"]

SOURCE_ORDER = (
    "AttributionBench",
    "InSciOut",
    "VitaminC",
    "Check-COVID",
    "MissciPlus",
    "Citation-Integrity",
    "TimeQA",
)
"""The card's order of the sources (AttributionBench, then the human sources as the card lists them)."""

_HEADER = (
    "| source | claims | self-contained | with a marker | contrast drafts | largest losses (contrast drafts) "
    "| contrast kept | control drafts | controls kept |\n"
    "| --- | ---: | ---: | ---: | ---: | --- | ---: | ---: | ---: |"
)


def _kept(steps: Mapping[str, Any]) -> str:
    total = sum(steps["kept"].values())
    per_axis = " ".join(f"{axis[:3]} {n}" for axis, n in steps["kept"].items() if n)
    return f"{total} ({per_axis})" if total else "0"


def funnel_table(funnel: Mapping[str, Any], losses: int = 3) -> str:
    """The Markdown table of ``funnel`` (a build report's ``funnel``): per source the claims read, the
    self-contained ones, those with a marker, the contrast drafts, the ``losses`` reasons that removed
    most of them, the contrast pairs kept (per axis), the control drafts and the controls kept."""
    lines = [_HEADER]
    for name in sorted(
        funnel, key=lambda n: (SOURCE_ORDER.index(n) if n in SOURCE_ORDER else len(SOURCE_ORDER), n)
    ):
        entry = funnel[name]
        contrast, controls = entry["contrast"], entry["licensed"]
        top = sorted(contrast["removed"].items(), key=lambda item: -sum(item[1].values()))[:losses]
        lost = ", ".join(f"`{reason}` {sum(n.values())}" for reason, n in top) or "–"
        drafts = sum(contrast["drafts"][axis] for axis in AXES)
        control_drafts = sum(controls["drafts"][axis] for axis in AXES)
        lines.append(
            f"| {name} | {entry['claims']} | {entry['eligible']} | {entry['with_marker']} | {drafts} | {lost} "
            f"| {_kept(contrast)} | {control_drafts} | {sum(controls['kept'].values())} |"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    report = json.loads(Path(sys.argv[1]).read_text(encoding="utf-8"))
    print(funnel_table(report.get("forcebench", report)["funnel"]))
