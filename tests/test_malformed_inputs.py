"""Malformed predictions (tests/malformed_inputs.py) get one clear line from every entry point.

The whole corpus runs once, in-process, through ``tests/malformed_driver.py``'s ``run_corpus``
(the function behind the figures of docs/benchmarks.md): ``eviscope score`` (also ``--config forcebench``), the
two ``evaluate`` modules, and the Space's ``/submit`` callback. Each (entry point, case) is then one
test: a clear one-line error holding the expected words, no crash, nothing written. A handful of
cases also go through the real console script and the running Space (gradio_client), and the big
files through a fresh process whose peak memory is bounded.
"""

from __future__ import annotations

from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from malformed_inputs import CORPUS, ENTRY_POINTS, Inputs, by_name

REPO = Path(__file__).resolve().parents[1]
CONFIG = "eviscope-v1.1"
MAX_RSS_MB = 1024
"""The CLI must reject a 100 MB garbage file in well under a gigabyte."""


def load_benchmark() -> ModuleType:
    import malformed_driver

    return malformed_driver


@pytest.fixture(scope="module")
def inputs(built_dataset: Path) -> Inputs:
    from eviscope.suites.eviscope.dataset import load_rows
    from eviscope.suites.forcebench.rows import read_rows

    return Inputs(load_rows(CONFIG, built_dataset), read_rows(built_dataset))


@pytest.fixture(scope="module")
def outcomes(built_dataset: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str], Any]:
    pytest.importorskip("gradio", reason="gradio is not installed (the Space): pip install -e '.[space]'")
    work = tmp_path_factory.mktemp("malformed")
    results = load_benchmark().run_corpus(built_dataset, CONFIG, work)
    return {(o.entry, o.case): o for o in results}


def test_the_corpus_is_big_and_every_case_runs_where_it_says(outcomes: dict, inputs: Inputs) -> None:
    for entry in ENTRY_POINTS:
        assert sum(entry in case.entries for case in CORPUS) >= 50, entry
    assert {entry for entry, _ in outcomes} == set(ENTRY_POINTS)
    for case in CORPUS:
        for entry in case.entries:
            assert (entry, case.name) in outcomes, f"{case.name} did not run through {entry}"
        has_form = case.metric_predictions(inputs)[0]
        assert has_form == ("metric" in case.entries), f"{case.name}: entries and metric form disagree"


def test_no_crash_and_no_output_left_behind(outcomes: dict) -> None:
    table = load_benchmark().table(list(outcomes.values()))
    crashes = [f"{o.entry} {o.case}: {o.message}" for o in outcomes.values() if o.status == "crash"]
    partial = [f"{o.entry} {o.case}" for o in outcomes.values() if o.partial]
    assert not crashes, table + "\n" + "\n".join(crashes)
    assert not partial, table + "\n" + "\n".join(partial)


@pytest.mark.parametrize(
    ("entry", "name"),
    [(entry, case.name) for entry in ENTRY_POINTS for case in CORPUS if entry in case.entries],
    ids=lambda value: value,
)
def test_malformed_input_gets_a_clear_one_line_error(outcomes: dict, entry: str, name: str) -> None:
    outcome = outcomes[entry, name]
    expected = by_name()[name].expected(entry)
    assert outcome.status == "clear", f"{outcome.status}: {outcome.message!r} (expected {expected!r})"
    assert expected in outcome.message and "\n" not in outcome.message
    assert not outcome.partial


SCRIPT_CASES = ["deep-nesting-whole-line", "forcebench-predictions", "fb-latin-1-byte"]
BIG_CASES = ["binary-100mb", "one-line-100mb-truncated"]


@pytest.mark.parametrize("name", SCRIPT_CASES + BIG_CASES)
def test_the_console_script_exits_2_with_one_line_and_no_traceback(
    name: str, inputs: Inputs, built_dataset: Path, tmp_path: Path
) -> None:
    bench = load_benchmark()
    case = by_name()[name]
    path = case.write(inputs, tmp_path / f"{name}.jsonl")
    out = tmp_path / "out"
    args = bench.script_args(case, path, built_dataset, CONFIG, out)
    code, stdout, stderr, peak = bench.run_console_script(args, measure_memory=name in BIG_CASES)
    command = "score"
    assert (code, stdout) == (2, ""), stderr
    assert stderr.startswith(f"eviscope {command}: error: ") and stderr.count("\n") == 1, stderr
    assert case.expected("cli") in stderr and "Traceback" not in stderr
    assert not out.exists()
    if name in BIG_CASES:
        assert peak is not None and peak < MAX_RSS_MB, f"peak RSS {peak} MB"


HTTP_CASES = ["binary-4kb", "utf-16-with-bom", "lone-surrogate-escape", "fb-deep-nesting"]


def test_the_running_space_refuses_them_over_http_and_records_nothing(
    built_dataset: Path, inputs: Inputs, tmp_path: Path
) -> None:
    pytest.importorskip("gradio", reason="gradio is not installed (the Space): pip install -e '.[space]'")
    gradio_client = pytest.importorskip(
        "gradio_client", reason="gradio_client is not installed: pip install -e '.[dev]'"
    )
    from space_server import SpaceServer

    results = tmp_path / "results"
    server = SpaceServer(built_dataset, results, tmp_path / "space.log")
    try:
        client = gradio_client.Client(server.url, verbose=False)
        for name in HTTP_CASES:
            case = by_name()[name]
            path = case.write(inputs, tmp_path / f"{name}.jsonl")
            config = "forcebench" if case.benchmark == "forcebench" else CONFIG
            with pytest.raises(gradio_client.exceptions.AppError) as err:
                client.predict(config, f"probe {name}", gradio_client.handle_file(path), api_name="/submit")
            message = str(err.value)
            assert case.expected("space") in message and "\n" not in message, message
    finally:
        server.stop()
    assert not [p for p in results.rglob("*.json")], "a refused submission was recorded"


def test_a_report_folder_that_cannot_be_written_is_one_line_and_leaves_nothing(
    built_dataset: Path, inputs: Inputs, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from malformed_inputs import jsonl

    from eviscope.cli import main

    predictions = tmp_path / "valid.jsonl"
    predictions.write_bytes(jsonl(inputs.ev))
    blocker = tmp_path / "out"
    blocker.write_text("a file where the report folder should go")
    args = [
        "score",
        "--dataset",
        str(built_dataset),
        str(predictions),
        "--out",
        str(blocker),
    ]
    assert main(args) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1
    assert f"cannot write {blocker}: File exists (EEXIST); nothing was written into {blocker}" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out", "valid.jsonl"]
    assert blocker.read_text() == "a file where the report folder should go"
