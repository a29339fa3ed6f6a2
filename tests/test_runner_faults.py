"""The runner under faults: SIGKILL at 10 moments, a flaky, failing or dead HTTP server (the circuit
breaker), a full disk and a read-only run folder. The kill trials and the HTTP fault injection are
tests/runner_faults.py's own functions (the numbers docs/benchmarks.md quotes); no speed is asserted,
only that a ``Retry-After: 1`` was waited for, and how many requests a dead server cost."""

from __future__ import annotations

import errno
import json
import os
import stat
from collections import Counter
from pathlib import Path

import pytest
import runner_faults as faults
from fault_injection import make_read_only
from runner_fixtures import ANSWER, chat_server, read_jsonl

from eviscope.cli import main
from eviscope.core.errors import EviScopeError
from eviscope.release.processes import free_port
from eviscope.runner.backends.openai_backend import retry_after_seconds
from eviscope.runner.store import Journal, read_records, write_atomic


def _argv(dataset, out, url, *extra):
    return ["run", "--backend", "openai", "--model", "m", "--base-url", url, "--dataset", str(dataset),
            "--out", str(out), "--backoff", "0.01", *map(str, extra)]  # fmt: skip


def _one_line_error(capsys) -> str:
    lines = capsys.readouterr().err.strip().splitlines()
    assert lines and lines[-1].startswith("eviscope run: error: ")
    assert "Traceback" not in "\n".join(lines)
    return lines[-1]


# ----------------------------------------------------------------------------------------------
# kill trials and HTTP faults (tests/runner_faults.py)


def test_ten_sigkills_then_resume_lose_and_duplicate_no_row(built_dataset, tmp_path):
    report = faults.kill_trials(built_dataset, tmp_path, seed=0)
    assert report["problems"] == []
    assert report["kills"] == 10 and report["lost"] == 0 and report["duplicated"] == 0
    assert report["changed_duplicates"] == 0
    moments = Counter(t["moment"] for t in report["trials"])
    assert set(moments) == {
        "startup",
        "first-batch",
        "request",
        "journal",
        "final-manifest",
        "predictions",
        "none",
    }
    assert report["torn"] == moments["journal"] >= 2  # every cut journal write left a torn line
    assert report["trials"][-1]["exit"] == 0 and report["trials"][-1]["journaled"] == report["rows"] == 160


def test_http_faults_are_retried_within_the_bound_and_an_outage_resumes(built_dataset, tmp_path):
    report = faults.http_faults(built_dataset, tmp_path, seed=0, bound=3)
    assert report["problems"] == []
    assert set(report["faults"]) == set(faults.StubServer.FAULTS)
    assert report["injected"] == report["retries"] == report["client_retries"] > 0
    assert report["most_retries"] <= report["bound"] == 3
    assert report["retry_after_waits"] and min(report["retry_after_waits"]) >= 0.9  # Retry-After: 1
    outage = report["outage"]
    assert outage["exit"] == 2 and outage["kept"] == 40 and outage["rerun_requests"] == 120
    assert "HTTP 503" in outage["message"] and "rerun the same command to resume" in outage["message"]
    # the breaker gave up after 8 requests in a row failed, not after every other row's retries;
    # with --concurrency 16 up to 15 more were in flight, each stopping at its next retry
    assert "looks down: 8 requests in a row failed after every retry" in outage["message"]
    assert 8 * 4 <= outage["failing_requests"] <= (8 + 15) * 4 < 120 * 4


def test_a_server_that_always_fails_stops_with_one_line_naming_status_and_row(
    built_dataset, tmp_path, capsys
):
    with chat_server(lambda body, seen: (500, 0.0, "")) as server:
        code = main(_argv(built_dataset, tmp_path, server["url"], "--limit", "2", "--http-retries", "2"))
    assert code == 2
    message = _one_line_error(capsys)
    assert "2 requests failed after every retry (first: row q01-sufficient: HTTP 500 from " in message
    assert len(server["bodies"]) == 2 * 3  # one try and 2 retries each, never more
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    assert manifest["status"] == "failed" and manifest["sessions"][-1]["error"] in message
    assert manifest["backend_details"]["http_most_retries_of_a_request"] == 2


# ----------------------------------------------------------------------------------------------
# a server that is down: the circuit breaker


def _closed_port_url() -> str:
    """The URL of a port nothing listens on (bound, then closed): connections are refused."""
    return f"http://127.0.0.1:{free_port()}/v1"


