"""The toy's :class:`~eviscope.core.registry.Builder`: writes ``toy-v1`` from nothing external."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from datasets import Features, Value

from eviscope.builders.dataset_card import update_card
from eviscope.builders.parquet_split import write_split
from eviscope.core.registry import BuildRequest
from eviscope.suites.toy.rows import make_rows

FEATURES = Features({"id": Value("string"), "a": Value("int32"), "b": Value("int32")})


class ToyBuilder:
    contextualize = False
    requires = ()

    def build(self, request: BuildRequest) -> dict[str, Any]:
        rows = make_rows()
        for name in request.configs:  # the data and its declaration in the card (for load_dataset)
            table = write_split(request.out, name, rows, FEATURES)
            update_card(request.out / "README.md", name, FEATURES, len(rows), table.nbytes)
        return {"configs": list(request.configs), "rows": len(rows)}

    def summary(self, report: Mapping[str, Any]) -> list[Any]:
        return [f"toy: {report['rows']} rows in {', '.join(report['configs'])}"]


BUILDER = ToyBuilder()
