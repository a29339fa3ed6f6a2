"""Runner fault injection: ``eviscope run`` killed at 10 random moments, and a flaky HTTP server.

Kill trials. ``eviscope run --backend openai`` runs as a subprocess against a stub OpenAI-compatible
server in this process, on every row of a config, and is killed with SIGKILL at 10 seeded random
moments, each followed by a rerun of the same command, which resumes: during start-up, while the
first batch is in flight (no record yet), at a random request mid-run, in the middle of a journal
write (the child's write of a batch is cut in half, so the kill leaves a real torn line), with every
row journaled but before the final manifest is renamed into place, and with the manifest final but
before ``predictions.jsonl`` is. After each kill the journal must still hold every row it held before
and no id twice, and ``manifest.json`` must parse; at the end ``predictions.jsonl`` must hold every
row id of the config exactly once and the manifest must be complete and agree with the journal.

HTTP faults. The server answers each request after 0 to ``bound`` injected faults (seeded per
request): 429 (``Retry-After: 0``, or ``1`` for some, whose wait is measured), 500, 503, a reply slower
than ``--timeout``, a reset connection, or a 200 with a truncated JSON body. The run must finish,
every fault must cost exactly one retry, and no request may be retried more than ``--http-retries``
times. Then an outage: the server fails every request after the first 40 with 503; the run must
stop with a one-line error naming the status and a row, keep the 40 finished rows in the journal,
give up on the server once ``--http-give-up-after`` (8) requests in a row failed after every retry
(so the outage costs a bounded number of requests, not a retry cycle for each of the other 120
rows), and a rerun against the healthy server must ask only for the missing rows.

    python tests/runner_faults.py [--dataset dataset] [--seed 0]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import random
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

from stub_server import StubServer, answer_for, request_key  # noqa: F401

from eviscope.core.layout import DEFAULT_DATASET_DIR
from eviscope.core.registry import DEFAULT_CONFIG

TRIALS = 10
BATCH = 8
CHILD_TIMEOUT_S = 120.0
GIVE_UP_AFTER = 8  # eviscope run's default --http-give-up-after

# ----------------------------------------------------------------------------------------------
# The child: `eviscope run` that can pause at a chosen write, so the parent kills it right there


def _pause(what: str) -> None:
    print(f"PAUSED {what}", flush=True)
    time.sleep(CHILD_TIMEOUT_S)
    os._exit(3)  # never reached when the parent kills as it should


def _same_file(fd: int, path: Path) -> bool:
    try:
        here, there = os.fstat(fd), os.stat(path)
    except OSError:
        return False
    return (here.st_dev, here.st_ino) == (there.st_dev, there.st_ino)


def child(spec: str, argv: list[str]) -> int:
    """Run ``eviscope <argv>``; ``spec`` ``journal:N`` writes half of the N-th journal write and
    pauses, ``replace:NAME:N`` pauses before the N-th rename onto NAME (the file is then written
    but not in place), ``replace:manifest.json:final`` before the manifest that is no longer
    ``running``; ``none`` just runs."""
    kind, _, arg = spec.partition(":")
    out = Path(argv[argv.index("--out") + 1])
    count = 0
    if kind == "journal":
        real_write = os.write

        def write(fd: int, data: Any) -> int:
            nonlocal count
            if _same_file(fd, out / "records.jsonl"):
                count += 1
                if count == int(arg):
                    data = bytes(data)
                    cut = len(data) // 2
                    cut -= data[cut - 1 : cut] == b"\n"  # end inside a line, not between two
                    real_write(fd, data[:cut])
                    os.fsync(fd)
                    _pause(f"in journal write {count}")
            return real_write(fd, data)

        os.write = write
    elif kind == "replace":
        name, _, nth = arg.partition(":")
        real_replace = os.replace

        def replace(src: Any, dst: Any, **kwargs: Any) -> None:
            nonlocal count
            if Path(dst).name == name:
                count += 1
                if nth == "final" and json.loads(Path(src).read_text())["status"] != "running":
                    _pause(f"before the final rename onto {name}")
                if nth != "final" and count == int(nth):
                    _pause(f"before rename {count} onto {name}")
            real_replace(src, dst, **kwargs)

        os.replace = replace
    from eviscope.cli import main

    return main(argv)


# ----------------------------------------------------------------------------------------------
# Kill trials


def _journal(out: Path) -> tuple[list[dict[str, Any]], bool]:
    """The journal's whole lines, and whether a torn last line follows them."""
    path = out / "records.jsonl"
    data = path.read_bytes() if path.exists() else b""
    keep = data.rfind(b"\n") + 1
    return [json.loads(line) for line in data[:keep].splitlines() if line.strip()], keep < len(data)


