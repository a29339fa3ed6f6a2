"""The ConfQuestions adapter: Confluence XHTML to evidence units, gold joined by page id, one-line errors."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from ragonite_fixtures import confquestions

from eviscope.core.errors import EviScopeError
from eviscope.core.sources import how_to_point
from eviscope.ragonite.confquestions import load_confquestions, parse_page

pytest.importorskip("bs4", reason="the ConfQuestions adapter needs beautifulsoup4: pip install -e .")

# A hand-written page in Confluence storage format (not taken from ConfQuestions).
PAGE = """<p>Owned by Ann Example
Last updated: Jan 01, 2020 by Ann Example</p>
<h2>Test hosts</h2>
<p>Results <ac:structured-macro ac:name="jira"><ac:parameter ac:name="server">System JIRA</ac:parameter>
<ac:parameter ac:name="key">OXT-42</ac:parameter></ac:structured-macro> are tracked &amp; kept.</p>
<table><tbody>
<tr><td><strong>Host</strong></td><td colspan="2"><strong>Versions</strong></td></tr>
<tr><td rowspan="2"><p>Dell 7040</p></td><td>BIOS 1.14</td><td>TPM 2.0</td></tr>
<tr><td>BIOS 1.15</td><td>TPM 1.2</td></tr>
</tbody></table>
<h3>Build</h3>
<ac:structured-macro ac:name="code"><ac:parameter ac:name="language">bash</ac:parameter>
<ac:plain-text-body><![CDATA[make <all> && ./run]]></ac:plain-text-body></ac:structured-macro>
<ac:structured-macro ac:name="info"><ac:parameter ac:name="title">true</ac:parameter>
<ac:rich-text-body><ul><li>Read <ac:link><ri:page ri:content-title="Setup Guide"/></ac:link> first</li>
<li>then <a href="https://example.org">the FAQ</a></li></ul></ac:rich-text-body></ac:structured-macro>
"""


def units_of(html: str) -> list[tuple[str, str, str]]:
    return [(u.kind, u.heading, u.text) for u in parse_page(html, page_id="7", title="Host page")]


def test_table_rows_are_verbalized_with_rowspan_and_bold_header_expanded() -> None:
    rows = [text for kind, _, text in units_of(PAGE) if kind == "row"]
    assert rows == [
        "Host: Dell 7040; Versions: BIOS 1.14; Versions: TPM 2.0",
        "Host: Dell 7040; Versions: BIOS 1.15; Versions: TPM 1.2",
    ]
    (table,) = [text for kind, _, text in units_of(PAGE) if kind == "table"]
    assert table == "\n".join(rows)


def test_th_header_spanning_two_rows_labels_every_column() -> None:
    html = (
        "<table><tr><th rowspan='2'>Host</th><th colspan='2'>Version</th></tr>"
        "<tr><th>BIOS</th><th>TPM</th></tr><tr><td>Dell</td><td>1.14</td><td>2.0</td></tr></table>"
    )
    assert [t for k, _, t in units_of(html) if k == "row"] == [
        "Host: Dell; Version BIOS: 1.14; Version TPM: 2.0"
    ]


def test_macro_parameters_and_owner_line_are_dropped_and_content_kept() -> None:
    units = units_of(PAGE)
    text = "\n".join(t for _, _, t in units)
    for leaked in ("System JIRA", "bash", "true", "Owned by", "Last updated"):
        assert leaked not in text
    assert ("passage", "Test hosts", "Results OXT-42 are tracked & kept.") in units
    assert ("passage", "Build", "make <all> && ./run") in units  # CDATA body, entities decoded
    assert ("list", "Build", "Read Setup Guide first\nthen the FAQ") in units  # info body, link texts


def test_every_unit_carries_page_title_and_previous_heading() -> None:
    units = parse_page(PAGE, page_id="7", title="Host page")
    assert {u.title for u in units} == {"Host page"} and {u.page_id for u in units} == {"7"}
    assert [u.heading for u in units if u.kind == "row"] == ["Test hosts", "Test hosts"]


def test_missing_copy_is_one_line_naming_path_and_how_to_point(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere"
    with pytest.raises(EviScopeError) as err:
        load_confquestions(missing)
    message = str(err.value)
    assert "\n" not in message and str(missing) in message and how_to_point("confquestions") in message


def test_bad_page_is_one_line_naming_the_file(tmp_path: Path) -> None:
    (tmp_path / "documents").mkdir()
    (tmp_path / "documents" / "confluence-001.json").write_text("{not json")
    with pytest.raises(EviScopeError, match=r"confluence-001\.json is not valid JSON.*--confquestions PATH"):
        load_confquestions(tmp_path)


def test_gold_is_joined_by_page_id_not_url_text(tmp_path: Path) -> None:
    (tmp_path / "documents").mkdir()
    page = {"id": "confluence-001", "title": "T", "content": "<p>Hello there</p>"}
    page["url"] = "https://w.example/wiki/spaces/X/pages/123/Tech1:+Page+(results)"
    (tmp_path / "documents" / "confluence-001.json").write_text(json.dumps(page))
    turn = {
        "turn_id": "1",
        "a_source": "passage",
        "a_url": ["https://w.example/wiki/spaces/X/pages/123/Tech1+Page+results"],
    }
    turn |= {"q_en": "q", "q_de": "f", "completed_q_en": "q", "completed_q_de": "f"}
    (tmp_path / "qa-pairs.json").write_text(json.dumps([{"conv_id": "c1", "turns": [turn]}]))
    corpus = load_confquestions(tmp_path)
    assert corpus.turns[0].gold_page_ids == {"123"} and corpus.pages[0].page_id == "123"


def test_real_copy_parses_all_pages_and_finds_every_gold_page() -> None:
    corpus = confquestions()
    assert len(corpus.pages) == 215 and len({p.page_id for p in corpus.pages}) == 215
    assert len(corpus.turns) == 300
    gold = {g for turn in corpus.turns for g in turn.gold_page_ids}
    with_units = {p.page_id for p in corpus.pages if p.units}
    assert len(gold) == 57 and gold <= with_units  # every gold page found, and none is empty


def test_real_copy_units_per_kind_match_the_measured_ranges() -> None:
    corpus = confquestions()
    kinds = Counter(u.kind for u in corpus.units)
    assert 3_800 <= kinds["passage"] <= 4_400
    assert 600 <= kinds["list"] <= 750
    assert kinds["table"] == 110
    assert 1_000 <= kinds["row"] <= 1_150
    texts = [u.text for u in corpus.units]
    assert not any(t.startswith("Owned by") for t in texts)
    assert not any(t in {"true", "false"} for t in texts)  # macro parameters do not leak
