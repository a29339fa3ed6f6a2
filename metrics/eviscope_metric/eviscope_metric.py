"""EviScope: paired counterfactual evidence diagnostics for grounded question answering.

A thin ``evaluate`` face over ``eviscope.suites.eviscope.scoring``: every number comes from the library, so the
module, the ``eviscope score`` command and the reports agree to the last digit.
"""

import datasets
import evaluate

from eviscope.core.errors import EviScopeError
from eviscope.core.fields import warn_user
from eviscope.suites.eviscope.fit import mismatch_warning
from eviscope.suites.eviscope.predictions import (
    Prediction,
    check_rows,
    load_predictions,
    validate_predictions,
)
from eviscope.suites.eviscope.rows import EVISCOPE_FEATURES
from eviscope.suites.eviscope.scoring import score

_CITATION = """\
@misc{eviscope,
  title  = {EviScope: Paired Counterfactual Evidence Diagnostics for Faithful and Efficient
            Grounded Language Models},
  note   = {EviScope-v1.1: 40 SQuAD questions, each with sufficient, noisy, insufficient and
            conflicting evidence},
}
"""

_DESCRIPTION = """\
EviScope scores grounded question answering on evidence quartets: one question shown with
sufficient, noisy (distractors added), insufficient (support removed) and conflicting (a
contradicting passage inserted) evidence. A system should answer and cite the support, stay
stable under noise, abstain when support is removed, and flag the conflict. Besides answer,
source, span, abstention and conflict metrics, it reports the quartet metrics evidence removal
sensitivity (ERS), noise robustness (NR), conflict sensitivity (CS) and quartet consistency (QCS).
"""

