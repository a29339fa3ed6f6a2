"""``eviscope run --backend openai`` against a hostile or broken server, and a hostile run folder
(issue 27): each case ends in a recorded error or a one-line message, bounded, with nothing lost,
nothing asked twice and no secret written. Every server is the stub on 127.0.0.1; timeouts here are
safety bounds only, never assertions."""

from __future__ import annotations

import base64
import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from runner_fixtures import ANSWER, chat_server, read_jsonl
from stub_server import Raw, chat_body

from eviscope.cli import main
from eviscope.suites.eviscope.dataset import load_rows
from eviscope.suites.eviscope.predictions import load_predictions
from eviscope.suites.eviscope.task import EviScopeTask

SAFETY_S = 120
"""The most a child run may take before the test gives up on it (a bound, not a measurement)."""


def _argv(dataset, out, url, *extra):
    return ["run", "--backend", "openai", "--model", "m", "--base-url", url, "--dataset", str(dataset),
            "--out", str(out), "--backoff", "0.01", *map(str, extra)]  # fmt: skip


def _error_line(capsys, command: str = "run") -> str:
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert lines and lines[-1].startswith(f"eviscope {command}: error: "), err
    assert "Traceback" not in err
    return lines[-1]


def _prompts(dataset: Path, n: int) -> list[str]:
    """The prompts of the first ``n`` rows, as the run sends them (the default policy)."""
    task = EviScopeTask("vanilla")
    return [task.requests(row)[0].messages[0]["content"] for row in load_rows("eviscope-v1.1", dataset)[:n]]


def _which(body: dict, prompts: list[str]) -> int:
    return prompts.index(body["messages"][0]["content"])


# --- usage validated at the edge --------------------------------------------------------------

BAD_USAGE = ['{"prompt_tokens": 1e400, "completion_tokens": 5}', '{"prompt_tokens": -1000000}',
             '{"prompt_tokens": 1e26}', '{"prompt_tokens": "100"}', '{"completion_tokens": true}',
             '"lots"']  # fmt: skip
GOOD_USAGE = ['{"prompt_tokens": 100.0, "completion_tokens": 20}', "null"]


def test_usage_counts_out_of_bounds_are_the_rows_error_and_the_run_goes_on(built_dataset, tmp_path):
    usages = BAD_USAGE + GOOD_USAGE
    prompts = _prompts(built_dataset, len(usages))

    def hostile(body, headers, path):
        return Raw(chunks=[chat_body(ANSWER, usages[_which(body, prompts)])])

    argv = _argv(built_dataset, tmp_path, "", "--limit", len(usages), "--max-retries", 0)
    with chat_server(raw=hostile) as server:
        argv[argv.index("--base-url") + 1] = server["url"]
        assert main(argv) == 0
        asked = len(server["bodies"])
        assert main(argv) == 0  # a rerun has nothing left to ask
        assert len(server["bodies"]) == asked == len(usages)  # a bad count is final: not asked again
    records = {r["id"]: r for r in read_jsonl(tmp_path / "records.jsonl")}
    ids = [row["id"] for row in load_rows("eviscope-v1.1", built_dataset)[: len(usages)]]
    errors = [records[i]["error"] for i in ids]
    assert "usage.prompt_tokens is Infinity, not a whole number between 0 and 1,000,000,000,000" in errors[0]
    assert "usage.prompt_tokens is -1000000" in errors[1] and "usage.prompt_tokens is 1e+26" in errors[2]
    assert 'usage.prompt_tokens is "100"' in errors[3] and "usage.completion_tokens is true" in errors[4]
    assert 'usage is "lots", not an object' in errors[5]
    assert errors[6:] == [None, None]
    assert [records[i]["usage"]["prompt_tokens"] for i in ids] == [0] * 6 + [100, 0]
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    assert manifest["status"] == "complete" and manifest["usage"]["prompt_tokens"] == 100
    # the suite's own predictions reader takes what the runner wrote
    rows = load_rows("eviscope-v1.1", built_dataset)[: len(usages)]
    assert [p.id for p in load_predictions(tmp_path / "predictions.jsonl", rows)] == ids


# --- a total deadline, a byte cap, a bounded journal ------------------------------------------


