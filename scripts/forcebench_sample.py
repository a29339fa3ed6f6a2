"""A seeded sample of ForceBench pairs, as a dataset folder that ``eviscope run`` reads.

The reference judge runs (README, "Reference results") answer a sample of the built ``forcebench``
config rather than all of it: the pairs whose ``stable_hash(seed, id)`` sorts first, in the
proportion of contrast and licensed (control) pairs the build has. The folder holds only the
sampled Parquet file (no card, so no checksum to check); score the run against the full build with
``eviscope score … --config forcebench --subset``, which reads the sampled ids from the predictions.

    python scripts/forcebench_sample.py --dataset dataset --split eval --pairs 100 --seed 0 --out runs/forcebench-sample
"""

from __future__ import annotations

import argparse
from pathlib import Path

import pyarrow.compute as pc
import pyarrow.parquet as pq

from eviscope.core.layout import split_path
from eviscope.core.stats import stable_hash

CONFIG = "forcebench"


def sample_ids(ids: list[str], kinds: list[str], pairs: int, seed: int) -> list[str]:
    """``pairs`` ids, each pair type in its share of the whole (largest remainder), hash-ordered.

    >>> sample_ids(list("abcde"), ["contrast"] * 3 + ["licensed"] * 2, 2, seed=0)
    ['c', 'd']
    """
    by_kind: dict[str, list[str]] = {}
    for ident, kind in zip(ids, kinds, strict=True):
        by_kind.setdefault(kind, []).append(ident)
    shares = {kind: pairs * len(members) / len(ids) for kind, members in by_kind.items()}
    counts = {kind: int(share) for kind, share in shares.items()}
    for kind in sorted(shares, key=lambda k: counts[k] - shares[k])[: pairs - sum(counts.values())]:
        counts[kind] += 1
    chosen = [
        ident
        for kind, members in sorted(by_kind.items())
        for ident in sorted(members, key=lambda i: stable_hash(seed, i))[: counts[kind]]
    ]
    return sorted(chosen)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dataset", type=Path, default=Path("dataset"), help="folder `eviscope build` wrote")
    parser.add_argument("--pairs", type=int, default=100, help="pairs in the sample (default: 100)")
    parser.add_argument("--seed", type=int, default=0, help="sampling seed (default: 0)")
    parser.add_argument("--split", help="sample only the rows of this split (the `split` column, e.g. eval)")
    parser.add_argument("--out", type=Path, required=True, help="dataset folder to write")
    args = parser.parse_args()
    table = pq.read_table(split_path(args.dataset, CONFIG))
    if args.split is not None:
        table = table.filter(pc.equal(table.column("split"), args.split))
    ids, kinds = table.column("id").to_pylist(), table.column("pair_type").to_pylist()
    if not 0 < args.pairs <= len(ids):
        where = f" ({args.split} split)" if args.split else ""
        parser.error(f"--pairs must be 1..{len(ids)}, the pairs of {CONFIG}{where} in {args.dataset}")
    keep = set(sample_ids(ids, kinds, args.pairs, args.seed))
    sample = table.filter([ident in keep for ident in ids])
    out = split_path(args.out, CONFIG)
    out.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(sample, out)
    counts = sample.column("pair_type").value_counts().to_pylist()
    shown = ", ".join(f"{c['counts']} {c['values']}" for c in counts)
    where = f" {args.split} split" if args.split else ""
    print(f"{out}: {sample.num_rows} of {len(ids)} pairs of the {CONFIG}{where} (seed {args.seed}: {shown})")


if __name__ == "__main__":
    main()