_KWARGS_DESCRIPTION = """
Args:
    predictions: one dict per row (contract §3): `id`, `action` (`answer`, `abstain`, `flag_conflict`,
        or None for an unparsable output), and optionally `answer`, `citations` (document ids),
        `quotes` (dicts of `doc_id` and `text`), `usage` (`prompt_tokens`, `completion_tokens`,
        `calls`, `latency_s`, `cost_usd`; missing counts as zero). Order does not matter: they
        are joined to the references by `id`.
    references: the rows of an EviScope config, as `datasets` gives them, e.g.
        `load_dataset("dataset", "eviscope-v1.1", split="test")`; whole quartets.
    return_vectors: also return `vectors`, the per-row and per-quartet 0/1 vectors
        (`answer_ok`, `source_ok`, `success`; `evidence_removal_sensitivity`, ...).
Raises:
    EviScopeError (a ValueError): a prediction or reference that breaks the contract (docs/contract.md §3 or §2; the message
        names its position, id and field), unknown, duplicate or missing ids, or a field that is a near
        miss of a known one (`citation`: "unknown field 'citation' — did you mean 'citations'?").
Warns:
    EviScopeWarning (a UserWarning), one line each: an unknown field that is no near miss (ignored;
        once per field); predictions whose cited doc ids and quotes mostly miss the references'
        documents (made for another config: `eviscope-v1` and `eviscope-v1.1` share their ids).
Returns:
    every overall metric of contract §4 at the top level (`answer_accuracy`, `source_accuracy`,
    `right_answer_wrong_source`, `right_source_wrong_answer`, `unsupported_citation_rate`,
    `span_precision`, `span_recall`, `span_f1`, `false_conflict_rate` (only where some reference has
    `near_duplicate: "irrelevant_edit"`; else not applicable and left out), `abstention_precision`,
    `abstention_recall`, `abstention_f1`, `conflict_accuracy`, `conflict_blind_answering`, `hallucination_rate`,
    `joint_success`, `avg_prompt_tokens`, `avg_completion_tokens`, `avg_calls`, `avg_latency_s`,
    `total_cost_usd`, `utility_per_call`, `evidence_removal_sensitivity`, `noise_robustness`,
    `conflict_sensitivity`, `quartet_consistency`), `per_variant` (each variant's row metrics
    where defined), `n_rows`, `n_quartets`, and with `return_vectors=True` `vectors`.
Examples:
    One quartet: right on sufficient evidence, right answer from a distractor under noise, a
    correct abstention, and conflict-blind answering.

    >>> import evaluate
    >>> eviscope = evaluate.load("metrics/eviscope_metric")
    >>> support = {"doc_id": "d1", "title": "Hastings", "text": "The battle was fought in 1066."}
    >>> other = {"doc_id": "d2", "title": "Thames", "text": "The Thames flows east."}
    >>> conflict = {"doc_id": "d3", "title": "Hastings", "text": "The battle was fought in 1067."}
    >>> shown = {"sufficient": [support], "noisy": [other, support],
    ...          "insufficient": [other], "conflicting": [conflict, support]}
    >>> expected = {"sufficient": "answer", "noisy": "answer",
    ...             "insufficient": "abstain", "conflicting": "flag_conflict"}
    >>> references = [
    ...     {"id": f"q1-{v}", "quartet_id": "q1", "variant": v, "question": "When was the battle?",
    ...      "source_id": "s1", "title": "Hastings", "documents": docs, "answers": ["1066"],
    ...      "expected_action": expected[v], "answerable": expected[v] == "answer",
    ...      "supporting_doc_ids": ["d1"] if support in docs else [],
    ...      "conflicting_doc_ids": ["d3"] if conflict in docs else [],
    ...      "support_spans": [{"doc_id": "d1", "text": support["text"]}] if support in docs else [],
    ...      "conflict_answer": "1067" if conflict in docs else ""}
    ...     for v, docs in shown.items()]
    >>> predictions = [
    ...     {"id": "q1-sufficient", "action": "answer", "answer": "1066", "citations": ["d1"]},
    ...     {"id": "q1-noisy", "action": "answer", "answer": "in 1066", "citations": ["d2"]},
    ...     {"id": "q1-insufficient", "action": "abstain"},
    ...     {"id": "q1-conflicting", "action": "answer", "answer": "1066", "citations": ["d1"]}]
    >>> results = eviscope.compute(predictions=predictions, references=references)
    >>> results["answer_accuracy"], results["source_accuracy"], results["joint_success"]
    (1.0, 0.5, 0.5)
    >>> results["evidence_removal_sensitivity"], results["noise_robustness"], results["quartet_consistency"]
    (1.0, 0.0, 0.0)
    >>> results["per_variant"]["conflicting"]["conflict_blind_answering"]
    1.0
    >>> vectors = eviscope.compute(predictions=predictions, references=references,
    ...                            return_vectors=True)["vectors"]
    >>> vectors["rows"]["success"], vectors["quartets"]["evidence_removal_sensitivity"]
    ([1, 0, 1, 0], [1])

    The false-conflict rate needs references that say which rows show a copy of the support that
    disagrees only about another fact (`near_duplicate: "irrelevant_edit"`, as `eviscope-xl`'s noise
    does); without one it is not applicable and left out, never 0:

    >>> "false_conflict_rate" in results
    False
    >>> edited = [{**row, "near_duplicate": "irrelevant_edit" if row["variant"] == "noisy" else "none"}
    ...           for row in references]
    >>> flagged = [{"id": "q1-noisy", "action": "flag_conflict", "citations": ["d1", "d2"]},
    ...            *(p for p in predictions if p["id"] != "q1-noisy")]
    >>> eviscope.compute(predictions=flagged, references=edited)["false_conflict_rate"]
    1.0
"""

_QUOTE = {"doc_id": datasets.Value("string"), "text": datasets.Value("string")}
_USAGE = {
    "prompt_tokens": datasets.Value("int64"),
    "completion_tokens": datasets.Value("int64"),
    "calls": datasets.Value("int64"),
    "latency_s": datasets.Value("float64"),
    "cost_usd": datasets.Value("float64"),
}
PREDICTION_FEATURES = {
    "id": datasets.Value("string"),
    "action": datasets.Value("string"),
    "answer": datasets.Value("string"),
    "citations": datasets.List(datasets.Value("string")),
    "quotes": datasets.List(_QUOTE),
    "usage": _USAGE,
}


