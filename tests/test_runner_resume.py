"""Resume: a run killed with SIGKILL mid-run continues with no row lost or duplicated."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

from runner_fixtures import ANSWER, chat_server, read_jsonl

from eviscope.cli import main
from eviscope.runner.store import Journal, read_records


def test_sigkill_mid_run_then_rerun_loses_and_duplicates_nothing(built_dataset, tmp_path):
    out = tmp_path / "run"
    with chat_server(lambda body, seen: (200, 0.02, ANSWER)) as server:
        argv = ["run", "--backend", "openai", "--model", "m", "--base-url", server["url"], "--dataset",
                str(built_dataset), "--out", str(out), "--batch-size", "4", "--concurrency", "1"]  # fmt: skip
        child = subprocess.Popen([sys.executable, "-m", "eviscope.cli", *argv], stderr=subprocess.DEVNULL)
        journal = out / "records.jsonl"
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and (
            not journal.exists() or journal.read_bytes().count(b"\n") < 12
        ):
            time.sleep(0.02)
        os.kill(child.pid, signal.SIGKILL)
        child.wait()
        done_before = journal.read_bytes().count(b"\n")
        assert 12 <= done_before < 160, "the run was not killed mid-run"
        with journal.open("ab") as handle:  # a torn write, as a kill during write() leaves
            handle.write(b'{"id": "q39-noisy", "action": "ans')
        assert not (out / "predictions.jsonl").exists()
        assert json.loads((out / "manifest.json").read_text())["status"] == "running"
        server["bodies"].clear()
        assert main(argv) == 0
    assert len(server["bodies"]) == 160 - done_before
    ids = [r["id"] for r in read_jsonl(journal)]
    assert len(ids) == len(set(ids)) == 160
    preds = read_jsonl(out / "predictions.jsonl")
    assert len(preds) == 160 and len({p["id"] for p in preds}) == 160
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["status"] == "complete" and (manifest["rows"]["total"], manifest["rows"]["done"]) == (
        160,
        160,
    )
    assert main(["score", "--dataset", str(built_dataset), str(out / "predictions.jsonl"),
                 "--out", str(tmp_path / "report")]) == 0  # fmt: skip


def _record(row_id: str, n: int) -> dict:
    usage = dict.fromkeys(("prompt_tokens", "completion_tokens", "calls", "latency_s", "cost_usd"), 0)
    parse = dict.fromkeys(("failures", "retries", "unresolved", "truncated"), 0)
    return {"id": row_id, "n": n, "usage": usage, "parse": parse}


def test_journal_reading_keeps_the_first_record_of_an_id_and_skips_a_torn_line(tmp_path):
    path = tmp_path / "records.jsonl"
    a1, a2 = (json.dumps(_record("a", n)).encode() for n in (1, 2))
    path.write_bytes(a1 + b"\n" + a2 + b'\n{"id": "b"')
    assert read_records(tmp_path) == {"a": _record("a", 1)}
    Journal(path).append([_record("b", 3)])
    assert read_records(tmp_path) == {"a": _record("a", 1), "b": _record("b", 3)}


def test_a_rerun_with_other_settings_is_refused(built_dataset, tmp_path, capsys):
    with chat_server() as server:
        base = ["run", "--backend", "openai", "--base-url", server["url"], "--dataset", str(built_dataset),
                "--out", str(tmp_path), "--limit", "2"]  # fmt: skip
        assert main([*base, "--model", "m"]) == 0
        assert main([*base, "--model", "m", "--policy", "gate"]) == 2
    err = capsys.readouterr().err
    assert 'holds a run with policy="vanilla"' in err and 'policy="gate"' in err
