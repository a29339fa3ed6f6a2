"""Concurrent submissions to the Space: does each of 20 sent at once land exactly once?

Starts ``spaces/eviscope/app.py`` on a free local port with a temporary results folder, then sends
at the same moment, each from its own ``gradio_client`` client (its own session):

- ``--submissions`` uploads under distinct system names (the lexical reference system's predictions
  for ``eviscope-v1.1``);
- ``--resends`` more of the first one (same name, same file, as a double click would): the Space
  says it is already recorded;
- ``--clashes`` uploads of another file (the oracle's predictions) under the second one's name: the
  store keeps one result per system name, so whichever of that name comes first is recorded and
  the others are refused.

Then it reads the leaderboard (through the API, and the results folder) and prints submissions
sent, landed, duplicated, lost, errors, and the median and slowest round trip.

    python tests/space_load.py [--dataset dataset] [--submissions 20] [--resends 3] [--clashes 2]
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from gradio_client import Client, handle_file

from eviscope.core.layout import DEFAULT_DATASET_DIR
from eviscope.core.registry import DEFAULT_CONFIG
from eviscope.suites.eviscope.dataset import load_rows
from eviscope.suites.eviscope.reference_systems import predict

APP = Path(__file__).resolve().parents[1] / "spaces" / "eviscope" / "app.py"
TAKEN = "already has a result"
"""The store's refusal of another upload under a system name it has."""


@dataclass
class Outcome:
    """One submission: what was sent, what came back, and how long it took."""

    system: str
    upload: Path
    status: str = ""
    error: str = ""
    latency_s: float = 0.0

    @property
    def kind(self) -> str:
        if self.status.startswith("Recorded"):
            return "recorded"
        if self.status.startswith("This file was already recorded"):
            return "already"
        if TAKEN in self.error:
            return "taken"
        return "error"


@dataclass
class LoadReport:
    """What a burst of concurrent submissions did to the leaderboard."""

    config: str
    outcomes: list[Outcome]
    entries: dict[str, int]
    """Leaderboard entries per system sent (the larger count of the API's table and the folder's files)."""
    wall_s: float
    problems: list[str] = field(default_factory=list)

    @property
    def sent(self) -> int:
        return len(self.outcomes)

    @property
    def systems(self) -> int:
        return len(self.entries)

    @property
    def landed(self) -> int:
        """Systems with at least one entry."""
        return sum(n > 0 for n in self.entries.values())

    @property
    def duplicated(self) -> int:
        """Entries, or 'Recorded' replies, beyond one per system."""
        acks = Counter(o.system for o in self.outcomes if o.kind == "recorded")
        return sum(max(n, acks[system]) - 1 for system, n in self.entries.items() if max(n, acks[system]) > 1)

    @property
    def lost(self) -> int:
        """Systems sent that have no entry."""
        return sum(n == 0 for n in self.entries.values())

    @property
    def errors(self) -> int:
        return len(self.problems)

    def count(self, kind: str) -> int:
        return sum(o.kind == kind for o in self.outcomes)

    def table(self) -> str:
        latencies = [o.latency_s for o in self.outcomes]
        resends = self.sent - self.systems
        lines = [
            f"{self.sent} concurrent submissions to {self.config}: {self.systems} systems, "
            f"{resends} more under names already sent",
            f"  submissions sent      {self.sent:>6}",
            f"  landed                {self.landed:>6}   systems with an entry (of {self.systems})",
            f"  duplicated            {self.duplicated:>6}   entries or 'Recorded' replies beyond one per system",
            f"  lost                  {self.lost:>6}   systems sent without an entry",
            f"  errors                {self.errors:>6}   replies other than the expected ones",
            f"  already recorded      {self.count('already'):>6}   the same file again (expected)",
            f"  refused, name taken   {self.count('taken'):>6}   another file under a taken name (expected)",
            f"  latency median        {statistics.median(latencies):>6.2f} s",
            f"  latency max           {max(latencies):>6.2f} s",
            f"  burst wall time       {self.wall_s:>6.2f} s",
        ]
        lines += [f"  error: {problem}" for problem in self.problems]
        return "\n".join(lines)


def plan(
    uploads: Mapping[str, Path], submissions: int = 20, resends: int = 3, clashes: int = 2
) -> list[Outcome]:
    """The submissions to send: ``uploads`` holds a ``lexical`` and an ``oracle`` predictions file."""
    names = [f"load-{i:02d}" for i in range(1, submissions + 1)]
    sent = [Outcome(name, uploads["lexical"]) for name in names]
    sent += [Outcome(names[0], uploads["lexical"]) for _ in range(resends)]
    sent += [Outcome(names[1 % len(names)], uploads["oracle"]) for _ in range(clashes)]
    return sent