def _engine_calls(out) -> int:
    return json.loads((out / "manifest.json").read_text())["sessions"][-1]["engine_calls"]


def test_a_server_refusing_connections_gives_up_after_n_requests_and_a_rerun_resumes(
    built_dataset, tmp_path, capsys
):
    url = _closed_port_url()
    argv = ["--limit", "40", "--http-retries", "2", "--concurrency", "1", "--http-give-up-after", "3"]
    assert main(_argv(built_dataset, tmp_path, url, *argv)) == 2
    message = _one_line_error(capsys)
    assert (
        f"the server at {url} looks down: 3 requests in a row failed after every retry (last: ClientConnectorError"
        in message
    )
    assert "; 37 rows were left unsent and 3 requests failed (first: row q01-sufficient); " in message
    assert message.endswith("0 finished rows of this session are saved in "
                            f"{tmp_path / 'records.jsonl'}: rerun the same command to resume")  # fmt: skip
    assert _engine_calls(tmp_path) == 3 * 3  # N × (retries + 1), not 40 × 3
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    assert manifest["status"] == "failed" and manifest["sessions"][-1]["error"] in message
    assert manifest["backend_details"]["http_give_up_after"] == 3
    with chat_server() as server:  # the server is up again: the same command resumes (another URL)
        assert main(_argv(built_dataset, tmp_path, server["url"], *argv)) == 0
    assert len(server["bodies"]) == 40
    assert len(read_records(tmp_path)) == 40


def test_a_server_always_answering_503_gives_up_after_8_requests_and_a_rerun_resumes(
    built_dataset, tmp_path, capsys
):
    with chat_server(lambda body, seen: (503, 0.0, "")) as server:
        argv = _argv(built_dataset, tmp_path, server["url"], "--http-retries", "2")  # all 160 rows
        assert main(argv) == 2
        message = _one_line_error(capsys)
        assert (
            f"the server at {server['url']} looks down: 8 requests in a row failed after every retry"
            in message
        )
        assert "(last: HTTP 503: " in message and "rows were left unsent and " in message
        assert "rerun the same command to resume" in message
        requests = len(server["bodies"])
        # the default --concurrency 8: when the 8th failure trips the breaker, up to 7 more are in
        # flight, each stopping at its next retry; without the breaker it would be 160 × 3
        assert 8 * 3 <= requests <= (8 + 7) * 3
        assert _engine_calls(tmp_path) == requests
        assert not (tmp_path / "records.jsonl").exists() or not read_records(tmp_path)
        server["set_script"](lambda body, seen: (200, 0.0, ANSWER))
        server["bodies"].clear()
        assert main(argv) == 0
    assert len(server["bodies"]) == 160
    assert len(read_jsonl(tmp_path / "predictions.jsonl")) == 160


def test_intermittent_failures_and_429s_never_trip_the_breaker(built_dataset, tmp_path, capsys):
    order: dict[str, int] = {}

    def every_other_row_down(body, seen):  # one request at a time: rows fail and succeed in turn
        ordinal = order.setdefault(body["messages"][-1]["content"], len(order))
        return (503, 0.0, "") if ordinal % 2 else (200, 0.0, ANSWER)

    argv = ["--limit", "8", "--http-retries", "1", "--concurrency", "1", "--http-give-up-after", "2"]
    with chat_server(every_other_row_down) as server:
        assert main(_argv(built_dataset, tmp_path / "a", server["url"], *argv)) == 2
    message = _one_line_error(capsys)
    assert "looks down" not in message and "4 requests failed after every retry" in message
    assert len(server["bodies"]) == 4 + 4 * 2 and len(read_records(tmp_path / "a")) == 4

    # a rate limit says the server is alive, even between 503s: never "down"
    with chat_server(lambda body, seen: (429, 0.0, "") if seen % 2 else (503, 0.0, "")) as server:
        assert main(_argv(built_dataset, tmp_path / "b", server["url"], *argv[:-1], "1")) == 2
    message = _one_line_error(capsys)
    assert "looks down" not in message
    assert "8 requests failed after every retry (first: row q01-sufficient: HTTP 429 from " in message
    assert len(server["bodies"]) == 8 * 2  # every row spent its retries: none was left unsent


