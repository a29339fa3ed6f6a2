"""The ForceBench row schema (contract §5), defined once for the builder, metric, baselines and Space."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow as pa

from eviscope.core.datafiles import features_of, read_file, read_split
from eviscope.core.errors import EviScopeError
from eviscope.core.layout import split_path

AXES: tuple[str, ...] = ("relation", "modality", "scope", "temporal", "numeric")
"""The five force axes, in canonical order."""

SEVERITIES: tuple[int, ...] = (1, 2, 3)
"""1: subtle wording shift; 2: clear force mismatch; 3: high-impact or strongly misleading mismatch."""

STATUSES: tuple[str, ...] = ("drafted", "annotated", "adjudicated")
"""``annotation_status`` values: drafted by rule, annotated by two people, or settled by adjudication."""

CLAIM_SOURCES: tuple[str, ...] = ("attribution_claim", "human_claim", "evidence_sentence")
"""``claim_source`` values: a claim a cited-QA system wrote (AttributionBench's ``claim``), a claim a
person wrote against this evidence (a press release, a news or misinformation claim, a citing
sentence, an annotator's claim), or the fallback, a sentence of the cited passage itself (never
drafted since issue 33, none in ``eval``)."""

RAISED_SOURCES: tuple[str, ...] = ("edit", "human")
"""``raised_source`` values: the raised claim is a local edit of the calibrated one (``edit``), or a
person's own over-claim of the same finding, cut to a local difference (``human``)."""

PAIR_TYPES: tuple[str, ...] = ("contrast", "licensed")
"""``pair_type`` values: ``contrast`` (the raised claim exceeds the evidence) or ``licensed`` (a
control: the evidence warrants both claims, the stronger one included)."""

SPLITS: tuple[str, ...] = ("eval", "pool")
"""``split`` values: the fixed, adjudicated, locality-filtered evaluation set, or the other pairs."""

CONFIG = "forcebench"

FORCEBENCH_SCHEMA = pa.schema(
    [
        ("id", pa.string()),
        ("axis", pa.string()),
        ("severity", pa.int32()),
        ("context", pa.string()),
        ("evidence", pa.string()),
        ("evidence_span", pa.string()),
        ("calibrated_claim", pa.string()),
        ("raised_claim", pa.string()),
        ("repair", pa.string()),
        ("rationale", pa.string()),
        ("source", pa.string()),
        ("annotation_status", pa.string()),
        ("claim_source", pa.string()),
        ("raised_source", pa.string()),
        ("source_license", pa.string()),
        ("pair_type", pa.string()),
        ("split", pa.string()),
    ]
)
"""The Arrow schema of a ForceBench row, its one declaration; field meanings are in contract §5 and the
dataset card. ``FORCEBENCH_FEATURES`` is the same as `datasets` features (:func:`__getattr__`)."""


def __getattr__(name: str) -> Any:
    """``FORCEBENCH_FEATURES``, the `datasets` features of :data:`FORCEBENCH_SCHEMA`, made on first use
    (what only reads rows does not import `datasets`)."""
    if name == "FORCEBENCH_FEATURES":
        return features_of(FORCEBENCH_SCHEMA)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


FIELDS: tuple[str, ...] = tuple(FORCEBENCH_SCHEMA.names)


def source_group(source: str) -> str:
    """The provenance group of a ``source`` value (``"AttributionBench/ExpertQA:ExpertQA_…"`` gives
    ``"AttributionBench/ExpertQA"``), used to stratify splits by source.

    >>> source_group("AttributionBench/HAGRID:HAGRID_5b49")
    'AttributionBench/HAGRID'
    """
    return source.split(":", 1)[0]


def read_rows(path: Path | str) -> list[dict[str, Any]]:
    """Read the ForceBench rows of a built dataset folder (``<dir>/data/forcebench/test.parquet``,
    verified against its card: :func:`eviscope.core.datafiles.read_split`) or of one parquet file;
    a missing, unreadable or modified file, a wrong schema or a duplicate id is an error naming the path."""
    path = Path(path)
    root = path if path.is_dir() else None
    if root is not None:
        path = split_path(root, CONFIG)
    if not path.is_file():
        raise EviScopeError(f"{path}: no ForceBench rows here; build them with `eviscope build forcebench`")
    schema = FORCEBENCH_SCHEMA
    if root is None:
        return read_file(path, schema, "ForceBench")
    return read_split(root, CONFIG, schema, "ForceBench")
