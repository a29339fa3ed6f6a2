"""Fingerprint what the suite produces, to prove a refactor changed no behaviour.

Builds every releasable config (plain and ``--contextualize``) from the shared sources into a
scratch folder, writes every reference system's predictions (the evidence-blind ones included) and scores them, runs the ForceBench
baselines, and prints one sha256 per output file as JSON. Compare two fingerprints with
``--compare BEFORE.json AFTER.json``.

    python scripts/identity.py --out /tmp/before.json
    python scripts/identity.py --out /tmp/after.json
    python scripts/identity.py --compare /tmp/before.json /tmp/after.json
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from eviscope.suites.eviscope.reference_systems import SYSTEMS

REPO = Path(__file__).resolve().parents[1]
EVISCOPE_CONFIGS = ("eviscope-v1", "eviscope-v1.1", "eviscope-xl")
# PNG plots embed matplotlib's version but no time; they are compared too.
VOLATILE_KEYS = ("built_at", "seconds")


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _eviscope(*args: str, cwd: Path) -> None:
    subprocess.run(
        [sys.executable, "-m", "eviscope.cli", *args], cwd=cwd, check=True, stdout=subprocess.DEVNULL
    )


def _new_cli() -> bool:
    """Whether this checkout has the one command-line convention (``eviscope score PREDICTIONS``)."""
    usage = subprocess.run(
        [sys.executable, "-m", "eviscope.cli", "score", "--help"], capture_output=True, text=True, check=True
    ).stdout
    return "--predictions" not in usage


def fingerprint(work: Path) -> dict[str, str]:
    """Run every command in ``work`` and hash its outputs, under the names the old layout gave them:
    the same bytes must come out whatever folder a command now writes them to."""
    new = _new_cli()
    shutil.copy(REPO / "dataset" / "README.md", work / "dataset" / "README.md")
    _eviscope("build", "--out", "dataset", cwd=work)
    _eviscope("build", "--contextualize", "--out", "ctx", cwd=work)
    for config in ("eviscope-v1", "eviscope-v1.1"):
        for system in SYSTEMS:
            preds = f"runs/{config}/{system}.jsonl"
            report = f"reports/{config}/{system}"
            if new:  # a run folder; its predictions scored under the same path as before
                _eviscope(
                    "baseline", "--system", system, "--config", config, "--out", f"runs/{system}", cwd=work
                )
                (work / preds).parent.mkdir(parents=True, exist_ok=True)
                shutil.move(work / "runs" / system / "predictions.jsonl", work / preds)
                (work / "runs" / system).rmdir()
                _eviscope("score", preds, "--config", config, "--out", report, cwd=work)
            else:
                _eviscope("baseline", "--system", system, "--config", config, "--out", preds, cwd=work)
                _eviscope("score", "--predictions", preds, "--config", config, "--out", report, cwd=work)
    _eviscope("forcebench", "baselines", "--out", "fb", cwd=work)
    hashes: dict[str, str] = {}
    for path in sorted(work.rglob("*")):
        if not path.is_file():
            continue
        rel = path.relative_to(work).as_posix().replace("fb/report/", "fb/")
        if path.name == "build_report.json":
            report = json.loads(path.read_text(encoding="utf-8"))
            _drop(report)
            hashes[rel] = hashlib.sha256(json.dumps(report, sort_keys=True).encode()).hexdigest()
        else:
            hashes[rel] = _sha(path)
    return hashes


def _drop(obj: object) -> None:
    if isinstance(obj, dict):
        for key in VOLATILE_KEYS:
            obj.pop(key, None)
        for value in obj.values():
            _drop(value)
    elif isinstance(obj, list):
        for value in obj:
            _drop(value)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, help="fingerprint JSON to write")
    parser.add_argument("--compare", nargs=2, type=Path, metavar=("BEFORE", "AFTER"))
    parser.add_argument("--keep", type=Path, help="keep the outputs in this folder")
    args = parser.parse_args()
    if args.compare:
        before, after = (json.loads(p.read_text()) for p in args.compare)
        keys = sorted(set(before) | set(after))
        differ = [k for k in keys if before.get(k) != after.get(k)]
        for key in differ:
            print(f"DIFFERS {key}: {before.get(key, 'missing')[:12]} → {after.get(key, 'missing')[:12]}")
        print(f"{len(keys) - len(differ)} of {len(keys)} files byte-identical")
        return 1 if differ else 0
    data = REPO.parent / "shared" / "data"
    os.environ.setdefault("EVISCOPE_SQUAD", str(data / "squad" / "dev-v1.1.json"))
    os.environ.setdefault("EVISCOPE_ATTRIBUTIONBENCH", str(data / "attribution" / "attributionbench"))
    os.environ.update(HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1", MPLBACKEND="Agg")
    work = args.keep or Path(tempfile.mkdtemp(prefix="eviscope-identity-"))
    (work / "dataset").mkdir(parents=True, exist_ok=True)
    hashes = fingerprint(work)
    text = json.dumps(hashes, indent=1, sort_keys=True) + "\n"
    if args.out:
        args.out.write_text(text)
    print(f"{len(hashes)} files fingerprinted in {work}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
