"""Malformed or modified datasets (issue 27): one line naming the file and what is wrong, from
``eviscope score`` and from the Space's loader; a modified file is refused unless
``--allow-modified-data``, which warns; a duplicate id is named as such."""

from __future__ import annotations

import json
import random
import shutil
from collections.abc import Callable
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import yaml

from eviscope.cli import main
from eviscope.core.errors import EviScopeError
from eviscope.core.layout import split_path
from eviscope.space.data import RowSource
from eviscope.suites.eviscope.dataset import load_rows

CONFIG = "eviscope-v1.1"

Spoil = Callable[[Path, Path], None]
"""(dataset folder, the config's Parquet file) -> None: spoils the copy in place."""


def _rewrite(path: Path, edit: Callable[[list[dict]], list[dict]], schema: pa.Schema | None = None) -> None:
    table = pq.read_table(path)
    pq.write_table(pa.Table.from_pylist(edit(table.to_pylist()), schema=schema or table.schema), path)


def _edit_gold(rows: list[dict]) -> list[dict]:
    rows[0]["answers"] = ["an edited gold answer"]
    return rows


def _duplicate_id(rows: list[dict]) -> list[dict]:
    rows[5]["id"] = rows[3]["id"]
    return rows


def _flip_a_bit(data: Path, path: Path) -> None:
    data_bytes = bytearray(path.read_bytes())
    data_bytes[-6] ^= 0x10  # in the footer's length: the checksum differs and no reader can open it
    path.write_bytes(bytes(data_bytes))


def _broken_yaml(data: Path, path: Path) -> None:
    card = data / "README.md"
    card.write_text(
        card.read_text(encoding="utf-8").replace("configs:", "configs: [unclosed", 1), encoding="utf-8"
    )


def _retype(data: Path, path: Path) -> None:
    table = pq.read_table(path)
    i = table.schema.get_field_index("answerable")
    pq.write_table(
        table.set_column(i, "answerable", pa.array([str(v) for v in table.column(i).to_pylist()])), path
    )


def _without_checksums(data: Path, path: Path) -> None:
    card = data / "README.md"
    text = card.read_text(encoding="utf-8")
    head, body = text[3:].split("\n---", 1)
    header = yaml.safe_load(head)
    del header["data_sha256"]
    card.write_text(f"---\n{yaml.safe_dump(header, sort_keys=False)}---{body}", encoding="utf-8")


MODIFIED = "the data was modified after it was built; rebuild it with `eviscope build eviscope-v1.1`"
CASES: dict[str, tuple[Spoil, str, str | None]] = {
    # name: (spoil, the error, the error with --allow-modified-data (None: scored, with a warning))
    "truncated": (lambda d, p: p.write_bytes(p.read_bytes()[:1000]), MODIFIED,
                  "test.parquet: not a readable Parquet file (Parquet magic bytes not found in footer"),
    "garbage": (lambda d, p: p.write_bytes(random.Random(1).randbytes(5000)), MODIFIED,
                "test.parquet: not a readable Parquet file ("),
    "empty": (lambda d, p: p.write_bytes(b""), MODIFIED, "Parquet file size is 0 bytes"),
    "bit-flipped": (_flip_a_bit, MODIFIED, "test.parquet: not a readable Parquet file ("),
    "broken-yaml-card": (_broken_yaml, "README.md: the card's YAML header does not parse (line {configs})",
                         "README.md: the card's YAML header does not parse (line {configs})"),
    "dropped-column": (lambda d, p: pq.write_table(pq.read_table(p).drop_columns(["answers"]), p), MODIFIED,
                       "test.parquet: not EviScope (eviscope-v1.1) rows: it lacks the column(s) answers"),
    "retyped-column": (_retype, MODIFIED,
                       "test.parquet: not EviScope (eviscope-v1.1) rows: column answerable is string, expected bool"),
    "duplicate-id": (lambda d, p: _rewrite(p, _duplicate_id), MODIFIED,
                     "test.parquet: duplicate id q01-conflicting in the dataset (rows 4 and 6)"),
    "edited-gold": (lambda d, p: _rewrite(p, _edit_gold), MODIFIED, None),
    "no-checksum": (_without_checksums, "README.md records no sha256 for data/eviscope-v1.1/test.parquet", None),
}  # fmt: skip


