"""The dataset card's YAML header (``configs`` and ``dataset_info``), written from the built data.

``eviscope-v1.1`` (:data:`eviscope.core.registry.DEFAULT_CONFIG`) is declared ``default: true``, so
``load_dataset(folder_or_repo)`` with no config name loads it and the viewer opens on it. The
licence and ``provenance`` of each config are written by hand in the same header.

The card's prose is written by people; its header is written by ``eviscope build`` from the same
`datasets` features the rows are written with, so the declared features and split sizes cannot drift
from the data (``load_dataset`` fails on a wrong row count). It also records each data file's
SHA-256 (``data_sha256``: path → digest), which every loader checks
(:mod:`eviscope.core.datafiles`): an edited, truncated or bit-flipped file is refused by name.
"""

from __future__ import annotations

from pathlib import Path

from datasets import DatasetInfo, Features
from datasets.info import DatasetInfosDict
from datasets.splits import SplitDict, SplitInfo
from datasets.utils.metadata import MetadataConfigs
from huggingface_hub import DatasetCard, DatasetCardData

from eviscope.core.datafiles import CHECKSUM_KEY
from eviscope.core.io import file_sha256
from eviscope.core.layout import SPLIT, split_path
from eviscope.core.registry import DEFAULT_CONFIG

_NEW_CARD_BODY = (
    "\n# EviScope\n\nBuilt by `eviscope build`; see the project's `dataset/README.md` for the full card.\n"
)


def update_card(card_path: Path, config: str, features: Features, num_examples: int, num_bytes: int) -> str:
    """Declare ``config`` (its Parquet file, features, split size and the file's SHA-256) in the card
    at ``card_path``, beside the data; return the SHA-256 (for the build report)."""
    if card_path.exists():
        card = DatasetCard.load(card_path)
    else:
        card = DatasetCard(f"---\n{DatasetCardData().to_yaml()}\n---\n{_NEW_CARD_BODY}")
    entry: dict = {"data_files": [{"split": SPLIT, "path": split_path(Path(), config).as_posix()}]}
    if config == DEFAULT_CONFIG:
        entry["default"] = True
    MetadataConfigs({config: entry}).to_dataset_card_data(card.data)
    splits = SplitDict()
    splits.add(SplitInfo(name=SPLIT, num_bytes=num_bytes, num_examples=num_examples))
    info = DatasetInfo(features=features, splits=splits, dataset_size=num_bytes)
    DatasetInfosDict({config: info}).to_dataset_card_data(card.data)
    data_file = split_path(Path(), config).as_posix()
    digest = file_sha256(card_path.parent / data_file)
    checksums = dict(card.data.get(CHECKSUM_KEY) or {})
    checksums[data_file] = digest
    card.data[CHECKSUM_KEY] = dict(sorted(checksums.items()))
    text = str(card)
    if not card_path.exists() or card_path.read_text(encoding="utf-8") != text:
        card_path.parent.mkdir(parents=True, exist_ok=True)
        card_path.write_text(text, encoding="utf-8")
    return digest
