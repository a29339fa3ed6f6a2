"""The transformers backend end to end with a tiny random-weight model built offline in the test."""

from __future__ import annotations

import json

import pytest
from runner_fixtures import read_jsonl

from eviscope.cli import main
from eviscope.suites.eviscope.parsing import parse_answer
from eviscope.suites.eviscope.rows import ACTIONS

pytest.importorskip("torch", reason="torch is not installed: pip install -e '.[cpu]'")
pytest.importorskip("transformers", reason="transformers is not installed: pip install -e '.[cpu]'")

MANIFEST_FIELDS = {
    "backend", "model", "revision", "resolved_revision", "dtype", "tensor_parallel_size", "prompt", "sampling",
    "seed", "generation_config", "generation_config_meaning", "parser_version", "retries", "parse_failures",
    "started_at", "finished_at", "sessions", "eviscope_version", "prices", "usage", "engine_calls",
    "structured_output", "schema_sha256",
}  # fmt: skip


def _run(model, dataset, out, *extra):
    argv = ["run", "--backend", "transformers", "--model", str(model), "--dataset", str(dataset),
            "--out", str(out), *extra]  # fmt: skip
    return main([str(a) for a in argv])


def test_run_then_score_on_cpu(tiny_model, built_dataset, tmp_path, capsys):
    # 4 tokens cannot hold an answer object: every row is unparsable, kept with action null, and scored
    out = tmp_path / "run"
    assert _run(tiny_model, built_dataset, out, "--max-tokens", "4", "--max-retries", "0",
                "--no-structured-output", "--save-prompts") == 0  # fmt: skip
    preds = read_jsonl(out / "predictions.jsonl")
    assert len(preds) == 160 and all(p["action"] is None for p in preds)
    assert all(0 < p["usage"]["completion_tokens"] <= 4 and p["usage"]["prompt_tokens"] > 100 for p in preds)
    assert len(read_jsonl(out / "prompts.jsonl")) == 160
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest.keys() >= MANIFEST_FIELDS
    assert manifest["engine_calls"] == 1 and manifest["parse_failures"] == {"replies": 160, "unresolved": 160}
    assert manifest["prompt"]["id"] == "vanilla.v2" and len(manifest["prompt"]["sha256"]) == 64
    assert manifest["backend_details"]["chat_template"] == "tokenizer"
    assert manifest["backend_details"]["kv_cache"] == "prefilled by row, reserved"
    capsys.readouterr()
    report = tmp_path / "report"
    assert main(["score", "--dataset", str(built_dataset), str(out / "predictions.jsonl"),
                 "--json", "--out", str(report)]) == 0  # fmt: skip
    assert json.loads(capsys.readouterr().out)["overall"]["joint_success"] == 0.0


def test_schema_constrained_output_parses(tiny_model, built_dataset, tmp_path):
    pytest.importorskip(
        "xgrammar", reason="xgrammar is not installed (constrained decoding on CPU): pip install -e '.[cpu]'"
    )
    assert (
        _run(tiny_model, built_dataset, tmp_path, "--limit", "3", "--max-tokens", "400", "--policy", "gate")
        == 0
    )
    records = read_jsonl(tmp_path / "records.jsonl")
    assert len(records) == 3
    for record in records:
        assert parse_answer(record["raw"]) is not None, record["raw"]
        json.loads(record["raw"], strict=False)  # the whole reply is one JSON object
        assert record["action"] in ACTIONS and record["attempts"] == 1
        assert record["usage"]["completion_tokens"] < 400  # the grammar closed the object and stopped
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    assert manifest["structured_output"] == "xgrammar logits processor"
