"""Hand-built EviScope rows and predictions whose every contract §4 metric is known (see HAND_VALUES)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from datasets import Dataset

from eviscope.core.datafiles import CHECKSUM_KEY
from eviscope.core.io import file_sha256
from eviscope.suites.eviscope.rows import EVISCOPE_FEATURES, EXPECTED_ACTION, VARIANTS, row_id


def quartet(n: int, answer: str, conflict_answer: str) -> list[dict[str, Any]]:
    """The four rows of quartet ``q<n>``: support ``sup<n>``, noise ``n<n>a``/``n<n>b``,
    same-article passage ``same<n>`` and conflict passage ``con<n>``."""
    qid = f"q{n}"
    sentence = f"The event number {n} happened in {answer} after long delays."
    docs = {
        "sup": {"doc_id": f"sup{n}", "title": f"Article {n}", "text": f"Intro {n}. {sentence} More text."},
        "na": {"doc_id": f"n{n}a", "title": "Other A", "text": f"Unrelated passage {n} about rivers."},
        "nb": {"doc_id": f"n{n}b", "title": "Other B", "text": f"Unrelated passage {n} about music."},
        "same": {"doc_id": f"same{n}", "title": f"Article {n}", "text": "Crowds gathered for the parade."},
        "con": {
            "doc_id": f"con{n}",
            "title": f"Article {n}",
            "text": f"Intro {n}. {sentence.replace(answer, conflict_answer)} More text.",
        },
    }
    shown = {
        "sufficient": ["sup"],
        "noisy": ["na", "sup", "nb"],
        "insufficient": ["na", "same", "nb"],
        "conflicting": ["con", "sup"],
    }
    rows = []
    for variant in VARIANTS:
        has_support = "sup" in shown[variant]
        rows.append(
            {
                "id": row_id(qid, variant),
                "quartet_id": qid,
                "variant": variant,
                "question": f"When did event {n} happen?",
                "source_id": f"squad-{n}",
                "source": "squad-dev",
                "source_license": "CC BY-SA 4.0",
                "title": f"Article {n}",
                "documents": [docs[k] for k in shown[variant]],
                "answers": [answer],
                "expected_action": EXPECTED_ACTION[variant],
                "answerable": EXPECTED_ACTION[variant] == "answer",
                "supporting_doc_ids": [f"sup{n}"] if has_support else [],
                "conflicting_doc_ids": [f"con{n}"] if variant == "conflicting" else [],
                "support_spans": [{"doc_id": f"sup{n}", "text": sentence}] if has_support else [],
                "conflict_answer": conflict_answer if variant == "conflicting" else "",
                "near_duplicate": "conflict" if variant == "conflicting" else "none",
            }
        )
    return rows


def hand_rows() -> list[dict[str, Any]]:
    """Four quartets (16 rows) in contract §2 form."""
    rows = quartet(1, "2010", "2012") + quartet(2, "Denver Broncos", "Carolina Panthers")
    rows += quartet(3, "1066", "1067") + quartet(4, "Paris", "Lyon")
    for row in rows[4:8]:  # q2 rows carry two aliases
        row["answers"] = ["Denver Broncos", "Broncos"]
    return rows


def hand_predictions() -> list[dict[str, Any]]:
    """One prediction per hand row, covering the edge cases the contract names."""

    def sent(n: int, answer: str) -> str:
        return f"The event number {n} happened in {answer} after long delays."

    usage1 = {"prompt_tokens": 100, "completion_tokens": 10, "calls": 1, "latency_s": 0.5, "cost_usd": 0.01}
    usage2 = {"prompt_tokens": 200, "completion_tokens": 20, "calls": 2, "latency_s": 1.5, "cost_usd": 0.02}
    return [
        # q1: alias `2010` against the answer `10`; right answer from a wrong (noise) source whose
        # quote is in the wrong document; unparsable output; conflict-blind answering.
        {"id": "q1-sufficient", "action": "answer", "answer": "10", "citations": ["sup1"],
         "quotes": [{"doc_id": "sup1", "text": "happened in 2010"}], "usage": usage1},
        {"id": "q1-noisy", "action": "answer", "answer": "in 2010", "citations": ["n1a"],
         "quotes": [{"doc_id": "n1a", "text": sent(1, "2010")}], "usage": usage2},
        {"id": "q1-insufficient", "action": None, "answer": None},
        {"id": "q1-conflicting", "action": "answer", "answer": "2010", "citations": ["sup1"]},
        # q2: a supported and an unsupported citation; empty citations; the right non-answers.
        {"id": "q2-sufficient", "action": "answer", "answer": "The Denver Broncos!",
         "citations": ["sup2", "n2a"], "usage": {"calls": 3}},
        {"id": "q2-noisy", "action": "answer", "answer": "Broncos", "citations": []},
        {"id": "q2-insufficient", "action": "abstain"},
        {"id": "q2-conflicting", "action": "flag_conflict", "citations": ["sup2", "con2"]},
        # q3: abstaining on an answerable row while citing the support (right source, wrong answer);
        # one matching and one non-matching quote; a hallucinated answer; a wrong non-answer action.
        {"id": "q3-sufficient", "action": "abstain", "citations": ["sup3", "n3a"]},
        {"id": "q3-noisy", "action": "answer", "answer": "1066", "citations": ["sup3"],
         "quotes": [{"doc_id": "sup3", "text": sent(3, "1066")}, {"doc_id": "sup3", "text": "Intro"}]},
        {"id": "q3-insufficient", "action": "answer", "answer": "1066", "citations": ["same3"]},
        {"id": "q3-conflicting", "action": "abstain"},
        # q4: everything right.
        {"id": "q4-sufficient", "action": "answer", "answer": "Paris", "citations": ["sup4"]},
        {"id": "q4-noisy", "action": "answer", "answer": "paris", "citations": ["sup4"]},
        {"id": "q4-insufficient", "action": "abstain"},
        {"id": "q4-conflicting", "action": "flag_conflict"},
    ]  # fmt: skip


HAND_VALUES = {
    "answer_accuracy": 6 / 8,
    "source_accuracy": 6 / 8,
    "right_answer_wrong_source": 2 / 8,
    "right_source_wrong_answer": 2 / 8,
    "unsupported_citation_rate": 2 / 7,
    "span_precision": 2 / 4,
    "span_recall": 2 / 8,
    "span_f1": 1 / 3,
    "abstention_precision": 2 / 4,
    "abstention_recall": 2 / 4,
    "abstention_f1": 0.5,
    "conflict_accuracy": 2 / 4,
    "conflict_blind_answering": 1 / 4,
    "hallucination_rate": 2 / 8,
    "joint_success": 8 / 16,
    "avg_prompt_tokens": 300 / 16,
    "avg_completion_tokens": 30 / 16,
    "avg_calls": 6 / 16,
    "avg_latency_s": 2.0 / 16,
    "total_cost_usd": 0.03,
    "utility_per_call": (8 / 16) / (6 / 16),
    "evidence_removal_sensitivity": 2 / 4,
    "noise_robustness": 1 / 4,
    "conflict_sensitivity": 2 / 4,
    "quartet_consistency": 1 / 4,
}
"""Every overall contract §4 metric of hand_predictions() on hand_rows(), computed by hand."""

HAND_SUCCESS = [0, 0, 0, 0, 1, 0, 1, 1, 0, 1, 0, 0, 1, 1, 1, 1]
"""Joint success of each hand row, in row order."""


def write_jsonl(path: Path, objects: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(o) + "\n" for o in objects), encoding="utf-8")
    return path


def write_dataset(root: Path, config: str, rows: list[dict[str, Any]]) -> Path:
    """Lay ``rows`` out as ``eviscope build`` does: ``<root>/data/<config>/test.parquet`` + a card
    that records its sha256."""
    (root / "data" / config).mkdir(parents=True, exist_ok=True)
    data = root / "data" / config / "test.parquet"
    Dataset.from_list(rows, features=EVISCOPE_FEATURES).to_parquet(data)
    (root / "README.md").write_text(
        "---\nconfigs:\n"
        f"- config_name: {config}\n  data_files:\n  - split: test\n    path: data/{config}/test.parquet\n"
        f"{CHECKSUM_KEY}:\n  data/{config}/test.parquet: {file_sha256(data)}\n"
        "---\n# test copy\n",
        encoding="utf-8",
    )
    return root