def test_a_trickling_server_is_cut_at_the_total_deadline(built_dataset, tmp_path):
    def trickle(body, headers, path):  # a valid reply, one byte every 0.5 s: 200 s in all
        data = chat_body(ANSWER, {"prompt_tokens": 1})
        return Raw(chunks=[data[i : i + 1] for i in range(len(data))], pause_s=0.5)

    with chat_server(raw=trickle) as server:
        argv = _argv(
            built_dataset, tmp_path, server["url"], "--limit", 1, "--timeout", 2, "--http-retries", 0
        )
        child = subprocess.run([sys.executable, "-m", "eviscope.cli", *argv], capture_output=True,
                               text=True, timeout=SAFETY_S)  # fmt: skip
    assert child.returncode == 2 and "Traceback" not in child.stderr
    line = child.stderr.strip().splitlines()[-1]
    assert line.startswith("eviscope run: error: ")
    assert (
        "1 requests failed after every retry (first: row q01-sufficient: no whole reply within --timeout 2 s"
        in line
    )
    assert len(server["bodies"]) == 1


def test_a_reply_over_the_byte_cap_is_the_rows_error_and_the_journal_stays_small(built_dataset, tmp_path):
    prompts = _prompts(built_dataset, 3)
    mib = b"x" * (1 << 20)

    def huge(body, headers, path):
        which = _which(body, prompts)
        if which == 0:  # announces 200 MB
            return Raw(chunks=[mib] * 200, length=200 << 20)
        if which == 1:  # no length: the body runs on until the connection closes
            return Raw(chunks=[mib] * 200, length=-1)
        return Raw(chunks=[chat_body("y" * 200_000, {"prompt_tokens": 1})])  # under the cap, but long

    with chat_server(raw=huge) as server:
        argv = _argv(built_dataset, tmp_path, server["url"], "--limit", 3, "--max-reply-bytes", 1_000_000,
                     "--max-retries", 0)  # fmt: skip
        assert main(argv) == 0
    assert len(server["bodies"]) == 3  # a reply over the cap is final: not retried
    records = read_jsonl(tmp_path / "records.jsonl")
    by_id = {r["id"]: r for r in records}
    assert (
        "over --max-reply-bytes 1,000,000 (announces 209,715,200 bytes)" in by_id["q01-sufficient"]["error"]
    )
    assert "over --max-reply-bytes 1,000,000 (went on past" in by_id["q01-noisy"]["error"]
    assert by_id["q01-insufficient"]["raw"].endswith("… [cut: the reply held 200,000 characters]")
    assert (tmp_path / "records.jsonl").stat().st_size < 100_000


# --- one writer per run folder; calls counted from the journal ----------------------------------


def test_a_second_run_on_the_same_folder_is_refused_naming_the_first(built_dataset, tmp_path, capsys):
    with chat_server(lambda body, seen: (200, 0.2, ANSWER)) as server:
        argv = _argv(built_dataset, tmp_path, server["url"], "--limit", 8, "--concurrency", 1)
        first = subprocess.Popen(
            [sys.executable, "-m", "eviscope.cli", *argv], stderr=subprocess.PIPE, text=True
        )
        deadline = time.monotonic() + SAFETY_S
        while not server["bodies"] and time.monotonic() < deadline and first.poll() is None:
            time.sleep(0.02)
        assert server["bodies"], "the first run never asked"
        assert main(argv) == 2
        line = _error_line(capsys)
        host = socket.gethostname()
        assert f"is being written by another eviscope run (pid {first.pid} on {host}, since " in line
        assert line.endswith("wait for it to end, or use another --out")
        assert first.wait(timeout=SAFETY_S) == 0
        assert main(argv) == 0  # once it ended, the folder is free
    assert len(server["bodies"]) == 8  # every row asked once, not twice
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    assert manifest["engine_calls"] == 8 and manifest["usage"]["calls"] == 8


