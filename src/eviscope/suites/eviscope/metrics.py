"""EviScope's metric table (contract §4), in the contract's order: every row metric, then every
quartet metric. Scoring, the harness tasks, the reports and the tests take their names, order,
direction and usage from here."""

from __future__ import annotations

from eviscope.core.metrics import Metric

METRICS: tuple[Metric, ...] = (
    Metric("answer_accuracy", "row", True),
    Metric("source_accuracy", "row", True),
    Metric("right_answer_wrong_source", "row", False),
    Metric("right_source_wrong_answer", "row", False),
    Metric("unsupported_citation_rate", "row", False),
    Metric("span_precision", "row", True),
    Metric("span_recall", "row", True),
    Metric("span_f1", "row", True),
    Metric("false_conflict_rate", "row", False),
    Metric("abstention_precision", "row", True),
    Metric("abstention_recall", "row", True),
    Metric("abstention_f1", "row", True),
    Metric("conflict_accuracy", "row", True),
    Metric("conflict_blind_answering", "row", False),
    Metric("hallucination_rate", "row", False),
    Metric("joint_success", "row", True),
    Metric("avg_prompt_tokens", "row", False, usage=True, harness=False),
    Metric("avg_completion_tokens", "row", False, usage=True, harness=False),
    Metric("avg_calls", "row", False, usage=True, harness=False),
    Metric("avg_latency_s", "row", False, usage=True, harness=False),
    Metric("total_cost_usd", "row", False, usage=True, harness=False),
    Metric("utility_per_call", "row", True, harness=False),  # divides by calls, which harnesses do not see
    Metric("evidence_removal_sensitivity", "quartet", True, abbreviation="ERS"),
    Metric("noise_robustness", "quartet", True, abbreviation="NR"),
    Metric("conflict_sensitivity", "quartet", True, abbreviation="CS"),
    Metric("quartet_consistency", "quartet", True, abbreviation="QCS"),
)
