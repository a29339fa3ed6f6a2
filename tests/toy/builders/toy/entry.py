"""The toy's :class:`~eviscope.core.registry.Builder`: writes ``toy-v1`` from its source, a JSON list of pairs."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from datasets import Features, Value

from eviscope.builders.dataset_card import update_card
from eviscope.builders.parquet_split import write_split
from eviscope.core.errors import EviScopeError, first_line
from eviscope.core.registry import BuildRequest
from eviscope.core.sources import SourceRef
from eviscope.suites.toy.rows import PAIRS, make_rows

FEATURES = Features({"id": Value("string"), "a": Value("int32"), "b": Value("int32")})


def read_pairs(ref: SourceRef) -> list[tuple[int, int]]:
    """The pairs of the toy's source; a problem is one line naming the file and how to point at a copy."""
    path = Path(ref.location)
    try:
        return [(int(a), int(b)) for a, b in json.loads(path.read_text(encoding="utf-8"))]
    except (OSError, ValueError, TypeError) as err:
        raise EviScopeError(
            f"{PAIRS.what} at {path} (via {ref.via}): {first_line(err)}; {PAIRS.how_to_point()}"
        ) from None


class ToyBuilder:
    contextualize = False
    requires = ()

    def build(self, request: BuildRequest) -> dict[str, Any]:
        rows = make_rows(read_pairs(PAIRS.resolve(request.sources.get(PAIRS.name))))
        for name in request.configs:  # the data and its declaration in the card (for load_dataset)
            table = write_split(request.out, name, rows, FEATURES)
            update_card(request.out / "README.md", name, FEATURES, len(rows), table.nbytes)
        return {"configs": list(request.configs), "rows": len(rows)}

    def summary(self, report: Mapping[str, Any]) -> list[Any]:
        return [f"toy: {report['rows']} rows in {', '.join(report['configs'])}"]


BUILDER = ToyBuilder()
