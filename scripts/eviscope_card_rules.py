"""Write the dataset card's generated EviScope sections from a build report: the rules of believability
(their declarations, builders/eviscope/rules.py) and their counts, and which eviscope-v1.1 rows the
rule that a passage stands alone replaced.

    python scripts/eviscope_card_rules.py BUILD_DIR/build_report.json [dataset/README.md]

The sections stand between ``<!-- NAME -->`` and ``<!-- /NAME -->`` markers; the test of the committed
card (tests/test_eviscope_build.py) renders them from the same report, so a hand edit fails there.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from eviscope.builders.eviscope.rules import render_card


def main(argv: list[str]) -> int:
    report = json.loads(Path(argv[0]).read_text(encoding="utf-8"))["eviscope"]
    card = Path(argv[1]) if len(argv) > 1 else Path(__file__).resolve().parents[1] / "dataset" / "README.md"
    card.write_text(render_card(card.read_text(encoding="utf-8"), report), encoding="utf-8")
    print(f"wrote the generated sections of {card}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
