"""Hostile replies, run folders and manifests, round two (issue 34): a reply nested a thousand deep,
300 kB of ``{``, a lone surrogate, a symbolic link planted in ``--out``, a broken ``manifest.json``,
a run stopped by an exception or SIGTERM. Each ends in that row's error or one clear line, nothing
is lost, and nothing outside the run folder is written. Every server is the stub on 127.0.0.1;
timeouts here are safety bounds only, never assertions."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from runner_fixtures import ANSWER, chat_server, read_jsonl
from stub_server import Raw, chat_body

from eviscope.cli import main
from eviscope.suites.eviscope.dataset import load_rows
from eviscope.suites.eviscope.parsing import parse_answer
from eviscope.suites.eviscope.predictions import load_predictions
from eviscope.suites.eviscope.task import EviScopeTask
from eviscope.suites.forcebench.prompts import parse_label

CONFIG = "eviscope-v1.1"
SAFETY_S = 120
"""The most a child run may take before the test gives up on it (a bound, not a measurement)."""


def _argv(dataset: Path, out: Path, url: str, *extra: object) -> list[str]:
    return ["run", "--backend", "openai", "--model", "m", "--base-url", url, "--dataset", str(dataset),
            "--out", str(out), "--backoff", "0.01", *map(str, extra)]  # fmt: skip


def _one_line(capsys: pytest.CaptureFixture[str], command: str = "run") -> str:
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"eviscope {command}: "), err
    assert "Traceback" not in err
    return lines[0]


def _prompts(dataset: Path, n: int) -> list[str]:
    task = EviScopeTask("vanilla")
    return [task.requests(row)[0].messages[0]["content"] for row in load_rows(CONFIG, dataset)[:n]]


def _ids(dataset: Path, n: int) -> list[str]:
    return [row["id"] for row in load_rows(CONFIG, dataset)[:n]]


def _by_prompt(dataset: Path, bodies: list[bytes]):
    """A stub reply that sends ``bodies[i]`` to the i-th row's prompt."""
    prompts = _prompts(dataset, len(bodies))

    def reply(body, headers, path):
        return Raw(chunks=[bodies[prompts.index(body["messages"][0]["content"])]])

    return reply


# --- replies nested past the depth limit, and 300 kB of `{` -----------------------------------

NESTED_REPLY = '{"action": "answer", "answer": "x", "citations": ' + "[" * 1000  # cut at --max-tokens


def test_a_reply_nested_a_thousand_deep_or_of_300_kb_of_braces_is_that_rows_parse_failure(
    built_dataset, tmp_path
):
    nested_body = chat_body(ANSWER, {"prompt_tokens": 1})[:-1] + b', "x": ' + b"[" * 1000 + b"]" * 1000 + b"}"
    bodies = [
        chat_body(NESTED_REPLY, {"prompt_tokens": 1}),  # a reply nested 1000 deep
        nested_body,  # a body nested 1000 deep around a valid reply
        chat_body("{" * 300_000, {"prompt_tokens": 1}),  # 300 kB of `{`
        chat_body(ANSWER, {"prompt_tokens": 1}),
    ]
    with chat_server(raw=_by_prompt(built_dataset, bodies)) as server:
        argv = _argv(built_dataset, tmp_path, server["url"], "--limit", 4, "--max-retries", 1)
        assert main(argv) == 0
        assert (
            len(server["bodies"]) == 2 + 1 + 2 + 1
        )  # unparsable replies asked once more; a deep body is final
    ids = _ids(built_dataset, 4)
    records = {r["id"]: r for r in read_jsonl(tmp_path / "records.jsonl")}
    assert sorted(records) == sorted(ids)  # every row journaled
    nested, deep_body, braces, good = (records[i] for i in ids)
    assert nested["action"] is None and nested["parse"]["unresolved"] == 1 and nested["raw"] == NESTED_REPLY
    assert deep_body["action"] is None and "with a body nested deeper than 64 levels" in deep_body["error"]
    assert braces["action"] is None and braces["parse"]["unresolved"] == 1
    assert braces["raw"].endswith("… [cut: the reply held 300,000 characters]")
    assert good["action"] == "abstain"
    assert json.loads((tmp_path / "manifest.json").read_text())["status"] == "complete"