def _entries_on_disk(results: Path, config: str) -> Counter[str]:
    counts: Counter[str] = Counter()
    for path in (results / config).glob("*.json"):
        if not path.name.startswith("."):
            counts[json.loads(path.read_bytes())["system"]] += 1
    return counts


def run_load(
    url: str,
    uploads: Mapping[str, Path],
    submissions: int = 20,
    resends: int = 3,
    clashes: int = 2,
    config: str = DEFAULT_CONFIG,
    results: Path | None = None,
) -> LoadReport:
    """Send :func:`plan`'s submissions to the Space at ``url`` all at once, one client (session)
    each, and compare the replies with the leaderboard (and with ``results``, the Space's folder)."""
    outcomes = plan(uploads, submissions, resends, clashes)
    ready = threading.Barrier(len(outcomes) + 1)

    def send(outcome: Outcome) -> None:
        try:
            client = Client(url, verbose=False)
        except Exception as err:  # counted as an error below
            ready.wait()
            outcome.error = f"connect: {type(err).__name__}: {err}"
            return
        try:
            ready.wait()
            start = time.perf_counter()
            try:
                outcome.status = client.predict(
                    config, outcome.system, handle_file(outcome.upload), api_name="/submit"
                )[0]
            except Exception as err:  # AppError (refusals) and transport errors
                outcome.error = f"{type(err).__name__}: {' '.join(str(err).split())}"
            outcome.latency_s = time.perf_counter() - start
        finally:
            client.close()

    threads = [threading.Thread(target=send, args=(outcome,)) for outcome in outcomes]
    for thread in threads:
        thread.start()
    ready.wait()  # every client connected: go
    start = time.perf_counter()
    for thread in threads:
        thread.join()
    wall_s = time.perf_counter() - start

    client = Client(url, verbose=False)
    try:
        table = client.predict(config, "", "system", api_name="/leaderboard")[0]
    finally:
        client.close()
    on_board = Counter(line[0] for line in table["data"])
    on_disk = _entries_on_disk(results, config) if results is not None else Counter()
    entries = {o.system: max(on_board[o.system], on_disk[o.system]) for o in outcomes}

    problems = []
    winners = {o.system: o.upload for o in outcomes if o.kind == "recorded"}
    for o in outcomes:
        expected = {
            "recorded": True,
            "already": winners.get(o.system) == o.upload,
            "taken": o.system in winners and winners[o.system] != o.upload,
            "error": False,
        }[o.kind]
        if not expected:
            problems.append(f"{o.system} ({o.upload.name}): {o.status or o.error or 'no reply'}")
    return LoadReport(config, outcomes, entries, wall_s, problems)


def write_uploads(dataset: str | Path, out: Path, config: str = DEFAULT_CONFIG) -> dict[str, Path]:
    """The lexical and oracle reference systems' predictions for ``config``, as JSONL files."""
    rows = load_rows(config, dataset)
    uploads = {}
    for name in ("lexical", "oracle"):
        uploads[name] = out / f"{name}.jsonl"
        uploads[name].write_text("".join(json.dumps(p) + "\n" for p in predict(name, rows)), encoding="utf-8")
    return uploads


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", default=DEFAULT_DATASET_DIR, help="built dataset folder")
    parser.add_argument("--submissions", type=int, default=20, help="distinct system names (default 20)")
    parser.add_argument("--resends", type=int, default=3, help="resends of the first one (default 3)")
    parser.add_argument(
        "--clashes", type=int, default=2, help="other files under the second name (default 2)"
    )
    args = parser.parse_args()
    from space_server import SpaceServer  # tests/space_server.py: run as a script, its folder is on sys.path

    began = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        uploads = write_uploads(args.dataset, Path(tmp))
        results = Path(tmp) / "results"
        server = SpaceServer(Path(args.dataset), results, Path(tmp) / "space.log")
        started = time.perf_counter() - began
        try:
            report = run_load(
                server.url, uploads, args.submissions, args.resends, args.clashes, results=results
            )
        finally:
            server.stop()
    print(report.table())
    print(f"  run time              {time.perf_counter() - began:>6.1f} s   (Space start {started:.1f} s)")
    if report.errors or report.lost or report.duplicated or report.landed != report.systems:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