@pytest.fixture(scope="module")
def predictions(built_dataset: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("preds") / "predictions.jsonl"
    lines = (json.dumps({"id": row["id"], "action": "abstain"}) for row in load_rows(CONFIG, built_dataset))
    path.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    return path


def _spoiled(built_dataset: Path, tmp_path: Path, spoil: Spoil) -> Path:
    data = tmp_path / "dataset"
    shutil.copytree(built_dataset, data)
    spoil(data, split_path(data, CONFIG))
    return data


def _score(predictions: Path, data: Path, tmp_path: Path, *extra: str) -> list[str]:
    return ["score", str(predictions), "--dataset", str(data), "--config", CONFIG, "--json",
            "--out", str(tmp_path / "report"), *extra]  # fmt: skip


@pytest.mark.parametrize("name", list(CASES))
def test_a_malformed_or_modified_dataset_is_one_line_naming_the_file(
    name, built_dataset, predictions, tmp_path, capsys
):
    spoil, error, allowed = CASES[name]
    card_lines = (built_dataset / "README.md").read_text(encoding="utf-8").splitlines()
    configs = {"configs": card_lines.index("configs:") + 1}  # where the broken YAML starts
    error, allowed = error.format(**configs), allowed and allowed.format(**configs)
    data = _spoiled(built_dataset, tmp_path, spoil)
    assert main(_score(predictions, data, tmp_path)) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and "Traceback" not in captured.err
    [line] = captured.err.strip().splitlines()
    assert line.startswith(f"eviscope score: error: {data}/") and error in line, line
    with pytest.raises(EviScopeError) as caught:  # the Space's loader says the same, in one line
        RowSource(data).rows(CONFIG)
    assert str(caught.value) in line and "\n" not in str(caught.value)

    code = main(_score(predictions, data, tmp_path, "--allow-modified-data"))
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert "Traceback" not in captured.err
    if allowed is None:  # read as it is, with one warning line
        assert code == 0 and json.loads(captured.out)["n_rows"] == 160
        [warning] = lines
        assert warning.startswith("eviscope score: warning: ")
    else:
        assert code == 2 and lines[-1].startswith("eviscope score: error: ") and allowed in lines[-1], lines
        assert len(lines) <= 2  # at most the warning, then the error
    assert not (tmp_path / "report").exists() or allowed is None


def test_a_bit_flipped_forcebench_file_is_refused_by_name(built_dataset, tmp_path, capsys):
    data = tmp_path / "dataset"
    shutil.copytree(built_dataset, data)
    _flip_a_bit(data, split_path(data, "forcebench"))
    predictions = tmp_path / "fb.jsonl"
    predictions.write_text('{"id": "x", "evaluator": "e", "score_safe": 1, "score_raised": 0}\n')
    assert main(["score", str(predictions), "--dataset", str(data), "--config", "forcebench"]) == 2
    err = capsys.readouterr().err
    assert f"{split_path(data, 'forcebench')}: its sha256 " in err and err.count("\n") == 1


def test_the_build_records_each_files_sha256_in_the_card_and_the_report(built_dataset):
    from eviscope.core.datafiles import card_header
    from eviscope.core.io import file_sha256

    recorded = card_header(built_dataset)["data_sha256"]
    report = json.loads((built_dataset / "build_report.json").read_text())
    for config in ("eviscope-v1", "eviscope-v1.1", "eviscope-xl", "forcebench"):
        digest = file_sha256(split_path(built_dataset, config))
        assert recorded[f"data/{config}/test.parquet"] == digest
    assert report["eviscope"]["configs"][CONFIG]["sha256"] == recorded[f"data/{CONFIG}/test.parquet"]
    assert report["forcebench"]["sha256"] == recorded["data/forcebench/test.parquet"]


# --- counts are counts; ids are quoted escaped (issue 34) ----------------------------------------

USAGE_VALUES = {
    "true": (True, "Input should be a valid integer"),  # was scored as 1
    '"100"': ("100", "Input should be a valid integer"),  # was scored as 100
    "false": (False, "Input should be a valid integer"),
    "-1": (-1, "Input should be greater than or equal to 0"),
    "100.5": (100.5, "Input should be a valid integer, got a number with a fractional part"),
}


def _with_usage(predictions: Path, tmp_path: Path, usage: dict) -> Path:
    lines = predictions.read_text(encoding="utf-8").splitlines()
    first = {**json.loads(lines[0]), "usage": usage}
    path = tmp_path / "usage.jsonl"
    path.write_text("\n".join([json.dumps(first), *lines[1:]]) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("value", list(USAGE_VALUES))
def test_a_usage_count_that_is_a_boolean_or_a_string_is_one_line_naming_it(
    value, built_dataset, predictions, tmp_path, capsys
):
    given, reason = USAGE_VALUES[value]
    path = _with_usage(predictions, tmp_path, {"prompt_tokens": given, "completion_tokens": 5})
    assert main(_score(path, built_dataset, tmp_path)) == 2
    captured = capsys.readouterr()
    first = load_rows(CONFIG, built_dataset)[0]["id"]
    assert captured.out == "" and captured.err == (
        f"eviscope score: error: {path} line 1 (id {first}): field `usage.prompt_tokens`: {reason}, "
        f"got {value}\n"
    )
    assert not (tmp_path / "report").exists()


@pytest.mark.parametrize("value", ["true", '"0.5"', "NaN"])
def test_a_usage_amount_that_is_a_boolean_a_string_or_nan_is_refused(
    value, built_dataset, predictions, tmp_path, capsys
):
    path = _with_usage(
        predictions, tmp_path, {"latency_s": json.loads(value) if value != "NaN" else float("nan")}
    )
    assert main(_score(path, built_dataset, tmp_path)) == 2
    assert "field `usage.latency_s`: Input should be a" in capsys.readouterr().err


def _refuses(call: Callable[[], object], error: type[Exception]) -> bool:
    try:
        call()
    except error:
        return True
    return False


COUNTS = [(True, False), (False, False), ("100", False), ("1", False), (-1, False), (100.5, False),
          (1e400, False), (10**13, False), (100.0, True), (0, True), (5, True)]  # fmt: skip


@pytest.mark.parametrize(("value", "ok"), COUNTS, ids=repr)
def test_the_scorer_and_the_runner_read_a_usage_count_alike(value, ok):
    """One definition of a usage count: a prediction's ``usage`` is refused exactly when a server's
    reply and the runner's journal are refused for the same number."""
    from eviscope.runner.backends.openai_backend import _tokens
    from eviscope.runner.store import record_problem
    from eviscope.suites.eviscope.predictions import validate_predictions

    usage = {"prompt_tokens": 1, "completion_tokens": 1, "calls": value, "latency_s": 0.5, "cost_usd": 0.0}
    refused = {
        "prediction": _refuses(lambda: validate_predictions([{"id": "q", "action": None, "usage": usage}]), EviScopeError),
        "reply": _refuses(lambda: _tokens({"calls": value}, "calls"), ValueError),
        "journal": record_problem({"id": "q", "usage": usage, "parse": {}}) is not None,
    }  # fmt: skip
    assert refused == dict.fromkeys(refused, not ok)


def test_an_id_that_looks_like_a_real_one_is_quoted_with_escapes(
    built_dataset, predictions, tmp_path, capsys
):
    lines = predictions.read_text(encoding="utf-8").splitlines()
    at, real = next(
        (i, json.loads(line)["id"]) for i, line in enumerate(lines) if "o" in json.loads(line)["id"]
    )
    fake = real.replace("o", "\u043e", 1)  # a Cyrillic о
    lines[at] = json.dumps({"id": fake, "action": "abstain"}, ensure_ascii=False)
    path = tmp_path / "lookalike.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert main(_score(path, built_dataset, tmp_path)) == 2
    err = capsys.readouterr().err
    shown = fake.replace("\u043e", "\\u043e")
    assert err == (
        f"eviscope score: error: {path}: ids do not match the 160 rows: 1 unknown ids ({shown}); "
        f"1 missing ids ({real}); give exactly one prediction per row id\n"
    )
    # and where a duplicate is named
    lines.append(lines[at])
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert main(_score(path, built_dataset, tmp_path)) == 2
    assert f"duplicate id {shown} (first on line {at + 1})" in capsys.readouterr().err
