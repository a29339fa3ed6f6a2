"""Load on the Space: 20 submissions at once (and resends, and clashing names) each land exactly once.

Runs ``tests/space_load.py``'s ``run_load`` (the load driver that also runs by hand) against the
app started on 127.0.0.1; no timing is asserted.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from types import ModuleType

import pytest

pytest.importorskip("gradio", reason="gradio is not installed (the Space): pip install -e '.[space]'")
pytest.importorskip("gradio_client", reason="gradio_client is not installed: pip install -e '.[dev]'")

from space_server import SpaceServer

CONFIG = "eviscope-v1.1"


def benchmark() -> ModuleType:
    import space_load

    return space_load


def test_twenty_concurrent_submissions_each_land_exactly_once(built_dataset: Path, tmp_path: Path) -> None:
    load = benchmark()
    uploads = load.write_uploads(built_dataset, tmp_path, CONFIG)
    results = tmp_path / "results"
    server = SpaceServer(built_dataset, results, tmp_path / "space.log")
    try:
        report = load.run_load(server.url, uploads, 20, resends=3, clashes=2, config=CONFIG, results=results)
    finally:
        server.stop()
    assert report.sent == 25 and report.systems == 20
    assert (report.landed, report.duplicated, report.lost, report.errors) == (20, 0, 0, 0), report.table()
    assert report.count("recorded") == 20
    # load-01's resends are already recorded; of load-02's three uploads (two of another file) the
    # first is recorded, and the others are either the same file again or refused as the name is taken
    assert report.count("already") + report.count("taken") == 5 and report.count("taken") in (1, 2)
    on_disk = Counter(json.loads(p.read_bytes())["system"] for p in (results / CONFIG).iterdir())
    assert on_disk == {f"load-{i:02d}": 1 for i in range(1, 21)}  # and no temporary file left