def test_the_breaker_stays_open_across_backend_calls_and_sends_nothing_more():
    from eviscope.runner.backends.base import ChatRequest

    backend = _backend(give_up_after=2, max_retries=1, concurrency=1, base_url=_closed_port_url())
    first = backend.complete([ChatRequest(f"k{i}", [{"role": "user", "content": "q"}], {}) for i in range(3)])
    assert [c.calls for c in first] == [2, 2, 0] and all(c.retryable for c in first)
    assert first[2].error == backend.gave_up and "looks down: 2 requests in a row" in backend.gave_up
    again = backend.complete([ChatRequest("k3", [{"role": "user", "content": "q"}], {})])
    assert again[0].calls == 0 and again[0].retryable and backend.engine_calls == 4


def test_retry_after_in_seconds_or_as_an_http_date():
    assert retry_after_seconds("3") == 3.0 and retry_after_seconds("0") == 0.0
    assert retry_after_seconds("-5") == 0.0
    assert retry_after_seconds("Wed, 21 Oct 2015 07:28:00 GMT") == 0.0  # in the past
    assert 3000 < retry_after_seconds("Fri, 01 Jan 2100 00:00:00 GMT") < 1e10
    assert retry_after_seconds("soon") is None and retry_after_seconds("nan") is None
    assert retry_after_seconds(None) is None
    backend = _backend()
    assert backend._delay(0, "1000") == 60.0  # capped at max_backoff_s
    assert 0.005 <= backend._delay(0, "garbage") <= 0.01  # unreadable: exponential backoff


def _backend(**options):
    from eviscope.runner.backends.base import SamplingConfig
    from eviscope.runner.backends.openai_backend import OpenAIBackend

    return OpenAIBackend("m", SamplingConfig(), **{"base_url": "http://127.0.0.1:9/v1", "backoff_s": 0.01,
                                                   **options})  # fmt: skip


# ----------------------------------------------------------------------------------------------
# a full disk, a read-only folder


_REAL_FSYNC = os.fsync


def _full_disk_for(monkeypatch, prefix: str | None) -> None:
    """Writes of a temporary file named ``<prefix>…`` fail with ENOSPC at their fsync (None: none)."""
    real_fsync = _REAL_FSYNC

    def fsync(fd):
        if prefix is not None and os.path.basename(os.readlink(f"/proc/self/fd/{fd}")).startswith(prefix):
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_fsync(fd)

    monkeypatch.setattr(os, "fsync", fsync)


def test_full_disk_for_the_manifest_and_predictions_is_one_line_and_keeps_the_journal(
    built_dataset, tmp_path, capsys, monkeypatch
):
    out = tmp_path / "run"
    with chat_server() as server:
        argv = _argv(built_dataset, out, server["url"], "--limit", "4")
        _full_disk_for(monkeypatch, ".manifest.json.")
        assert main(argv) == 2
        message = _one_line_error(capsys)
        assert f"cannot write {out / 'manifest.json'}: No space left on device (ENOSPC)" in message
        assert list(out.glob(".manifest.json.*")) == []  # the temporary file is cleaned up
        _full_disk_for(monkeypatch, None)
        assert main(argv) == 0  # space is back
        journal = (out / "records.jsonl").read_bytes()
        (out / "predictions.jsonl").unlink()
        _full_disk_for(monkeypatch, ".predictions.jsonl.")
        capsys.readouterr()
        assert main(argv) == 2
        assert f"cannot write {out / 'predictions.jsonl'}: No space left on device" in _one_line_error(capsys)
        assert list(out.glob(".predictions.jsonl.*")) == []
        assert (out / "records.jsonl").read_bytes() == journal
        assert json.loads((out / "manifest.json").read_text())["status"] == "complete"
        _full_disk_for(monkeypatch, None)
        assert main(argv) == 0
    assert [p["id"] for p in read_jsonl(out / "predictions.jsonl")] == [
        r["id"] for r in read_jsonl(out / "records.jsonl")
    ]