def test_the_tolerant_parser_decodes_at_a_bounded_number_of_places(monkeypatch):
    """Structural, not timed: doubling a reply of `{` does not double the decoding (on the old parser
    it did: one decode per brace, each costing the text before it, 25 s of CPU at 300 kB)."""
    decodes = []
    real = json.JSONDecoder.raw_decode

    def counting(self, text, idx=0):
        decodes.append(idx)
        return real(self, text, idx)

    monkeypatch.setattr(json.JSONDecoder, "raw_decode", counting)
    counts = []
    for size in (150_000, 300_000):
        decodes.clear()
        assert parse_answer("{" * size) is None
        assert parse_answer('{"a": ' * size) is None  # each start nests deeper than the limit
        counts.append(len(decodes))
    assert counts[0] == counts[1] <= 2 * 64
    # a reply with prose, a code fence and a stray brace still reads
    assert (
        parse_answer('Sure { here:\n```json\n{"action": "abstain", "answer": null}\n```')["action"]
        == "abstain"
    )


def test_the_forcebench_judge_parser_takes_a_reply_nested_a_thousand_deep(built_dataset, tmp_path):
    nested = '{"label": ' + "[" * 1000 + "]" * 1000 + "}"
    assert parse_label("force_aware", nested) is None

    def reply(body, headers, path):
        return Raw(chunks=[chat_body(nested, {"prompt_tokens": 1})])

    with chat_server(raw=reply) as server:
        argv = _argv(built_dataset, tmp_path, server["url"], "--config", "forcebench", "--judge",
                     "force_aware", "--limit", 2, "--max-retries", 0)  # fmt: skip
        assert main(argv) == 0
        assert len(server["bodies"]) == 4  # two claims per row
    records = read_jsonl(tmp_path / "records.jsonl")
    assert len(records) == 2 and all(r["label_safe"] is None and r["label_raised"] is None for r in records)
    assert all(r["parse"]["unresolved"] == 2 for r in records)


# --- a lone surrogate ---------------------------------------------------------------------------


def test_a_lone_surrogate_in_a_reply_is_kept_as_its_escaped_text_and_the_batch_is_journaled(
    built_dataset, tmp_path, capsys
):
    escaped = json.dumps({"action": "answer", "answer": "x\ud800", "citations": [], "quotes": []})
    assert "\\ud800" in escaped  # the reply text holds the escape; the answer it means has no partner
    raw_in_body = b'{"choices": [{"message": {"content": "note \\udc00 here"}, "finish_reason": "stop"}]}'
    bodies = [chat_body(ANSWER, {"prompt_tokens": 1})] * 6 + [
        chat_body(escaped, {"prompt_tokens": 1}),
        raw_in_body,
    ]
    with chat_server(raw=_by_prompt(built_dataset, bodies)) as server:
        argv = _argv(built_dataset, tmp_path, server["url"], "--limit", 8, "--max-retries", 0)
        assert main(argv) == 0
    ids = _ids(built_dataset, 8)
    journal = (tmp_path / "records.jsonl").read_bytes()
    journal.decode("utf-8")  # valid UTF-8, whatever the replies held
    records = {r["id"]: r for r in read_jsonl(tmp_path / "records.jsonl")}
    assert sorted(records) == sorted(ids)  # 8 of 8 kept (two quartets, so that they score)
    assert [records[i]["action"] for i in ids[:6]] == ["abstain"] * 6
    assert records[ids[6]]["action"] == "answer" and records[ids[6]]["answer"] == "x\\ud800"
    assert records[ids[7]]["raw"] == "note \\udc00 here" and records[ids[7]]["action"] is None
    # the suite's own readers take what the run wrote
    assert [
        p.id for p in load_predictions(tmp_path / "predictions.jsonl", load_rows(CONFIG, built_dataset)[:8])
    ] == ids
    capsys.readouterr()
    score = ["score", str(tmp_path / "predictions.jsonl"), "--config", CONFIG, "--dataset", str(built_dataset),
             "--subset", "--out", str(tmp_path / "report")]  # fmt: skip
    assert main(score) == 0


# --- symbolic links planted in --out --------------------------------------------------------------

PLANTED = [".manifest.json.tmp", ".predictions.jsonl.tmp", "records.jsonl", "manifest.json",
           "predictions.jsonl", ".eviscope-run.owner"]  # fmt: skip