def test_after_kill_9_the_manifest_counts_the_calls_the_journal_holds(built_dataset, tmp_path):
    out = tmp_path / "run"
    with chat_server(lambda body, seen: (200, 0.01, ANSWER)) as server:
        argv = _argv(built_dataset, out, server["url"], "--limit", 40, "--batch-size", 1, "--concurrency", 1)
        for _ in range(3):  # three sessions killed mid-run
            before = (out / "records.jsonl").read_bytes().count(b"\n") if out.exists() else 0
            child = subprocess.Popen([sys.executable, "-m", "eviscope.cli", *argv], stderr=subprocess.DEVNULL)
            deadline = time.monotonic() + SAFETY_S
            journal = out / "records.jsonl"
            while time.monotonic() < deadline and (
                not journal.exists() or journal.read_bytes().count(b"\n") < before + 5
            ):
                time.sleep(0.01)
            os.kill(child.pid, signal.SIGKILL)
            child.wait()
        killed_served = len(server["bodies"])
        assert main(argv) == 0
        served = len(server["bodies"])
    manifest = json.loads((out / "manifest.json").read_text())
    sessions = manifest["sessions"]
    assert len(sessions) == 4 and [s["finished_at"] is None for s in sessions] == [True] * 3 + [False]
    # each killed session may have had one call in flight (its row not journaled, so asked again)
    assert killed_served - 3 <= manifest["engine_calls"] - sessions[3]["engine_calls"] <= killed_served
    assert manifest["engine_calls"] >= served - 3 and manifest["engine_calls"] == manifest["usage"]["calls"]


# --- a malformed journal line on resume ---------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        (b"{}", "field id is null, not a row id"),
        (b"[]", "not a JSON object but []"),
        (b'"q01-noisy"', 'not a JSON object but "q01-noisy"'),
        (b'{"id": "q01-noisy"}', "field usage is null, not an object"),
        (b'{"id": "q01-noisy", "usage": {"calls": "x"}, "parse": {}}', "field usage.prompt_tokens is null"),
        (b'{"id": "q01-noisy", "action": "ans', "not valid JSON"),
    ],
    ids=["empty-object", "array", "string", "no-usage", "bad-usage", "cut-json"],
)
def test_a_malformed_journal_line_is_one_line_naming_it_and_nothing_is_lost(
    built_dataset, tmp_path, capsys, line, problem
):
    with chat_server() as server:
        argv = _argv(built_dataset, tmp_path, server["url"], "--limit", 4)
        assert main(argv) == 0
        journal = tmp_path / "records.jsonl"
        lines = journal.read_bytes().splitlines(keepends=True)
        journal.write_bytes(b"".join([*lines[:2], line + b"\n", *lines[2:]]))
        capsys.readouterr()
        server["bodies"].clear()
        assert main(argv) == 2
        message = _error_line(capsys)
        assert message.startswith(f"eviscope run: error: {journal} line 3: not a run record: {problem}")
        assert message.endswith(
            "delete that line to run its row again (or move the file away to start over), then rerun"
        )
        assert server["bodies"] == []  # nothing asked while the journal is in doubt
        journal.write_bytes(b"".join(lines))
        assert main(argv) == 0
    assert len(read_jsonl(tmp_path / "predictions.jsonl")) == 4


# --- secrets never written -----------------------------------------------------------------------

API_KEY = "sk-fake-api-key-0123456789"
URL_PASSWORD = "url-password-0123456789"
QUERY_SECRETS = {"api-key": "query-api-key-0123456789", "key": "query-key-0123456789",
                 "access_token": "query-token-0123456789"}  # fmt: skip


def _echo(status: int):
    """A server that echoes the request's credentials back: its path and Authorization header."""

    def reply(body, headers, path):
        echoed = f"path {path} authorization {headers.get('Authorization')}"
        if status == 200:
            return Raw(chunks=[chat_body(echoed, {"prompt_tokens": 1})])
        return Raw(status=status, chunks=[json.dumps({"error": {"message": echoed}}).encode()])

    return reply


