"""ForceBench's drafting rules are one declaration: each rule's pattern, licensing and table row are
declared together, the documented table is rendered from them, and every other place that names a
rule or a rejection reason names one that exists."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from eviscope.builders.forcebench import drafting
from eviscope.suites.forcebench import rules
from eviscope.suites.forcebench.licensing import Licensing
from eviscope.suites.forcebench.patterns import find_edits
from eviscope.suites.forcebench.rows import AXES, SEVERITIES

_RULE_NAME = re.compile(r"[a-z]+(?:-[a-z]+)*-to-[a-z]+(?:-[a-z]+)*")


def test_the_documented_table_is_the_declared_rules() -> None:
    """The module docstring's table is :func:`rules_table` to the byte: a rule added, renamed or
    re-described without the table (or the other way round) fails here."""
    assert rules.rules_table() in rules.__doc__, (
        "the table in eviscope/suites/forcebench/rules.py's docstring is stale; paste the output of "
        "`python -c 'from eviscope.suites.forcebench.rules import rules_table; print(rules_table())'`"
    )


def test_every_rule_declares_one_axis_a_licensing_and_its_table_row() -> None:
    names = [rule.name for rule in rules.RULES]
    assert len(names) == len(set(names)), "two rules share a name"
    for rule in rules.RULES:
        assert rule.axis in AXES, rule.name
        assert isinstance(rule.licensing, Licensing), rule.name
        assert rule.limiter and rule.raised_form, rule.name
        if isinstance(rule.severity, int):
            assert rule.severity in SEVERITIES and not rule.severity_doc, rule.name
        else:  # a severity that depends on the match says how in the table
            assert rule.severity_doc, rule.name
        if rule.reject:
            assert rule.reject in drafting.REJECTION_REASONS, rule.name
    assert {rule.axis for rule in rules.RULES} == set(AXES)


def test_a_computed_severity_stays_within_the_documented_levels() -> None:
    severities = {
        (edit.rule.name, edit.severity)
        for edit in find_edits("Some patients and many mice, in children, in rats, most of the cases.")
    }
    assert ("quantifier-to-universal", 3) in severities and ("population-to-general", 3) in severities
    assert {severity for _, severity in severities} <= set(SEVERITIES)


def test_rule_names_written_elsewhere_are_declared() -> None:
    """The drafting names some rules by string (its extra checks of a past state, a prediction, a
    partial cause): each such string is a declared rule, so a rename cannot silently switch one off."""
    declared = {rule.name for rule in rules.RULES}
    tree = ast.parse(Path(drafting.__file__).read_text(encoding="utf-8"))
    named = {
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and _RULE_NAME.fullmatch(node.value)
    }
    assert named, "the drafting names no rule: this test reads the wrong file"
    assert named <= declared, sorted(named - declared)