@pytest.mark.parametrize("name", PLANTED)
def test_a_link_planted_in_the_run_folder_is_refused_and_what_it_points_to_is_untouched(
    built_dataset, tmp_path, capsys, name
):
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    out = tmp_path / "run"
    out.mkdir()
    (out / name).symlink_to(victim)
    with chat_server() as server:
        assert main(_argv(built_dataset, out, server["url"], "--limit", 2)) == 2
        assert server["bodies"] == []  # refused before anything is asked
    line = _one_line(capsys)
    assert line == (
        f"eviscope run: error: {out / name} is a symbolic link, and eviscope run writes only files it "
        "created there: remove the link, or use another --out"
    )
    assert victim.read_text() == "precious\n"
    assert (out / name).is_symlink()


def test_no_write_of_a_run_follows_a_link_made_after_it_checked(built_dataset, tmp_path):
    """Links planted while a run goes (after its check): the journal is opened without following
    links, every other file is written through a fresh temporary name, so the targets stay as they
    were and the run's files are its own."""
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    out = tmp_path / "run"
    out.mkdir()

    def script(body, seen):
        for name in (".manifest.json.tmp", ".predictions.jsonl.tmp", ".records.jsonl.tmp"):
            if not os.path.lexists(out / name):
                (out / name).symlink_to(victim)
        return 200, 0.0, ANSWER

    with chat_server(script) as server:
        assert main(_argv(built_dataset, out, server["url"], "--limit", 3)) == 0
    assert victim.read_text() == "precious\n"
    assert len(read_jsonl(out / "predictions.jsonl")) == 3
    assert not (out / "manifest.json").is_symlink() and not (out / "records.jsonl").is_symlink()


def test_a_report_folder_planted_as_a_link_is_refused_by_score(built_dataset, finished_run, tmp_path, capsys):
    out = tmp_path / "run"
    out.mkdir()
    (out / "predictions.jsonl").write_bytes((finished_run / "predictions.jsonl").read_bytes())
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "report.json").write_text("precious\n")
    (out / "report").symlink_to(elsewhere)
    capsys.readouterr()
    score = [
        "score",
        str(out / "predictions.jsonl"),
        "--config",
        CONFIG,
        "--dataset",
        str(built_dataset),
        "--subset",
    ]
    assert main(score) == 2
    assert _one_line(capsys, "score") == (
        f"eviscope score: error: {out / 'report'} is a symbolic link, and eviscope score writes its "
        "default report folder only as a real folder: remove the link, or give --out"
    )
    assert [p.name for p in elsewhere.iterdir()] == ["report.json"]
    assert (elsewhere / "report.json").read_text() == "precious\n"


def test_the_temporary_files_of_a_killed_run_are_removed_by_the_next(built_dataset, tmp_path):
    out = tmp_path / "run"
    out.mkdir()
    for name in (".manifest.json.0123456789abcdef.tmp", ".predictions.jsonl.fedcba9876543210.tmp"):
        (out / name).write_text("{")  # as a run killed mid-write leaves them
    (out / ".notes.tmp").write_text("the user's")
    with chat_server() as server:
        assert main(_argv(built_dataset, out, server["url"], "--limit", 2)) == 0
    assert [p.name for p in out.glob(".*.tmp")] == [".notes.tmp"]


@pytest.mark.parametrize("command", [["baseline", "--system", "lexical"], ["forcebench", "baselines"]])
def test_a_baseline_replaces_a_planted_predictions_link_and_leaves_its_target(
    built_dataset, tmp_path, capsys, command
):
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    out = tmp_path / "run"
    out.mkdir()
    (out / "predictions.jsonl").symlink_to(victim)
    assert main([*command, "--dataset", str(built_dataset), "--out", str(out)]) == 0
    assert victim.read_text() == "precious\n"
    assert not (out / "predictions.jsonl").is_symlink() and read_jsonl(out / "predictions.jsonl")


# --- a broken manifest.json ----------------------------------------------------------------------

BROKEN = {
    "unknown-policy": (lambda m: {**m, "policy": "no-such-policy"}, "field policy"),
    "a-list": (lambda m: [m], "[{"),
    "deep": (lambda m: {**m, "backend_details": "DEEP"}, "nested deeper than 64 levels"),
    "rows-a-list": (lambda m: {**m, "rows": []}, "field rows: Input should be a valid dictionary"),
    "calls-a-string": (
        lambda m: {**m, "sessions": [{"engine_calls": "12"}]},
        "field sessions.0.engine_calls",
    ),
}