def test_no_secret_reaches_a_manifest_a_journal_an_error_or_the_screen(
    built_dataset, tmp_path, capsys, monkeypatch
):
    tokens = [API_KEY, URL_PASSWORD, *QUERY_SECRETS.values()]
    tokens.append(base64.b64encode(f"user:{URL_PASSWORD}".encode()).decode())
    query = "&".join(f"{k}={v}" for k, v in QUERY_SECRETS.items()) + "&api-version=2024-06-01"
    printed = []
    for status in (200, 401, 500):
        with chat_server(raw=_echo(status)) as server:
            host = server["url"].removeprefix("http://")
            for with_key, url in (
                (True, f"{server['url']}?{query}"),
                (False, f"http://user:{URL_PASSWORD}@{host}"),
            ):
                if with_key:
                    monkeypatch.setenv("OPENAI_API_KEY", API_KEY)
                else:
                    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
                out = tmp_path / f"{status}-{with_key}"
                code = main(
                    _argv(built_dataset, out, url, "--limit", 2, "--http-retries", 1, "--max-retries", 0)
                )
                assert code == (2 if status == 500 else 0)
                captured = capsys.readouterr()
                printed.append(captured.out + captured.err)
            echoed = [b["messages"] for b in server["bodies"]]
            assert echoed  # the server was asked, and did echo what it got
    files = {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
    assert any(p.name == "records.jsonl" for p in files) and any(p.name == "manifest.json" for p in files)
    for token in tokens:  # nor the start of one (a secret cut short by a message leaks that much)
        start = token[:12]
        leaks = [str(p) for p, data in files.items() if start.encode() in data]
        leaks += [f"output {i}" for i, text in enumerate(printed) if start in text]
        assert leaks == [], f"{token} leaked into {leaks}"
    record = read_jsonl(tmp_path / "401-True" / "records.jsonl")[0]
    assert "authorization Bearer [REDACTED]" in record["error"] and "api-key=[REDACTED]" in record["error"]
    manifest = json.loads((tmp_path / "500-False" / "manifest.json").read_text())
    assert "authorization Basic [REDACTED]" in manifest["sessions"][-1]["error"]
    recorded = json.loads((tmp_path / "200-True" / "manifest.json").read_text())
    assert recorded["backend_settings"]["base_url"].endswith(
        "/v1?api-key=REDACTED&key=REDACTED&access_token=REDACTED&api-version=2024-06-01"
    )
    assert recorded["backend_details"]["base_url"] == recorded["backend_settings"]["base_url"]
    assert (
        "@"
        not in json.loads((tmp_path / "200-False" / "manifest.json").read_text())["backend_settings"][
            "base_url"
        ]
    )


@pytest.mark.parametrize(
    ("url", "recorded"),
    [
        ("http://user:KEY-0123@127.0.0.1:8000/v1", "http://127.0.0.1:8000/v1"),
        ("http://KEY-0123@host/v1", "http://host/v1"),
        ("https://host/v1?api-key=KEY-0123", "https://host/v1?api-key=REDACTED"),
        ("https://host/v1?key=KEY-0123&api-version=2024", "https://host/v1?key=REDACTED&api-version=2024"),
        (
            "https://host/v1?access_token=KEY-0123&sig=KEY-0123",
            "https://host/v1?access_token=REDACTED&sig=REDACTED",
        ),
        ("http://[::1]:8000/v1?Password=KEY-0123", "http://[::1]:8000/v1?Password=REDACTED"),
    ],
)
def test_credentials_are_stripped_from_every_form_of_url(url, recorded):
    from eviscope.runner.redact import Redactor, safe_url, url_secrets

    assert safe_url(url) == recorded
    assert "KEY-0123" in url_secrets(url)
    assert "KEY-0123" not in Redactor(url_secrets(url)).text(f"echo: {url}")


def test_credentials_in_the_url_and_an_api_key_together_are_one_line_naming_neither(
    built_dataset, tmp_path, capsys, monkeypatch
):
    monkeypatch.setenv("OPENAI_API_KEY", API_KEY)
    with chat_server() as server:
        host = server["url"].removeprefix("http://")
        url = f"http://user:{URL_PASSWORD}@{host}"
        assert main(_argv(built_dataset, tmp_path, url, "--limit", 1)) == 2
        assert server["bodies"] == []
    line = _error_line(capsys)
    assert f"--base-url http://{host} carries a user name or password and $OPENAI_API_KEY is set too" in line
    written = b"".join(p.read_bytes() for p in tmp_path.rglob("*") if p.is_file())
    assert URL_PASSWORD not in line and API_KEY not in line and URL_PASSWORD.encode() not in written
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    assert manifest["status"] == "failed" and "carries a user name" in manifest["sessions"][-1]["error"]


# --- options validated as they are parsed (issue 34) ---------------------------------------------

BAD_OPTIONS = {
    # hung forever (no request ever in flight), or a traceback (a semaphore below 0)
    ("--concurrency", "0"): "argument --concurrency: must be a whole number, at least 1; got '0'",
    ("--concurrency", "-1"): "argument --concurrency: must be a whole number, at least 1; got '-1'",
    # an OverflowError traceback from the event loop's deadline
    ("--timeout", "inf"): "argument --timeout: must be a finite number, greater than 0; got 'inf'",
    ("--timeout", "0"): "argument --timeout: must be a finite number, greater than 0; got '0'",
    # a KeyError traceback: no attempt was ever made
    ("--max-retries", "-1"): "argument --max-retries: must be a whole number, at least 0; got '-1'",
    # ran 159 of the 160 rows (a Python slice)
    ("--limit", "-1"): "argument --limit: must be a whole number, at least 1; got '-1'",
    ("--limit", "0"): "argument --limit: must be a whole number, at least 1; got '0'",
    # wrote records whose cost the same run's resume refuses
    ("--price-prompt", "nan"): "argument --price-prompt: must be a finite number, at least 0; got 'nan'",
    ("--price-completion", "-1"): "argument --price-completion: must be a finite number, at least 0; got '-1'",
    ("--http-retries", "-1"): "argument --http-retries: must be a whole number, at least 0; got '-1'",
    ("--backoff", "inf"): "argument --backoff: must be a finite number, at least 0; got 'inf'",
    ("--max-reply-bytes", "0"): "argument --max-reply-bytes: must be a whole number, at least 1; got '0'",
    ("--max-tokens", "0"): "argument --max-tokens: must be a whole number, at least 1; got '0'",
    ("--batch-size", "-2"): "argument --batch-size: must be a whole number, at least 0; got '-2'",
    ("--seed", "-1"): "argument --seed: must be a whole number from 0 to 4,294,967,295; got '-1'",
    ("--tensor-parallel-size", "0"): "argument --tensor-parallel-size: must be a whole number, at least 1; got '0'",
    ("--max-batch-tokens", "1e3"): "argument --max-batch-tokens: must be a whole number, at least 1; got '1e3'",
    ("--workers", "0"): "argument --workers: must be a whole number, at least 1; got '0'",
}  # fmt: skip


@pytest.mark.parametrize("option", list(BAD_OPTIONS), ids=" ".join)
def test_an_option_out_of_range_is_argparses_one_line_naming_it_before_anything_runs(
    option, tmp_path, capsys
):
    # a dataset that is not there: today's code fails on it after parsing, never hanging
    argv = _argv(tmp_path / "no-dataset", tmp_path / "run", "http://127.0.0.1:9/v1", *option)
    with pytest.raises(SystemExit) as stopped:
        main(argv)
    err = capsys.readouterr().err
    assert stopped.value.code == 2 and "Traceback" not in err
    assert err.splitlines()[-1] == f"eviscope run: error: {BAD_OPTIONS[option]}"
    assert not (tmp_path / "run").exists()


BAD_ATTRIBUTE_OPTIONS = {
    ("--eps", "0"): "argument --eps: must be a finite number, greater than 0; got '0'",
    ("--min-samples", "0"): "argument --min-samples: must be a whole number, at least 1; got '0'",
    ("--temperature", "nan"): "argument --temperature: must be a finite number, greater than 0; got 'nan'",
    ("--repeats", "-1"): "argument --repeats: must be a whole number, at least 1; got '-1'",
}  # fmt: skip


@pytest.mark.parametrize("option", list(BAD_ATTRIBUTE_OPTIONS), ids=" ".join)
def test_an_attribute_option_out_of_range_is_one_line_naming_it(option, tmp_path, capsys):
    with pytest.raises(SystemExit) as stopped:
        main(["attribute", str(tmp_path / "no-run"), *option])
    err = capsys.readouterr().err
    assert stopped.value.code == 2 and "Traceback" not in err
    assert err.splitlines()[-1] == f"eviscope attribute: error: {BAD_ATTRIBUTE_OPTIONS[option]}"


def test_backend_settings_from_a_manifest_are_checked_against_the_same_ranges():
    from eviscope.core.errors import EviScopeError
    from eviscope.runner.backends import backend_settings

    with pytest.raises(
        EviScopeError,
        match=r"^openai backend setting --concurrency: must be a whole number, at least 1; got 0$",
    ):
        backend_settings("openai", {"model": "m", "concurrency": 0})
    with pytest.raises(
        EviScopeError,
        match=r"^openai backend setting --timeout: must be a finite number, greater than 0; got inf$",
    ):
        backend_settings("openai", {"model": "m", "timeout_s": float("inf")})
    assert backend_settings("openai", {"model": "m", "concurrency": 1, "timeout_s": 0.5}).concurrency == 1  # fmt: skip
