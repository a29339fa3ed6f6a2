"""Loading the rows of a built EviScope config (the output of ``eviscope build``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from eviscope.core.errors import EviScopeError
from eviscope.core.layout import DEFAULT_DATASET_DIR, SPLIT
from eviscope.suites.eviscope.rows import EVISCOPE_FEATURES


def load_local(folder: str | Path, config: str) -> Any:
    """The ``test`` split of ``config`` in the local dataset folder ``folder``, as a ``datasets.Dataset``.

    Read afresh each time: ``datasets`` keys its cache of a local folder on the folder's name, so two
    folders named ``dataset`` (or one rebuilt) would otherwise serve each other's rows.
    """
    import datasets

    fresh = {"download_mode": "force_redownload", "verification_mode": "no_checks"}
    return datasets.load_dataset(str(folder), config, split=SPLIT, **fresh)


def load_rows(config: str, dataset_dir: str | Path = DEFAULT_DATASET_DIR) -> list[dict[str, Any]]:
    """The rows of EviScope config ``config`` built into ``dataset_dir``, as plain dicts."""
    import datasets

    root = Path(dataset_dir)
    if not (root / "README.md").is_file() or not (root / "data" / config).is_dir():
        raise EviScopeError(
            f"config {config} is not built in {root}/: run `eviscope build {config}"
            + ("" if root == Path(DEFAULT_DATASET_DIR) else f" --out {root}")
            + "` first, or point --dataset at the folder it was built into"
        )
    bars_were_on = datasets.is_progress_bar_enabled()
    datasets.disable_progress_bars()  # a 160-row local split needs no progress bar
    try:
        ds = load_local(root, config)
    except (ValueError, FileNotFoundError) as err:
        first_line = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
        raise EviScopeError(f"{root}/: cannot load config {config}: {first_line}") from None
    finally:
        if bars_were_on:
            datasets.enable_progress_bars()
    missing = sorted(set(EVISCOPE_FEATURES) - set(ds.column_names))
    if missing:
        raise EviScopeError(
            f"{root}/ config {config} is not an EviScope config: it lacks the fields {', '.join(missing)}"
        )
    return ds.to_list()