@pytest.fixture(scope="module")
def finished_run(built_dataset, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("finished") / "run"
    with chat_server() as server:
        assert main(_argv(built_dataset, out, server["url"], "--limit", 4)) == 0
    return out


def _spoiled(finished_run: Path, tmp_path: Path, case: str) -> Path:
    out = tmp_path / "run"
    out.mkdir()
    for name in ("records.jsonl", "predictions.jsonl"):
        (out / name).write_bytes((finished_run / name).read_bytes())
    spoil, _ = BROKEN[case]
    manifest = json.loads((finished_run / "manifest.json").read_text())
    text = json.dumps(spoil(manifest)).replace('"DEEP"', "[" * 1000 + "]" * 1000)  # nested 1000 deep
    (out / "manifest.json").write_text(text)
    return out


@pytest.mark.parametrize("case", sorted(BROKEN))
def test_a_broken_manifest_is_one_line_naming_the_file_and_field_in_score_and_on_resume(
    built_dataset, finished_run, tmp_path, capsys, case
):
    out = _spoiled(finished_run, tmp_path, case)
    _, named = BROKEN[case]
    score = ["score", str(out / "predictions.jsonl"), "--config", CONFIG, "--dataset", str(built_dataset),
             "--subset", "--out", str(tmp_path / "report")]  # fmt: skip
    capsys.readouterr()
    assert main(score) == 0  # the score does not depend on the manifest: it is named, and scored
    err = capsys.readouterr().err
    assert "Traceback" not in err
    [warning] = [line for line in err.splitlines() if "manifest.json" in line]
    assert warning.startswith(f"eviscope score: warning: {out / 'manifest.json'}: ") and named in warning
    with chat_server() as server:
        assert main(_argv(built_dataset, out, server["url"], "--limit", 4)) == 2
        assert server["bodies"] == []
    line = _one_line(capsys)
    if case == "unknown-policy":  # a policy other than the one asked: the run's own identity check
        assert line.startswith(f'eviscope run: error: {out}/ holds a run with policy="no-such-policy"')
    else:
        assert line.startswith(f"eviscope run: error: {out / 'manifest.json'}: ") and named in line


# --- a run that stops: failed or interrupted, never running ---------------------------------------


def test_a_run_stopped_by_an_exception_marks_its_manifest_failed(built_dataset, tmp_path, monkeypatch):
    def broken(self, row, parts):
        raise RuntimeError("a bug in the task")

    monkeypatch.setattr(EviScopeTask, "record", broken)
    with chat_server() as server, pytest.raises(RuntimeError):
        main(_argv(built_dataset, tmp_path, server["url"], "--limit", 2))
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    assert manifest["status"] == "failed"
    assert manifest["sessions"][-1]["error"] == "RuntimeError (see its traceback)"


def test_a_run_stopped_by_sigterm_marks_its_manifest_interrupted_and_resumes(built_dataset, tmp_path):
    out = tmp_path / "run"
    with chat_server(lambda body, seen: (200, 0.05, ANSWER)) as server:
        argv = _argv(built_dataset, out, server["url"], "--limit", 40, "--batch-size", 2, "--concurrency", 1)
        child = subprocess.Popen(
            [sys.executable, "-m", "eviscope.cli", *argv], stderr=subprocess.PIPE, text=True
        )
        journal = out / "records.jsonl"
        deadline = time.monotonic() + SAFETY_S
        while time.monotonic() < deadline and (not journal.exists() or journal.read_bytes().count(b"\n") < 4):
            time.sleep(0.02)
        child.send_signal(signal.SIGTERM)
        _, err = child.communicate(timeout=SAFETY_S)
        assert child.returncode == 130 and err.strip().splitlines()[-1] == "eviscope run: interrupted", err
        assert "Traceback" not in err
        manifest = json.loads((out / "manifest.json").read_text())
        assert manifest["status"] == "interrupted" and manifest["sessions"][-1]["finished_at"] is not None
        assert main(argv) == 0  # a rerun resumes
    assert len(read_jsonl(out / "predictions.jsonl")) == 40
