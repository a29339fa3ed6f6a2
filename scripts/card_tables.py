"""Rewrite the EviScope card's audit and source tables from a build report, so that no figure of them
is typed by hand.

    python scripts/card_tables.py [DATASET_DIR]      # default: dataset (its build_report.json and README.md)

The tables are found by their header rows and replaced whole: the rules of believability (what each
removes), the shortcut audit and the surface audit
(held-out accuracy per config, rows with more than one document / all rows) and the question sources
of ``eviscope-xl`` (questions, eligible questions, quartets, and the largest margin of each audit over
the majority rate on that source's rows alone, and ``lexical``'s conflict accuracy / joint success on
them, or how many quartets a source left out would have given). The tests check the card's tables
against the report of the build they make.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

CONFIGS = ("eviscope-v1", "eviscope-v1.1", "eviscope-xl")
SOURCE_NAMES = {
    "squad-dev": "SQuAD v1.1 dev",
    "squad-train": "SQuAD v1.1 train, its first 44 articles",
    "tydiqa-goldp-en": "TyDi QA GoldP, English train and dev",
    "squadshifts-new-wiki": "SQuAD-shifts, New Wikipedia",
    "mlqa-en-dev": "MLQA, English dev",
}


def _audit_table(report: dict, key: str, first: str) -> list[str]:
    configs = report["configs"]
    features = ["majority action", *configs["eviscope-xl"][key]["features"]]
    lines = [
        f"| {first} | " + " | ".join(f"`{c}`" for c in CONFIGS) + " |",
        "| --- |" + " --- |" * len(CONFIGS),
    ]
    for feature in features:
        cells = []
        for config in CONFIGS:
            audit = configs[config][key]
            measured = audit["majority"] if feature == "majority action" else audit["features"][feature]
            cells.append(f"{measured['multi_document_rows']:.1%} / {measured['all_rows']:.1%}")
        lines.append(f"| {feature} | " + " | ".join(cells) + " |")
    return lines


def _lexical(dataset: Path) -> dict[str, str]:
    """``lexical``'s conflict accuracy / joint success on each source's rows of ``eviscope-xl``."""
    from eviscope.suites.eviscope.dataset import load_rows
    from eviscope.suites.eviscope.reference_systems import predict
    from eviscope.suites.eviscope.scoring import score

    rows = load_rows("eviscope-xl", dataset)
    predicted = dict(zip((row["id"] for row in rows), predict("lexical", rows), strict=True))
    scored = {}
    for source in sorted({row["source"] for row in rows}):
        own = [row for row in rows if row["source"] == source]
        overall = score(own, [predicted[row["id"]] for row in own]).overall
        scored[source] = f"{overall['conflict_accuracy']:.3f} / {overall['joint_success']:.3f}"
    return scored


def source_rows(report: dict, lexical: dict[str, str]) -> list[str]:
    """The question-sources table of ``eviscope-xl``."""
    xl = report["configs"]["eviscope-xl"]
    lines = [
        "| source | what | licence | questions | eligible | `eviscope-xl` quartets | held-out quartets "
        "| evidence-blind audit, most above majority | surface audit, most above majority "
        "| `lexical` conflict acc. / joint |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for name, source in report["sources"].items():
        left_out = xl.get("sources_left_out", {}).get(name)
        if left_out:
            quartets = f"0 (left out: {left_out['quartets']})"
            held = blind = surface = "–"
            lexical_cell = "–"
        else:
            blind_audit = xl["shortcut_audit"]["per_source"][name]
            quartets = f"{xl['per_source'][name]:,}"
            held = str(blind_audit["held_out_quartets"])
            blind = f"{blind_audit['max_gain_multi_document']:+.1f} pt"
            surface = f"{xl['surface_audit']['per_source'][name]['max_gain_multi_document']:+.1f} pt"
            lexical_cell = lexical[name]
        lines.append(
            f"| `{name}` | {SOURCE_NAMES[name]} | {source['license']} | {source['questions_scanned']:,} "
            f"| {source['eligible_questions']:,} | {quartets} | {held} | {blind} | {surface} | {lexical_cell} |"
        )
    return lines


def rule_rows(report: dict) -> list[str]:
    """The rules of believability: SQuAD dev's questions each leaves out or gives another alternative,
    and the quartets of ``eviscope-v1.1`` and ``eviscope-xl`` it removes from their draws."""
    lines = [
        "| rule | questions left out | questions given another alternative | `eviscope-v1.1` quartets removed "
        "| `eviscope-xl` quartets removed |",
        "| --- | --- | --- | --- | --- |",
    ]
    counts = report["believability"]["questions"]
    for rule in counts:
        drawn = [report["configs"][c]["believability"]["rules"][rule]["removed"] for c in CONFIGS[1:]]
        cells = [counts[rule]["removed"], counts[rule]["replaced"], *drawn]
        lines.append(f"| `{rule}` | " + " | ".join(map(str, cells)) + " |")
    return lines


def tables(report: dict, lexical: dict[str, str]) -> dict[str, list[str]]:
    """Each table by the start of its header row."""
    return {
        "| rule | questions left out |": rule_rows(report),
        "| evidence-blind feature |": _audit_table(report, "shortcut_audit", "evidence-blind feature"),
        "| string feature |": _audit_table(report, "surface_audit", "string feature"),
        "| source | what | licence |": source_rows(report, lexical),
    }


def rewrite(card: str, report: dict, lexical: dict[str, str]) -> str:
    """``card`` with each table of :func:`tables` replaced by the report's."""
    lines = card.split("\n")
    for header, table in tables(report, lexical).items():
        start = next(i for i, line in enumerate(lines) if line.startswith(header))
        end = next(i for i in range(start, len(lines)) if not lines[i].startswith("|"))
        lines[start:end] = table
    return "\n".join(lines)


def main(argv: list[str]) -> None:
    dataset = Path(argv[0] if argv else "dataset")
    report = json.loads((dataset / "build_report.json").read_text())["eviscope"]
    card = dataset / "README.md"
    card.write_text(rewrite(card.read_text(), report, _lexical(dataset)))


if __name__ == "__main__":
    main(sys.argv[1:])
