"""The OpenAI-compatible backend against a local server: 429, 500, timeouts, 4xx, outages and resume."""

from __future__ import annotations

import json

from runner_fixtures import ANSWER, chat_server, read_jsonl

from eviscope.cli import main
from eviscope.runner.manifest import rows_sha256
from eviscope.runner.session import asks_other_rows
from eviscope.suites.eviscope.dataset import load_rows
from eviscope.suites.eviscope.policies import render
from eviscope.suites.eviscope.schemas import ANSWER_SCHEMA, answer_schema
from eviscope.suites.eviscope.task import EviScopeTask


def _prompt(body):
    return body["messages"][0]["content"]


def _run(dataset, out, url, *extra):
    argv = ["run", "--backend", "openai", "--model", "served-model", "--base-url", url,
            "--dataset", str(dataset), "--out", str(out), "--backoff", "0.01", *extra]  # fmt: skip
    return main([str(a) for a in argv])


def test_429_500_and_timeouts_are_retried_and_counted(built_dataset, tmp_path):
    def flaky(body, seen):
        # per prompt: a 429, then a 500, then a reply slower than the timeout, then the answer
        return [(429, 0.0, ""), (500, 0.0, ""), (200, 1.0, ANSWER)][seen] if seen < 3 else (200, 0.0, ANSWER)

    with chat_server(flaky) as server:
        code = _run(built_dataset, tmp_path, server["url"], "--limit", "3", "--timeout", "0.3",
                    "--concurrency", "2", "--price-prompt", "1.0", "--price-completion", "10.0")  # fmt: skip
    assert code == 0
    preds = read_jsonl(tmp_path / "predictions.jsonl")
    assert [p["action"] for p in preds] == ["abstain"] * 3
    assert [p["usage"]["calls"] for p in preds] == [4, 4, 4]
    assert preds[0]["usage"]["prompt_tokens"] == 100
    assert preds[0]["usage"]["cost_usd"] == (100 * 1.0 + 20 * 10.0) / 1e6
    body = server["bodies"][0]
    assert body["temperature"] == 0 and body["model"] == "served-model"
    schemas = _row_schemas(built_dataset)
    assert all(b["response_format"]["json_schema"]["schema"] == schemas[_prompt(b)] for b in server["bodies"])
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    assert (
        manifest["schema"] == ANSWER_SCHEMA and manifest["structured_output"] == "response_format json_schema"
    )
    assert manifest["engine_calls"] == 12 and manifest["usage"]["calls"] == 12
    assert manifest["prices"] == {"usd_per_1m_prompt_tokens": 1.0, "usd_per_1m_completion_tokens": 10.0}
    asked = load_rows("eviscope-v1.1", built_dataset)[:3]  # the rows --limit 3 asked, and only those
    assert manifest["rows"]["sha256"] == rows_sha256(EviScopeTask("vanilla"), asked)
    assert asks_other_rows("eviscope-v1.1", asked, manifest) is False
    assert asks_other_rows("eviscope-v1.1", asked[:2], manifest) is True


def _row_schemas(dataset):
    """Each vanilla prompt's row-shaped schema: the enum of that row's doc ids."""
    return {
        render("vanilla", row): answer_schema([d["doc_id"] for d in row["documents"]])
        for row in load_rows("eviscope-v1.1", dataset)
    }


def test_response_format_json_object_for_llama_cpp_and_none_for_unconstrained_servers(
    built_dataset, tmp_path
):
    schemas = _row_schemas(built_dataset)
    for form in ("json_object", "none"):
        with chat_server(lambda body, seen: (200, 0.0, ANSWER)) as server:
            assert (
                _run(built_dataset, tmp_path / form, server["url"], "--limit", "2", "--response-format", form)
                == 0
            )
        manifest = json.loads((tmp_path / form / "manifest.json").read_text())
        for body in server["bodies"]:
            if form == "json_object":  # llama-cpp-python's form, compiled to a grammar by that server
                assert body["response_format"] == {"type": "json_object", "schema": schemas[_prompt(body)]}
            else:
                assert "response_format" not in body
        assert (
            manifest["structured_output"]
            == {"json_object": "response_format json_object", "none": "none"}[form]
        )
    assert main(["run", "--backend", "openai", "--model", "m", "--dataset", str(built_dataset),
                 "--out", str(tmp_path / "bad"), "--response-format", "grammar"]) == 2  # fmt: skip


