"""The four judge prompts: versioned files, their label sets, rendering and the one parser."""

from __future__ import annotations

import pytest

from eviscope.suites.forcebench.prompts import (
    PROMPT_NAMES,
    label_set,
    parse_label,
    prompt_id,
    render,
    template,
)


@pytest.mark.parametrize("name", PROMPT_NAMES)
def test_each_prompt_names_its_labels_and_fills_its_slots(name: str) -> None:
    text = render(name, context="CTX-1", evidence="EVIDENCE {with braces}", claim="CLAIM-1")
    assert "CTX-1" in text and "EVIDENCE {with braces}" in text and "CLAIM-1" in text
    assert '{"label": "<one label>"}' in text
    for label in label_set(name):
        assert f"- {label}:" in template(name)
    assert prompt_id(name) == f"{name}.v1"


def test_the_prompt_set_is_the_four_of_spec_section_6() -> None:
    assert set(PROMPT_NAMES) == {"generic", "axis_free", "force_aware", "dummy_axis"}
    assert "relation" in template("force_aware") and "relation" not in template("axis_free")
    assert "relation" not in template("dummy_axis")


@pytest.mark.parametrize(
    ("name", "output", "label"),
    [
        ("generic", '{"label": "fully_supported"}', "fully_supported"),
        ("generic", 'Reasoning first.\n```json\n{"label": "Unsupported"}\n```', "unsupported"),
        ("force_aware", "force_gap", "force_gap"),
        ("force_aware", '{"label": "partially_supported"}', None),
        ("axis_free", "I cannot help with that.", None),
        ("dummy_axis", '{"verdict": "force_gap"}', None),
    ],
)
def test_parse_label(name: str, output: str, label: str | None) -> None:
    assert parse_label(name, output) == label
