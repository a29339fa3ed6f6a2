"""``eviscope build`` as a user runs it: bad sources get one line naming them; the report is readable."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from eviscope.cli import main


def _build(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    environ = {k: v for k, v in os.environ.items() if k != "EVISCOPE_SQUAD"}
    environ.update({"HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", **(env or {})})
    return subprocess.run(
        [sys.executable, "-m", "eviscope.cli", "build", *args],
        capture_output=True,
        text=True,
        env=environ,
        timeout=300,
    )


def _one_line_error(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    return lines[0]


def test_missing_file_names_the_source_and_how_to_point(tmp_path: Path) -> None:
    line = _one_line_error(
        _build("eviscope-v1.1", "--squad", str(tmp_path / "nope.json"), "--out", str(tmp_path))
    )
    assert str(tmp_path / "nope.json") in line
    assert "no such file" in line and "--squad PATH or EVISCOPE_SQUAD=PATH" in line


def test_environment_variable_is_used_and_named(tmp_path: Path) -> None:
    missing = str(tmp_path / "env.json")
    line = _one_line_error(_build("eviscope-v1.1", "--out", str(tmp_path), env={"EVISCOPE_SQUAD": missing}))
    assert missing in line and "via EVISCOPE_SQUAD" in line


def test_offline_without_a_copy_says_how_to_point(tmp_path: Path) -> None:
    line = _one_line_error(_build("eviscope-v1.1", "--out", str(tmp_path)))
    assert "rajpurkar/squad" in line and "--squad PATH" in line


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ('{"data": [', "not valid JSON"),
        ('{"version": "1.1"}', "not a SQuAD v1.1 file: data: Field required"),
        (
            '{"data": [{"title": "T", "paragraphs": [{"context": "abc", "qas": [{"id": "x", "question": "q?"}]}]}]}',
            "data.0.paragraphs.0.qas.0.answers: Field required",
        ),
        (
            '{"data": [{"title": "T", "paragraphs": [{"context": "abc", "qas": '
            '[{"id": "x1", "question": "q?", "answers": [{"text": "zz", "answer_start": 0}]}]}]}]}',
            "question x1: answer 'zz' is not at its answer_start",
        ),
    ],
)
def test_malformed_squad_file_gets_one_line(tmp_path: Path, content: str, expected: str) -> None:
    path = tmp_path / "dev.json"
    path.write_text(content)
    line = _one_line_error(_build("--squad", str(path), "--out", str(tmp_path / "out")))
    assert expected in line and str(path) in line


def test_unknown_config_lists_the_known_ones(tmp_path: Path) -> None:
    line = _one_line_error(_build("eviscope-v9", "--out", str(tmp_path)))
    assert "eviscope-v9" in line and "eviscope-v1.1" in line


def test_json_report(squad_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # in-process: the console script's successful build runs in test_partial_build_warns_about_declared_configs
    capsys.readouterr()
    assert main(["build", "eviscope-v1.1", "--squad", str(squad_path), "--out", str(tmp_path), "--json"]) == 0
    full = json.loads(capsys.readouterr().out)
    assert full == json.loads((tmp_path / "build_report.json").read_text())
    assert list(full) == ["eviscope"]
    report = full["eviscope"]
    v11 = report["configs"]["eviscope-v1.1"]
    assert (v11["quartets"], v11["rows"], report["seed"]) == (40, 160, 13)
    assert len(v11["lint_rows"]) == 40
    assert all(all(lint["ok"] for lint in row["lints"].values()) for row in v11["lint_rows"])


def test_partial_build_warns_about_declared_configs(squad_path: Path, tmp_path: Path) -> None:
    card = Path(__file__).resolve().parents[1] / "dataset" / "README.md"
    (tmp_path / "README.md").write_text(card.read_text())
    result = _build("eviscope-v1.1", "--squad", str(squad_path), "--out", str(tmp_path))
    assert result.returncode == 0, result.stderr
    assert "eviscope build eviscope-v1 eviscope-xl" in " ".join(result.stderr.split())
    assert "eviscope-v1.1" in result.stdout
