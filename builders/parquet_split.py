"""Writing one split of one config as Parquet, byte-identical for identical rows."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
from datasets import Features

from eviscope.core.layout import split_path


def write_split(out_dir: Path, config: str, rows: list[dict], features: Features) -> pa.Table:
    """Write ``rows`` with ``features`` (the `datasets` metadata rides in the Arrow schema)."""
    table = pa.Table.from_pylist(rows, schema=features.arrow_schema)
    path = split_path(out_dir, config)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".parquet.tmp")
    pq.write_table(table, tmp, compression="zstd", write_statistics=False)
    tmp.replace(path)
    return table