def _plan(rng: random.Random, trials: int) -> list[str]:
    """The kill moments in order: start-up, first batch, a shuffled mix mid-run, the two after the
    last record."""
    middle = ["request", "journal"] * ((trials - 4) // 2) + ["request"] * ((trials - 4) % 2)
    rng.shuffle(middle)
    return ["startup", "first-batch", *middle, "final-manifest", "predictions"][:trials]


def kill_trials(dataset: Path, work: Path, *, seed: int = 0, trials: int = TRIALS,
                config: str = DEFAULT_CONFIG) -> dict[str, Any]:  # fmt: skip
    """SIGKILL ``eviscope run`` at ``trials`` seeded moments, resuming after each; the tally."""
    from eviscope.suites.eviscope.dataset import load_rows

    ids = [row["id"] for row in load_rows(config, dataset)]
    rng = random.Random(seed)
    out = work / "killed-run"
    logs = work / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    server = StubServer()
    state: dict[str, Any] = {"pid": None, "kill_at": None}

    def on_request(served: int) -> None:
        if state["kill_at"] is not None and served >= state["kill_at"] and state["pid"]:
            with contextlib.suppress(ProcessLookupError):
                os.kill(state["pid"], signal.SIGKILL)

    server.on_request = on_request
    report: dict[str, Any] = {"rows": len(ids), "trials": [], "kills": 0, "torn": 0, "lost": 0,
                              "problems": []}  # fmt: skip
    journaled: set[str] = set()
    with server.serving():
        argv = ["run", "--backend", "openai", "--model", "stub", "--base-url", server.url,
                "--dataset", str(dataset), "--config", config, "--out", str(out),
                "--batch-size", str(BATCH), "--concurrency", "4", "--backoff", "0.01"]  # fmt: skip
        for number, moment in enumerate([*_plan(rng, trials), "none"], start=1):
            pending = len(ids) - len(journaled)
            spec, delay, state["kill_at"] = "none", None, None
            if moment == "startup":
                delay, state["kill_at"] = round(rng.uniform(0.0, 2.0), 2), 1
                detail = f"{delay} s after spawn (or at the first request)"
            elif moment == "first-batch":
                state["kill_at"] = rng.randint(1, BATCH)
                detail = f"at request {state['kill_at']} of the first batch"
            elif moment == "request":
                state["kill_at"] = rng.randint(BATCH + 1, max(BATCH + 1, min(pending - 1, 3 * BATCH)))
                detail = f"at request {state['kill_at']}"
            elif moment == "journal":
                nth = rng.randint(1, 3)
                spec, detail = f"journal:{nth}", f"halfway through journal write {nth}"
            elif moment == "final-manifest":
                spec, detail = (
                    "replace:manifest.json:final",
                    "after the last record, before the final manifest",
                )
            elif moment == "predictions":
                spec, detail = "replace:predictions.jsonl:1", "manifest final, before predictions.jsonl"
            else:
                detail = "resume to the end"
            server.reset()
            with (logs / f"trial-{number}.err").open("w") as err:
                child_process = subprocess.Popen(
                    [sys.executable, __file__, "--child", spec, "--", *argv],
                    stdout=subprocess.PIPE, stderr=err, text=True,
                )  # fmt: skip
                state["pid"] = child_process.pid
                if spec != "none":
                    for line in child_process.stdout:  # type: ignore[union-attr]
                        if line.startswith("PAUSED"):
                            os.kill(child_process.pid, signal.SIGKILL)
                            break
                elif delay is not None:
                    with contextlib.suppress(subprocess.TimeoutExpired):
                        child_process.wait(delay)
                    with contextlib.suppress(ProcessLookupError):
                        os.kill(child_process.pid, signal.SIGKILL)
                code = child_process.wait(CHILD_TIMEOUT_S)
                child_process.stdout.close()  # type: ignore[union-attr]
            state["pid"] = None
            records, torn = _journal(out)
            now = {r["id"] for r in records}
            duplicated = sum(n - 1 for n in Counter(r["id"] for r in records).values())
            lost = len(journaled - now)
            manifest_ok = _manifest_parses(out)
            killed = code == -signal.SIGKILL
            if moment != "none":
                report["kills"] += killed
                if not killed:
                    report["problems"].append(f"trial {number} ({moment}) was not killed: exit {code}")
            elif code != 0:
                tail = (logs / f"trial-{number}.err").read_text().strip().splitlines()[-1:]
                report["problems"].append(f"the final resume exited {code}: {tail}")
            if duplicated or lost or not manifest_ok:
                report["problems"].append(
                    f"trial {number}: {lost} rows lost, {duplicated} duplicated, manifest parses: {manifest_ok}"
                )
            phase = _phase_problem(moment, out, len(now), len(ids), torn)
            if phase:
                report["problems"].append(f"trial {number} ({moment}): {phase}")
            report["lost"] += lost
            report["torn"] += torn
            report["trials"].append(
                {
                    "trial": number,
                    "moment": moment,
                    "detail": detail,
                    "exit": code,
                    "journaled": len(now),
                    "torn": torn,
                    "predictions": (out / "predictions.jsonl").exists(),
                }
            )
            journaled = now
    report.update(_final_check(out, ids, config))
    report["lost"] += report.pop("missing")
    report["problems"] += report.pop("final_problems")
    return report


def _phase_problem(moment: str, out: Path, journaled: int, rows: int, torn: bool) -> str | None:
    """Whether the kill landed where it was meant to (None), else what is wrong."""
    path = out / "manifest.json"
    status = json.loads(path.read_text()).get("status") if path.exists() and _manifest_parses(out) else None
    predictions = (out / "predictions.jsonl").exists()
    if moment in ("startup", "first-batch") and journaled:
        return f"{journaled} rows were journaled before the kill"
    if moment == "journal" and not torn:
        return "no torn line was left"
    if moment == "final-manifest" and (journaled != rows or status != "running" or predictions):
        return f"{journaled} rows journaled, manifest {status}, predictions.jsonl: {predictions}"
    if moment == "predictions" and (status != "complete" or predictions):
        return f"manifest {status}, predictions.jsonl: {predictions}"
    return None


def _manifest_parses(out: Path) -> bool:
    path = out / "manifest.json"
    if not path.exists():
        return True
    try:
        return isinstance(json.loads(path.read_text()), dict)
    except ValueError:
        return False


def _final_check(out: Path, ids: list[str], config: str) -> dict[str, Any]:
    """Rows missing from / duplicated in predictions.jsonl and the journal, and manifest problems."""
    problems = []
    path = out / "predictions.jsonl"
    predictions = [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []
    counts = Counter(p["id"] for p in predictions)
    records, torn = _journal(out)
    journal_counts = Counter(r["id"] for r in records)
    first: dict[str, dict[str, Any]] = {}
    changed = 0
    for record in records:
        kept = first.setdefault(record["id"], record)
        fields = ("action", "answer", "citations", "quotes")
        changed += any(kept.get(k) != record.get(k) for k in fields)
    if [p["id"] for p in predictions] != ids:
        problems.append("predictions.jsonl does not list the config's ids in order")
    if set(counts) - set(ids):
        problems.append(f"predictions.jsonl has unknown ids: {sorted(set(counts) - set(ids))[:3]}")
    if torn:
        problems.append("the journal ends in a torn line after a complete run")
    try:
        manifest = json.loads((out / "manifest.json").read_text())
    except (OSError, ValueError) as err:
        manifest = {}
        problems.append(f"manifest.json: {err}")
    expected = {"status": "complete", "config": config, "backend": "openai", "model": "stub"}
    for key, value in expected.items():
        if manifest.get(key) != value:
            problems.append(f"manifest {key}={manifest.get(key)!r}, expected {value!r}")
    rows = manifest.get("rows") or {}
    if (rows.get("total"), rows.get("done")) != (len(ids), len(ids)) or not isinstance(
        rows.get("sha256"), str
    ):
        problems.append(f"manifest rows={rows!r}, expected {len(ids)} total and done, and their sha256")
    calls = sum(first[i]["usage"]["calls"] for i in ids if i in first)
    if manifest.get("usage", {}).get("calls") != calls:
        problems.append(f"manifest usage.calls={manifest.get('usage', {}).get('calls')}, journal: {calls}")
    if not manifest.get("finished_at") or any("started_at" not in s for s in manifest.get("sessions", [])):
        problems.append("manifest finished_at or a session's started_at is missing")
    for prediction in predictions:
        record = first.get(prediction["id"])
        if record is None or any(prediction[k] != record[k] for k in ("action", "answer", "usage")):
            problems.append(f"prediction {prediction['id']} differs from its journal record")
            break
    return {
        "missing": len(set(ids) - set(counts)),
        "duplicated": sum(n - 1 for n in counts.values()) + sum(n - 1 for n in journal_counts.values()),
        "changed_duplicates": changed,
        "sessions": len(manifest.get("sessions", [])),
        "final_problems": problems,
    }


# ----------------------------------------------------------------------------------------------
# HTTP faults


def _cli(argv: list[str]) -> tuple[int, str]:
    """``eviscope <argv>`` in this process; its exit code and what it wrote to stderr."""
    from eviscope.cli import main

    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        code = main(argv)
    return code, err.getvalue()


def http_faults(dataset: Path, work: Path, *, seed: int = 0, bound: int = 3, timeout_s: float = 1.5,
                outage_after: int = 40, concurrency: int = 16,
                config: str = DEFAULT_CONFIG) -> dict[str, Any]:  # fmt: skip
    """A run against a server injecting faults, then an outage and a resume; the tally."""
    from eviscope.suites.eviscope.dataset import load_rows

    ids = [row["id"] for row in load_rows(config, dataset)]
    weights = {"429": 3, "429-wait": 1, "500": 3, "503": 2, "timeout": 1, "reset": 2, "malformed": 2}

    def decide(key: str, seen: int, served: int) -> str | None:
        rng = random.Random(f"{seed}:{key}")
        faults = 0 if rng.random() < 0.5 else rng.randint(1, bound)
        kinds = rng.choices(list(weights), list(weights.values()), k=faults)
        return kinds[seen] if seen < faults else None

    server = StubServer(decide, timeout_s)
    argv = ["run", "--backend", "openai", "--model", "stub", "--base-url", server.url, "--config", config,
            "--dataset", str(dataset), "--http-retries", str(bound), "--backoff", "0.01",
            "--timeout", str(timeout_s), "--concurrency", str(concurrency)]  # fmt: skip
    report: dict[str, Any] = {"bound": bound, "problems": []}
    problems = report["problems"]
    with server.serving():
        out = work / "flaky-run"
        code, err = _cli([*argv, "--out", str(out)])
        log = list(server.log)
        if code != 0:
            problems.append(f"the flaky run exited {code}: {err.strip().splitlines()[-1:]}")
        attempts = Counter(key for key, *_ in log)
        injected = sum(fault is not None for _, _, fault, *_ in log)
        retries = len(log) - len(attempts)
        manifest = json.loads((out / "manifest.json").read_text())
        made = manifest["backend_details"]["http_retries_made"]
        most = manifest["backend_details"]["http_most_retries_of_a_request"]
        if retries != injected or made != injected:
            problems.append(
                f"{injected} faults injected, {retries} retries seen, {made} counted by the client"
            )
        if max(attempts.values()) - 1 > bound or most > bound:
            problems.append(f"a request was retried {max(attempts.values()) - 1} times (bound {bound})")
        if manifest["usage"]["calls"] != len(log):
            problems.append(f"usage.calls={manifest['usage']['calls']}, server saw {len(log)} requests")
        predictions = [
            json.loads(line)["id"] for line in (out / "predictions.jsonl").read_text().splitlines()
        ]
        if predictions != ids:
            problems.append("predictions.jsonl does not hold every id exactly once")
        waits = _retry_after_waits(log)
        if waits and min(waits) < 0.9:
            problems.append(f"Retry-After: 1 was followed by a retry after {min(waits):.2f} s")
        report.update(
            requests=len(log),
            faults=Counter(fault for _, _, fault, *_ in log if fault),
            injected=injected,
            retries=retries,
            most_retries=max(attempts.values()) - 1,
            client_retries=made,
            retry_after_waits=waits,
        )

        # an outage: every request after the first `outage_after` fails with 503
        out = work / "outage-run"
        server.reset()
        server.decide = lambda key, seen, served: "503" if served >= outage_after else None
        outage_code, err = _cli([*argv, "--out", str(out)])
        log = list(server.log)
        lines = err.strip().splitlines()
        message = lines[-1] if lines else ""
        records, _ = _journal(out)
        served_ok = {key for key, _, fault, *_ in log if fault is None}
        status = json.loads((out / "manifest.json").read_text())["status"]
        named = [i for i in ids if f"row {i}:" in message or f"row {i})" in message]
        if outage_code != 2 or not message.startswith("eviscope run: error: ") or "HTTP 503" not in message:
            problems.append(f"the outage gave exit {outage_code} and {message!r}")
        if not named or named[0] in {r["id"] for r in records}:
            problems.append(f"the outage error does not name a failed row: {message!r}")
        if len(records) != len(served_ok) or status != "failed":
            problems.append(f"{len(served_ok)} rows answered, {len(records)} journaled, manifest {status}")
        most_outage = max(Counter(key for key, *_ in log).values()) - 1
        if most_outage != bound:
            problems.append(f"under the outage a request was retried {most_outage} times (bound {bound})")
        failing = len(log) - outage_after
        # the breaker trips at the GIVE_UP_AFTER-th request failed after every retry; at most
        # concurrency - 1 others are in flight then, and each stops at its next retry
        most_failing = (GIVE_UP_AFTER + concurrency - 1) * (bound + 1)
        if "looks down" not in message or failing > most_failing:
            problems.append(
                f"the outage took {failing} failing requests (at most {most_failing}): {message!r}"
            )
        server.reset()
        server.decide = lambda key, seen, served: None
        code, _ = _cli([*argv, "--out", str(out)])
        resumed = len(server.log)
        predictions = [
            json.loads(line)["id"] for line in (out / "predictions.jsonl").read_text().splitlines()
        ]
        if code != 0 or resumed != len(ids) - len(records) or predictions != ids:
            problems.append(f"the rerun after the outage exited {code} and asked {resumed} requests")
        report["outage"] = {"exit": outage_code, "message": message, "kept": len(records),
                            "failing_requests": failing, "rerun_requests": resumed,
                            "most_retries": most_outage}  # fmt: skip
    return report


def _retry_after_waits(log: list[list[Any]]) -> list[float]:
    """Seconds between each ``Retry-After: 1`` reply and the retry that followed it."""
    arrived = {(key, seen): at for key, seen, _, at, _ in log}
    return [
        arrived[(key, seen + 1)] - replied
        for key, seen, fault, _, replied in log
        if fault == "429-wait" and replied is not None and (key, seen + 1) in arrived
    ]


# ----------------------------------------------------------------------------------------------


def main_benchmark() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dataset", type=Path, default=Path(DEFAULT_DATASET_DIR))
    parser.add_argument("--config", default=DEFAULT_CONFIG)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--work", type=Path, help="keep the run folders here (default: a temporary folder)")
    args = parser.parse_args()
    import tempfile

    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        work = args.work or Path(tmp)
        kills = kill_trials(args.dataset, work / "kills", seed=args.seed, config=args.config)
        http = http_faults(args.dataset, work / "http", seed=args.seed, config=args.config)
    print_report(kills, http, args.config, args.seed)
    print(f"finished in {time.perf_counter() - start:.1f} s on {os.cpu_count()} CPUs")
    if kills["problems"] or http["problems"]:
        sys.exit(1)


def print_report(kills: dict[str, Any], http: dict[str, Any], config: str, seed: int) -> None:
    print(
        f"eviscope run fault injection, seed {seed}: {kills['rows']} rows of {config}, OpenAI-compatible stub"
    )
    print(f"{'trial':>5}  {'SIGKILL':<52}{'journaled':>10}  torn line")
    for t in kills["trials"]:
        what = t["detail"] if t["moment"] != "none" else f"resume to the end (exit {t['exit']})"
        print(f"{t['trial']:>5}  {what:<52}{t['journaled']:>10}  {'yes' if t['torn'] else 'no'}")
    faults = ", ".join(f"{k} {v}" for k, v in sorted(http["faults"].items()))
    waits = http["retry_after_waits"]
    print(f"injected HTTP faults: {faults}")
    if waits:
        print(f"Retry-After: 1 honoured: the next try came {min(waits):.2f}-{max(waits):.2f} s later")
    outage = http["outage"]
    print(f"outage after 40 requests: exit {outage['exit']}, {outage['kept']} rows kept, {outage['failing_requests']} "
          f"failing requests before giving up, the rerun asked {outage['rerun_requests']}: {outage['message'][:150]}")  # fmt: skip
    header = ("trials", "kills", "rows lost", "rows duplicated", "HTTP requests", "injected faults",
              "retries", "max retries/request", "bound")  # fmt: skip
    values = (len(kills["trials"]) - 1, kills["kills"], kills["lost"], kills["duplicated"], http["requests"],
              http["injected"], http["retries"], http["most_retries"], http["bound"])  # fmt: skip
    print("  ".join(header))
    print("  ".join(f"{v:>{len(h)}}" for h, v in zip(header, values, strict=True)))
    for problem in kills["problems"] + http["problems"]:
        print(f"PROBLEM: {problem}")


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--child":
        sys.exit(child(sys.argv[2], sys.argv[4:]))
    main_benchmark()
