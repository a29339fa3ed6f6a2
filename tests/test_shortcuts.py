"""The shortcut audit: what a row's layout (counts, titles, positions, lengths) says of its action."""

from __future__ import annotations

from eviscope_fixtures import hand_rows

from eviscope.suites.eviscope.shortcuts import FEATURE_SETS, audit, cross_fit_actions, split


def _many_quartets(n: int = 24) -> list[dict]:
    rows = []
    for k in range(n // 4):
        for row in hand_rows():
            quartet = f"{row['quartet_id']}x{k}"
            rows.append({**row, "id": row["id"].replace(row["quartet_id"], quartet), "quartet_id": quartet})
    return rows


def test_split_is_by_quartet_and_seeded_by_the_quartet_ids():
    rows = _many_quartets()
    fit, held_out = split(rows)
    assert {rows[i]["quartet_id"] for i in fit}.isdisjoint({rows[i]["quartet_id"] for i in held_out})
    assert len(fit) == len(held_out) == len(rows) // 2
    assert split(list(reversed(rows)))[0] != fit  # indices follow the rows, the halves follow the ids
    assert {rows[i]["quartet_id"] for i in split(rows)[0]} == {
        list(reversed(rows))[i]["quartet_id"] for i in split(list(reversed(rows)))[0]
    }


def test_the_papers_layout_gives_the_action_away_by_counting():
    result = audit(_many_quartets())
    assert result["majority"] == {"all_rows": 0.5, "multi_document_rows": 0.3333}
    # Counting documents finds every conflict; noisy and insufficient (three each) stay a coin toss.
    assert result["features"]["doc-count"] == {"all_rows": 0.75, "multi_document_rows": 0.6667}
    assert result["max_gain_multi_document"] >= 33.3
    assert set(result["features"]) == {*FEATURE_SETS, "layout"}


def test_a_layout_shared_by_the_variants_tells_nothing():
    rows = _many_quartets()
    for row in rows:  # every multi-document row: three documents of equal length, one of the article
        row["documents"] = [
            {"doc_id": f"d{i}", "title": row["title"] if i == 0 else "Other", "text": "x" * 40}
            for i in range(3)
        ][: 1 if row["variant"] == "sufficient" else 3]
    result = audit(rows)
    majority = result["majority"]["multi_document_rows"]
    assert all(f["multi_document_rows"] == majority for f in result["features"].values())
    assert result["max_gain_multi_document"] == 0.0
    assert set(cross_fit_actions([r for r in rows if r["variant"] != "sufficient"], "layout")) == {"answer"}