def test_disk_full_during_a_journal_write_cuts_it_back_and_a_rerun_resumes(
    built_dataset, tmp_path, capsys, monkeypatch
):
    out = tmp_path / "run"
    journal = out / "records.jsonl"
    real_write = os.write
    room = {"bytes": 3000}  # the disk fills up a few rows in, in the middle of a batch's write

    def write(fd, data):
        if not _is(fd, journal):
            return real_write(fd, data)
        if room["bytes"] <= 0:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        written = real_write(fd, bytes(data[: room["bytes"]]))
        room["bytes"] -= written
        return written

    monkeypatch.setattr(os, "write", write)
    with chat_server() as server:
        argv = _argv(built_dataset, out, server["url"], "--limit", "24", "--batch-size", "4")
        assert main(argv) == 2
        message = _one_line_error(capsys)
        assert (
            f"cannot write {journal}: No space left on device (ENOSPC); what was journaled before is kept"
            in message
        )
        kept = journal.read_bytes()
        assert kept.endswith(b"\n") and len(kept) <= 3000  # the part written of the failed batch is cut off
        done = [r["id"] for r in read_jsonl(journal)]
        assert 0 < len(done) < 24 and len(done) % 4 == 0  # whole batches only
        manifest = json.loads((out / "manifest.json").read_text())
        assert manifest["status"] == "failed" and manifest["rows"]["done"] == len(done)
        monkeypatch.setattr(os, "write", real_write)
        server["bodies"].clear()
        assert main(argv) == 0
    assert len(server["bodies"]) == 24 - len(done)
    ids = [r["id"] for r in read_jsonl(journal)]
    assert ids[: len(done)] == done and len(ids) == len(set(ids)) == 24


def _is(fd, path):
    try:
        here, there = os.fstat(fd), os.stat(path)
    except OSError:
        return False
    return (here.st_dev, here.st_ino) == (there.st_dev, there.st_ino)


def _read_only(monkeypatch, folder: Path) -> str:
    """Make ``folder`` read-only, and return the OS reason the error must name: by its mode where
    that binds (the caller restores it), else (as root, which ignores modes) as a read-only mount."""
    folder.chmod(stat.S_IRUSR | stat.S_IXUSR)
    probe = folder / ".probe"
    try:
        probe.touch()
    except PermissionError:
        return "Permission denied (EACCES)"
    probe.unlink()
    folder.chmod(0o755)
    make_read_only(monkeypatch, folder)
    return "Read-only file system (EROFS)"


def test_a_read_only_run_folder_is_one_line_and_keeps_the_journal(
    built_dataset, tmp_path, capsys, monkeypatch
):
    out = tmp_path / "run"
    with chat_server() as server:
        assert main(_argv(built_dataset, out, server["url"], "--limit", "4")) == 0
        before = {p.name: p.read_bytes() for p in out.iterdir()}
        capsys.readouterr()
        reason = _read_only(monkeypatch, out)
        try:
            assert main(_argv(built_dataset, out, server["url"], "--limit", "8")) == 2
            message = _one_line_error(capsys)
            # the writer lock is the first thing written: nothing else is tried
            assert f"cannot write {out / '.eviscope-run.lock'}: {reason}; use another --out" in message
            assert {p.name: p.read_bytes() for p in out.iterdir()} == before
            missing = tmp_path / "ro" / "new-run"
            missing.parent.mkdir()
            reason = _read_only(monkeypatch, missing.parent)
            assert main(_argv(built_dataset, missing, server["url"], "--limit", "2")) == 2
            assert f"cannot create {missing}: {reason}; use another --out" in _one_line_error(capsys)
        finally:
            monkeypatch.undo()
            for folder in (out, tmp_path / "ro"):
                if folder.exists():
                    folder.chmod(0o755)
        assert main(_argv(built_dataset, out, server["url"], "--limit", "8")) == 0
    assert len(read_records(out)) == 8


def test_journal_and_atomic_write_errors_name_the_path_and_reason(tmp_path, monkeypatch):
    journal = Journal(tmp_path / "records.jsonl")
    journal.append([{"id": "a"}])

    def no_space(fd):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "fsync", no_space)  # a delayed-allocation disk fails at fsync
    with pytest.raises(
        EviScopeError, match=r"cannot write .*records\.jsonl: No space left on device \(ENOSPC\)"
    ):
        journal.append([{"id": "b"}, {"id": "c"}])
    with pytest.raises(EviScopeError, match=r"cannot write .*out\.json: No space left on device"):
        write_atomic(tmp_path / "out.json", "{}")
    monkeypatch.undo()
    assert (tmp_path / "records.jsonl").read_bytes() == b'{"id": "a"}\n'  # cut back to what it held
    assert list(tmp_path.glob(".out.json.*")) == [] and not (tmp_path / "out.json").exists()
    (tmp_path / "records.x.jsonl").symlink_to("/dev/full")  # e.g. a device: never read (endless)
    (tmp_path / "records.jsonl").unlink()
    with pytest.raises(EviScopeError, match=r"records\.x\.jsonl is not a regular file"):
        read_records(tmp_path)
