"""The error exporter (paper §7): every failing quartet with its four rows side by side.

A quartet fails when any of its four rows does not succeed (it misses quartet consistency). Each
record holds the question, the gold answers, and per variant the expected and predicted action,
the answer, the citations and the row predicates; as JSONL (one quartet a line) and Markdown.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from eviscope.core.tables import markdown_table
from eviscope.suites.eviscope.predictions import Prediction
from eviscope.suites.eviscope.rows import VARIANTS
from eviscope.suites.eviscope.scoring import Scores

__all__ = ["errors_markdown", "failing_quartets", "write_error_export"]


def failing_quartets(
    rows: Sequence[Mapping[str, Any]], preds: Sequence[Prediction], scores: Scores
) -> list[dict[str, Any]]:
    """One record per quartet with at least one failing row, in quartet order."""
    r, q = scores.rows, scores.quartets
    records = []
    for k, quartet_id in enumerate(q.quartet_ids):
        if q.success[k].all():
            continue
        indices = q.row_index[k].tolist()
        first = rows[indices[0]]
        records.append(
            {
                "quartet_id": quartet_id,
                "question": first["question"],
                "answers": list(first["answers"]),
                "conflict_answer": rows[indices[VARIANTS.index("conflicting")]]["conflict_answer"],
                "failed_variants": [v for v, ok in zip(VARIANTS, q.success[k], strict=True) if not ok],
                "rows": {
                    variant: {
                        "id": rows[i]["id"],
                        "expected_action": rows[i]["expected_action"],
                        "action": preds[i].action,
                        "answer": preds[i].answer or "",
                        "citations": list(preds[i].citations or ()),
                        "supporting_doc_ids": list(rows[i]["supporting_doc_ids"]),
                        "conflicting_doc_ids": list(rows[i]["conflicting_doc_ids"]),
                        "answer_ok": bool(r.answer_ok[i]),
                        "source_ok": bool(r.source_ok[i]),
                        "success": bool(r.success[i]),
                    }
                    for variant, i in zip(VARIANTS, indices, strict=True)
                },
            }
        )
    return records


def _cell(value: Any) -> str:
    if isinstance(value, bool):
        return "✓" if value else "✗"
    if isinstance(value, list):
        value = ", ".join(value) if value else "—"
    text = "null" if value is None else str(value) or "—"
    return text.replace("|", "\\|").replace("\n", " ")


_MARKDOWN_FIELDS = (
    ("expected", "expected_action"),
    ("predicted", "action"),
    ("answer", "answer"),
    ("citations", "citations"),
    ("supporting docs", "supporting_doc_ids"),
    ("conflicting docs", "conflicting_doc_ids"),
    ("success", "success"),
)


def errors_markdown(records: Sequence[Mapping[str, Any]], title: str = "Failing quartets") -> str:
    """Each failing quartet as a heading and a table with one column per variant."""
    out = [f"# {title}", "", f"{len(records)} quartets with at least one failing row.", ""]
    for rec in records:
        out += [
            f"## {rec['quartet_id']}: {_cell(rec['question'])}",
            "",
            f"Gold: {_cell(rec['answers'])}; conflict answer: {_cell(rec['conflict_answer'])}; "
            f"failed: {', '.join(rec['failed_variants'])}",
            "",
            markdown_table(
                ["", *VARIANTS],
                [
                    [label, *(_cell(rec["rows"][v][field]) for v in VARIANTS)]
                    for label, field in _MARKDOWN_FIELDS
                ],
            ),
            "",
        ]
    return "\n".join(out)


def write_error_export(
    records: Sequence[Mapping[str, Any]], out_dir: Path, stem: str = "failing_quartets"
) -> tuple[Path, Path]:
    """Write ``<stem>.jsonl`` and ``<stem>.md`` into ``out_dir``."""
    out_dir.mkdir(parents=True, exist_ok=True)
    jsonl, markdown = out_dir / f"{stem}.jsonl", out_dir / f"{stem}.md"
    jsonl.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    markdown.write_text(errors_markdown(records), encoding="utf-8")
    return jsonl, markdown
