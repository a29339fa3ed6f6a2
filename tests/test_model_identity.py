"""A run's manifest names the weights that answered (``model_identity``): the files with their
SHA-256, the licence and where it was read, and for a server what it lists for the model."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest
from stub_server import StubServer

from eviscope.cli import main
from eviscope.runner import model_files
from eviscope.runner.manifest import model_identity

gguf = pytest.importorskip("gguf", reason="gguf is not installed: pip install gguf (in the dev extra)")


@pytest.fixture(autouse=True)
def own_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The hash cache of these tests, away from the user's."""
    cache = tmp_path_factory.mktemp("cache")
    monkeypatch.setenv("EVISCOPE_CACHE", str(cache))
    return cache


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _gguf(path: Path, licence: str | None = "apache-2.0", value: float = 0.0) -> Path:
    """A small GGUF file (one tensor) whose metadata names ``licence``."""
    import numpy as np

    writer = gguf.GGUFWriter(str(path), "llama")
    if licence:
        writer.add_license(licence)
    writer.add_tensor("x", np.full(4, value, dtype=np.float32))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return path


def test_a_model_folder_is_named_by_every_files_hash_and_its_cards_licence(
    tiny_model, built_dataset, tmp_path
):
    folder = shutil.copytree(tiny_model, tmp_path / "model")
    (folder / "README.md").write_text("---\nlicense: mit\nlanguage: en\n---\n# A tiny model\n")
    out = tmp_path / "run"
    argv = ["run", "--backend", "transformers", "--model", str(folder), "--dataset", str(built_dataset),
            "--out", str(out), "--limit", "1", "--max-tokens", "4", "--max-retries", "0",
            "--no-structured-output"]  # fmt: skip
    assert main(argv) == 0
    identity = json.loads((out / "manifest.json").read_text())["model_identity"]
    files = sorted(folder.iterdir())
    assert identity["name"] == str(folder) and identity["path"] == str(folder.resolve())
    assert identity["files"] == [
        {"name": f.name, "bytes": f.stat().st_size, "sha256": _sha256(f)} for f in files
    ]
    assert {f["name"] for f in identity["files"]} >= {"config.json", "model.safetensors", "tokenizer.json"}
    assert (identity["license"], identity["license_from"]) == ("mit", "model card README.md")
    assert identity["package"] is None and "served" not in identity


def test_a_gguf_file_and_a_folder_holding_one_name_the_file_and_its_metadatas_licence(tmp_path):
    file = _gguf(tmp_path / "m.gguf")
    (tmp_path / "README.md").write_text("---\nlicense: mit\n---\n")  # the file's own metadata comes first
    for given in (file, tmp_path):
        identity = model_identity(str(given), local=str(given))
        assert identity["path"] == str(file.resolve())
        assert identity["files"] == [
            {"name": "m.gguf", "bytes": file.stat().st_size, "sha256": _sha256(file)}
        ]
        assert (identity["license"], identity["license_from"]) == ("apache-2.0", "GGUF metadata of m.gguf")
    (tmp_path / "other").mkdir()
    unlicensed = _gguf(tmp_path / "other" / "n.gguf", licence=None)
    assert model_identity("n", local=str(unlicensed))["license"] is None
    assert model_identity("org/model", local="org/model") == {
        "name": "org/model", "path": None, "files": [], "license": None, "license_from": None, "package": None,
    }  # fmt: skip


def test_a_files_hash_is_read_once_and_again_when_the_file_changes(tmp_path, monkeypatch):
    file = _gguf(tmp_path / "m.gguf")
    first = model_identity("m", local=str(file))["files"][0]["sha256"]
    hashed = []
    real = model_files.file_sha256
    monkeypatch.setattr(model_files, "file_sha256", lambda path: hashed.append(path) or real(path))
    assert model_identity("m", local=str(file))["files"][0]["sha256"] == first and hashed == []
    _gguf(file, value=1.0)  # same size, new content and modification time
    again = model_identity("m", local=str(file))["files"][0]["sha256"]
    assert again == _sha256(file) != first and hashed == [file]


def test_an_openai_run_records_what_the_server_lists_and_the_model_file_given(
    built_dataset, tmp_path, monkeypatch
):
    file = _gguf(tmp_path / "served.gguf")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-SECRET-123")
    entry = {"id": "smollm2", "object": "model", "owned_by": "me", "note": "key sk-SECRET-123 echoed"}
    stub = StubServer(models=[{"id": "other", "object": "model"}, entry])
    base = ["run", "--backend", "openai", "--base-url", stub.url, "--dataset", str(built_dataset),
            "--limit", "1", "--max-retries", "0"]  # fmt: skip
    with stub.serving():
        assert (
            main([*base, "--model", "smollm2", "--model-file", str(file), "--out", str(tmp_path / "a")]) == 0
        )
        assert main([*base, "--model", "absent", "--out", str(tmp_path / "b")]) == 0
    text = (tmp_path / "a" / "manifest.json").read_text()
    assert "sk-SECRET-123" not in text
    identity = json.loads(text)["model_identity"]
    assert identity["served"] == {**entry, "note": "key [REDACTED] echoed"}
    assert identity["name"] == "smollm2" and identity["files"][0]["sha256"] == _sha256(file)
    assert identity["license"] == "apache-2.0"
    absent = json.loads((tmp_path / "b" / "manifest.json").read_text())["model_identity"]
    assert absent["files"] == [] and absent["path"] is None
    assert absent["served"] == {"error": f"{stub.url}/models lists no model absent (it lists other, smollm2)"}


def test_a_model_file_that_is_not_there_is_refused_in_one_line(built_dataset, tmp_path, capsys):
    argv = ["run", "--backend", "openai", "--base-url", "http://127.0.0.1:9/v1", "--model", "m",
            "--model-file", str(tmp_path / "nothing.gguf"), "--dataset", str(built_dataset),
            "--out", str(tmp_path / "run")]  # fmt: skip
    assert main(argv) == 2
    assert capsys.readouterr().err == (
        f"eviscope run: error: --model-file {tmp_path / 'nothing.gguf'}: no such file or folder\n"
    )
    assert not (tmp_path / "run").exists()


def test_the_ids_a_server_lists_are_escaped_as_every_error_quotes_an_id(built_dataset, tmp_path):
    # a look-alike (Cyrillic о) listed beside the model asked for must not read as that model
    stub = StubServer(models=[{"id": "sm\u043ellm2"}, {"id": "tab\there"}])
    argv = ["run", "--backend", "openai", "--base-url", stub.url, "--dataset", str(built_dataset),
            "--limit", "1", "--max-retries", "0", "--model", "smollm2", "--out", str(tmp_path / "a")]  # fmt: skip
    with stub.serving():
        assert main(argv) == 0
    served = json.loads((tmp_path / "a" / "manifest.json").read_text())["model_identity"]["served"]
    assert served == {
        "error": f"{stub.url}/models lists no model smollm2 (it lists sm\\u043ellm2, tab\\there)"
    }