def _conform(obj, schema):
    """Exactly the schema's keys (absent ones None), so Arrow stores the contract's objects with optional fields."""
    if isinstance(obj, Prediction):
        obj = obj.model_dump()
    if not isinstance(obj, dict):
        return obj
    out = {}
    for key, feature in schema.items():
        value = obj.get(key)
        if isinstance(feature, dict):
            value = _conform(value, feature)
        elif (
            isinstance(feature, datasets.List)
            and isinstance(feature.feature, dict)
            and isinstance(value, list)
        ):
            value = [_conform(item, feature.feature) for item in value]
        out[key] = value
    return out


def _stored(predictions, references):
    """Predictions validated and rows checked by the library: the validated predictions, and both
    in the form Arrow stores (every schema field present, None where absent). Unequal lengths are an
    error naming the ids at fault."""
    preds = None if predictions is None else validate_predictions(predictions)
    rows = None if references is None else check_rows(references, "references")
    if preds is not None and rows is not None and len(preds) != len(rows):
        load_predictions(preds, rows)  # names the unknown, duplicate or missing ids
        raise EviScopeError(
            f"got {len(preds)} predictions and {len(rows)} references; give one prediction per "
            "reference row (they are joined by id)"
        )
    return (
        preds or [],
        None if preds is None else [_conform(p.model_dump(), PREDICTION_FEATURES) for p in preds],
        None if rows is None else [_conform(r, EVISCOPE_FEATURES) for r in rows],
    )


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class Eviscope(evaluate.Metric):
    """EviScope metrics of contract §4, overall, per variant and per quartet."""

    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=datasets.Features(
                {"predictions": PREDICTION_FEATURES, "references": dict(EVISCOPE_FEATURES)}
            ),
            reference_urls=["https://rajpurkar.github.io/SQuAD-explorer/"],
        )

    def compute(self, *, predictions=None, references=None, **kwargs):
        """Score; predictions and references given here are validated and joined by the library
        before anything is stored, so a bad one raises an :class:`EviScopeError` and leaves no cache."""
        if predictions is not None and references is not None:
            predictions = validate_predictions(predictions)
            references = check_rows(references, "references")
            load_predictions(predictions, references)  # unknown, duplicate or missing ids
        return super().compute(predictions=predictions, references=references, **kwargs)

    def add_batch(self, *, predictions=None, references=None, **kwargs):
        """Add a batch of predictions and rows, validated by the library first (a bad one is an
        :class:`EviScopeError` naming it); fields a contract §3 object leaves out are stored as None."""
        validated, predictions, references = _stored(predictions, references)
        self._keep(validated)
        return super().add_batch(predictions=predictions, references=references, **kwargs)

    def add(self, *, prediction=None, reference=None, **kwargs):
        """Add one prediction and its row, validated by the library first; fields a contract §3 object
        leaves out are stored as None."""
        validated, predictions, references = _stored(
            None if prediction is None else [prediction], None if reference is None else [reference]
        )
        self._keep(validated)
        return super().add(
            prediction=None if predictions is None else predictions[0],
            reference=None if references is None else references[0],
            **kwargs,
        )

    def _enforce_nested_string_type(self, schema, obj):
        # evaluate rejects None where a string is declared; contract §3 objects may hold null (an
        # unparsable output's action, an absent answer or usage), which Arrow stores as null.
        if obj is None:
            return None
        return super()._enforce_nested_string_type(schema, obj)

    def _keep(self, validated):
        """Keep the predictions validated on the way in, so that ``_compute`` does not validate them again."""
        self._validated = [*getattr(self, "_validated", []), *validated]

    def _compute(self, predictions, references, return_vectors=False):
        validated, self._validated = getattr(self, "_validated", []), []
        if len(validated) == len(predictions) and all(
            p.id == stored["id"] for p, stored in zip(validated, predictions, strict=True)
        ):
            predictions = validated  # validated once, in add_batch; only joined and scored here
        else:
            predictions = validate_predictions(predictions)  # as stored: the schema's fields only
        mismatch = mismatch_warning(references, predictions, "predictions")
        if mismatch:  # predictions made for another config's rows (the ids of v1 and v1.1 are shared)
            warn_user(mismatch)
        return score(references, predictions).to_dict(vectors=return_vectors)
