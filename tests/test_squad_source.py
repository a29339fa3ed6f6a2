"""SQuAD read from the hub layout gives the same paragraphs and questions as the official JSON file."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from eviscope.core.sources import SourceRef
from eviscope.suites.eviscope.squad_source import load_squad


def test_hub_rows_and_json_file_agree(squad_path: Path, tmp_path: Path) -> None:
    # The hub dataset `rajpurkar/squad` has one row per question: id, title, context, question,
    # answers {text, answer_start}. A local folder in that layout stands in for the hub here.
    articles = json.loads(squad_path.read_text())["data"][:3]
    rows = [
        {
            "id": qa["id"],
            "title": article["title"],
            "context": paragraph["context"],
            "question": qa["question"],
            "answers": {
                "text": [a["text"] for a in qa["answers"]],
                "answer_start": [a["answer_start"] for a in qa["answers"]],
            },
        }
        for article in articles
        for paragraph in article["paragraphs"]
        for qa in paragraph["qas"]
    ]
    (tmp_path / "hub" / "data").mkdir(parents=True)
    pq.write_table(pa.Table.from_pylist(rows), tmp_path / "hub" / "data" / "validation-00000.parquet")
    small = tmp_path / "dev.json"
    small.write_text(json.dumps({"data": articles, "version": "1.1"}))

    from_hub = load_squad(SourceRef("squad", str(tmp_path / "hub"), "default", is_hub=True))
    from_file = load_squad(SourceRef("squad", str(small), "--squad", is_hub=False))
    assert from_hub.paragraphs == from_file.paragraphs
    assert from_hub.questions == from_file.questions
    assert from_hub.checksum.startswith("hub:") and from_file.checksum.startswith("sha256:")
    assert len(from_file.questions) == len(rows)