def test_a_server_that_stays_down_stops_the_run_and_a_rerun_resumes(built_dataset, tmp_path, capsys):
    question = load_rows("eviscope-v1.1", built_dataset)[0]["question"]

    def down_for_q01(body, seen):
        return (503, 0.0, "") if f"Question: {question}\n" in _prompt(body) else (200, 0.0, ANSWER)

    with chat_server(down_for_q01) as server:
        code = _run(built_dataset, tmp_path, server["url"], "--limit", "8", "--http-retries", "2")
        assert code == 2
        assert "failed after every retry" in capsys.readouterr().err
        assert not (tmp_path / "predictions.jsonl").exists()
        journaled = {r["id"] for r in read_jsonl(tmp_path / "records.jsonl")}
        assert len(journaled) == 4  # the four rows of quartet q01 wait for the rerun
        server["set_script"](lambda body, seen: (200, 0.0, ANSWER))
        server["bodies"].clear()
        assert _run(built_dataset, tmp_path, server["url"], "--limit", "8") == 0
    assert len(server["bodies"]) == 4  # only the missing rows were asked again
    ids = [p["id"] for p in read_jsonl(tmp_path / "predictions.jsonl")]
    assert len(ids) == len(set(ids)) == 8


def test_a_client_error_is_kept_as_an_unparsable_row_not_retried(built_dataset, tmp_path):
    with chat_server(lambda body, seen: (400, 0.0, "")) as server:
        assert _run(built_dataset, tmp_path, server["url"], "--limit", "2", "--max-retries", "2") == 0
    assert len(server["bodies"]) == 2  # an error reply is final: neither retried nor re-asked
    preds = read_jsonl(tmp_path / "predictions.jsonl")
    assert [p["action"] for p in preds] == [None, None]
    record = read_jsonl(tmp_path / "records.jsonl")[0]
    assert record["error"].startswith("HTTP 400")


def test_unparsable_replies_are_reasked_then_kept_as_null(built_dataset, tmp_path):
    def fixable(body, seen):
        # the one-document row (q01-sufficient) answers when re-asked; the noisy row never gives JSON
        if _prompt(body).count("[doc-") > 1 or len(body["messages"]) == 1:
            return 200, 0.0, "I think it is 1066."
        return 200, 0.0, ANSWER

    with chat_server(fixable) as server:
        assert _run(built_dataset, tmp_path, server["url"], "--limit", "2", "--max-retries", "2") == 0
    retry = next(b for b in server["bodies"] if len(b["messages"]) == 3)
    assert retry["messages"][1] == {"role": "assistant", "content": "I think it is 1066."}
    preds = {p["id"]: p for p in read_jsonl(tmp_path / "predictions.jsonl")}
    assert preds["q01-sufficient"]["action"] == "abstain"
    assert preds["q01-sufficient"]["usage"]["calls"] == 2
    assert preds["q01-noisy"]["action"] is None and preds["q01-noisy"]["usage"]["calls"] == 3
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    assert manifest["parse_failures"] == {"replies": 4, "unresolved": 1}
    assert manifest["retries"]["parse_retries_made"] == 3


def test_a_reply_cut_by_the_token_limit_is_not_asked_again_and_is_recorded_as_truncated(
    built_dataset, tmp_path
):
    cut = '{"action": "answer", "answer": "the first wor'  # what a 4-token limit leaves of an answer
    with chat_server(lambda body, seen: (200, 0.0, cut), finish_reason="length") as server:
        assert _run(built_dataset, tmp_path, server["url"], "--limit", "3", "--max-tokens", "4") == 0
    assert len(server["bodies"]) == 3  # one request per row: the same prompt would be cut the same way
    records = read_jsonl(tmp_path / "records.jsonl")
    assert [r["parse"]["truncated"] for r in records] == [1, 1, 1]
    assert [r["action"] for r in records] == [None, None, None]
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    assert manifest["truncated"] == 3 and manifest["parse_failures"]["unresolved"] == 3
