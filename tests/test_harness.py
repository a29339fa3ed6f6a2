"""EviScope and ForceBench inside the real lm-evaluation-harness and inspect-ai, on CPU.

Each test runs a harness's own command line on the tasks shipped in ``eviscope.harness``, turns the
replies it logged into prediction files (``eviscope tasks predictions``), scores those with
``eviscope score`` (also ``--config forcebench``), and checks that every metric the harness
reported equals the suite's to 1e-9. The tiny random model makes unreadable replies (every action
null), so a scripted OpenAI-compatible server also drives lm-eval with replies of every kind.
"""

from __future__ import annotations

import json
import sys
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from harness_fixtures import (
    assert_same,
    headline_pairs,
    lm_eval_results,
    rows_subset,
    run_harness,
    run_lm_eval,
    samples_log,
    suite_scores,
)
from stub_server import StubServer

from eviscope.cli import main
from eviscope.core.registry import harnessed
from eviscope.harness import inspect_task_files, lm_eval_tasks
from eviscope.suites.eviscope import harness as eviscope_harness
from eviscope.suites.eviscope.dataset import load_rows
from eviscope.suites.eviscope.metrics import METRICS as EVISCOPE_TABLE
from eviscope.suites.forcebench import harness as forcebench_harness
from eviscope.suites.forcebench.prompts import label_set
from eviscope.suites.forcebench.rows import read_rows

pytest.importorskip("lm_eval", reason="lm-eval is not installed: pip install -e '.[harness]'")
pytest.importorskip("inspect_ai", reason="inspect-ai is not installed: pip install -e '.[harness]'")
pytest.importorskip("transformers", reason="transformers is not installed: pip install -e '.[cpu]'")
pytestmark = pytest.mark.slow

QUARTETS = 2
"""Quartets the tiny-model runs generate for (``--limit`` 8 rows, and 8 ForceBench requests = 4 pairs)."""


def test_lm_eval_hf_tiny_model_reports_what_eviscope_score_does(
    tiny_model: Path, built_dataset: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "lm-eval"
    run_lm_eval("hf", [f"pretrained={tiny_model}", "dtype=float32"], built_dataset, out, 4 * QUARTETS,
             "--device", "cpu", "--batch_size", "8", "--gen_kwargs", "max_gen_toks=16")  # fmt: skip
    results = lm_eval_results(out)
    subset = rows_subset(built_dataset, tmp_path, QUARTETS)
    assert set(results["eviscope_v1_1"]) >= set(eviscope_harness.EVISCOPE_METRICS)
    ours = suite_scores(samples_log(out, "eviscope_v1_1"), subset, tmp_path, capsys)
    assert_same(results["eviscope_v1_1"], ours, eviscope_harness.EVISCOPE_METRICS)
    ours = suite_scores(samples_log(out, "forcebench_generic"), subset, tmp_path, capsys)
    assert 0 < ours["n"] + ours["n_licensed"] == headline_pairs(subset)  # eval contrast units and controls
    assert_same(results["forcebench_generic"], ours, forcebench_harness.FORCEBENCH_METRICS)


def test_inspect_hf_tiny_model_reports_what_eviscope_score_does(
    tiny_model: Path, built_dataset: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from inspect_ai.log import read_eval_log

    logs = tmp_path / "inspect"
    evi, fb = inspect_task_files()
    argv = [sys.executable, "-m", "inspect_ai", "eval", f"{evi}@eviscope_v1_1", f"{fb}@forcebench_generic",
            "--model", "hf/local", "-M", f"model_path={tiny_model}", "-M", "device=cpu", "-M", "do_sample=false",
            "-T", f"dataset={built_dataset}", "--limit", str(4 * QUARTETS), "--max-tokens", "16",
            "--log-dir", str(logs), "--display", "none"]  # fmt: skip
    run_harness(argv, tmp_path)
    subset = rows_subset(built_dataset, tmp_path, QUARTETS)
    found = sorted(logs.glob("*.eval"))
    assert len(found) == 2
    for log in found:
        [scores] = read_eval_log(str(log)).results.scores
        reported = {name: m.value for name, m in scores.metrics.items()}
        ours = suite_scores(log, subset, tmp_path, capsys)
        names = (
            forcebench_harness.FORCEBENCH_METRICS
            if "forcebench" in log.name
            else eviscope_harness.EVISCOPE_METRICS
        )
        assert_same(reported, ours, names)


# --- lm-eval against a scripted OpenAI-compatible server: replies of every kind ------------------


def _pick(key: str, n: int) -> int:
    return zlib.crc32(key.encode()) % n


def _eviscope_reply(row: dict[str, Any]) -> str:
    """A reply chosen by the row id: half of the rows get the expected action done right, the others
    a right answer from a wrong source, a wrong answer, the wrong action, or no JSON at all."""
    docs = [d["doc_id"] for d in row["documents"]]
    support = row["supporting_doc_ids"][:1] or docs[:1]
    other = [d for d in docs if d not in row["supporting_doc_ids"]][:1] or docs[:1]
    span = row["support_spans"][0] if row["support_spans"] else {"doc_id": docs[0], "text": "nothing"}
    gold = row["answers"][0]
    right = {
        "answer": {"action": "answer", "answer": gold, "citations": support, "quotes": [span]},
        "abstain": {"action": "abstain", "answer": "", "citations": [], "quotes": []},
        "flag_conflict": {"action": "flag_conflict", "answer": "", "citations": docs, "quotes": []},
    }
    wrong = [
        {"action": "answer", "answer": gold, "citations": other, "quotes": []},
        {"action": "answer", "answer": "somebody else", "citations": [*support, *other], "quotes": [span]},
        *(reply for action, reply in right.items() if action != row["expected_action"]),
    ]
    choice = _pick(row["id"], 2 * (len(wrong) + 1))
    if choice > len(wrong):
        return json.dumps(right[row["expected_action"]])
    return "I cannot tell." if choice == len(wrong) else json.dumps(wrong[choice])


def _forcebench_reply(row: dict[str, Any], which: str, judge: str) -> str:
    labels = [*label_set(judge), "maybe"]  # the last is outside the label set: a missing score
    return json.dumps({"label": labels[_pick(f"{row['id']}#{which}", len(labels))]})


@pytest.fixture
def scripted_server(built_dataset: Path) -> Iterator[str]:
    """The stub chat server answering every prompt of eviscope-v1.1 and forcebench (generic) as scripted."""
    replies = {
        eviscope_harness.eviscope_prompt(row): _eviscope_reply(row)
        for row in load_rows("eviscope-v1.1", built_dataset)
    }
    for row in read_rows(built_dataset):
        for which, prompt in forcebench_harness.forcebench_prompts(row, "generic").items():
            replies[prompt] = _forcebench_reply(row, which, "generic")

    server = StubServer(answer=lambda body: replies[body["messages"][-1]["content"]])
    with server.serving():
        yield f"{server.url}/chat/completions"


def test_lm_eval_chat_server_metrics_of_every_kind_match_eviscope_score(
    scripted_server: str, built_dataset: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    quartets = 40  # the whole config: the server answers at once
    out = tmp_path / "lm-eval"
    args = ["model=scripted", f"base_url={scripted_server}", "num_concurrent=4", "max_retries=1",
            "tokenizer_backend=None"]  # fmt: skip
    run_lm_eval("local-chat-completions", args, built_dataset, out, 4 * quartets)
    results = lm_eval_results(out)
    subset = rows_subset(built_dataset, tmp_path, quartets)
    ours = suite_scores(samples_log(out, "eviscope_v1_1"), subset, tmp_path, capsys)
    assert_same(results["eviscope_v1_1"], ours, eviscope_harness.EVISCOPE_METRICS)
    # The replies make every kind of outcome, so the comparison is not one of zeros.
    assert 0 < ours["joint_success"] < 1 and ours["quartet_consistency"] + ours["noise_robustness"] > 0
    assert 0 < ours["span_f1"] < 1 and 0 < ours["unsupported_citation_rate"] < 1
    ours = suite_scores(samples_log(out, "forcebench_generic"), subset, tmp_path, capsys)
    assert (
        0 < ours["n"] + ours["n_licensed"] == headline_pairs(subset)
        and 0 < ours["mvr"] < 1
        and ours["missing"] > 0
    )
    assert_same(results["forcebench_generic"], ours, forcebench_harness.FORCEBENCH_METRICS)


def test_tasks_path_lists_every_task_with_every_suite_metric(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["tasks", "path"]) == 0
    folder = Path(capsys.readouterr().out.strip())
    tasks = {p.stem for p in folder.rglob("*.yaml")}
    assert tasks >= {
        *eviscope_harness.EVISCOPE_CONFIGS,
        *(f"forcebench_{j}" for j in forcebench_harness.FORCEBENCH_JUDGES),
        "eviscope",
    }
    for template, names in (("eviscope/_eviscope_template_yaml", eviscope_harness.EVISCOPE_METRICS),
                            ("forcebench/_forcebench_template_yaml", forcebench_harness.FORCEBENCH_METRICS)):  # fmt: skip
        text = (folder / template).read_text().replace("!function", "")
        listed = [m["metric"] for m in yaml.safe_load(text)["metric_list"]]
        assert listed == list(names), template
    text = (folder / "eviscope" / "_eviscope_template_yaml").read_text().replace("!function", "")
    directions = {m["metric"]: m["higher_is_better"] for m in yaml.safe_load(text)["metric_list"]}
    assert directions == {m.name: m.higher_is_better for m in EVISCOPE_TABLE if m.harness}
    assert main(["tasks", "path", "--harness", "inspect"]) == 0
    files = [Path(line) for line in capsys.readouterr().out.split()]
    assert len(files) == len(harnessed()) and all(f.is_file() for f in files)


def test_every_lm_eval_task_file_is_package_data() -> None:
    import tomllib

    repo = Path(__file__).resolve().parents[1]
    patterns = tomllib.loads((repo / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    for bench, harness in harnessed():
        package, _, folder_name = harness.lm_eval_tasks.partition(":")
        shipped = patterns[package]
        folder = lm_eval_tasks() / bench.name
        files = [Path(folder_name) / p.name for p in folder.iterdir() if p.is_file()]
        assert files and all(any(f.match(pattern) for pattern in shipped) for f in files), bench.name


def test_tasks_predictions_names_the_line_that_is_not_a_logged_sample(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "samples_eviscope_v1_1_x.jsonl"
    log.write_text('{"doc_id": 0, "doc": {"id": "q01-noisy"}, "filtered_resps": ["{}"]}\n{"id": "q01"}\n')
    assert main(["tasks", "predictions", str(log), "--out", str(tmp_path / "p.jsonl")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.endswith("samples_eviscope_v1_1_x.jsonl:2: not an lm-eval logged sample (doc_id, doc, "
                        "filtered_resps); give the samples_<task>_<time>.jsonl that --log_samples wrote")  # fmt: skip
    assert "\n" not in err and not (tmp_path / "p.jsonl").exists()


def test_harnesses_send_each_requests_schema_in_the_form_eviscope_run_sends(
    built_dataset: Path, tmp_path: Path
) -> None:
    from eviscope.runner.backends.openai_backend import response_format

    sent: list[dict[str, Any]] = []
    server = StubServer(answer=lambda body: sent.append(body) or "{}")
    schemas = {
        eviscope_harness.eviscope_prompt(row): eviscope_harness.eviscope_schema(row)
        for row in load_rows("eviscope-v1.1", built_dataset)[:4]
    }
    for row in read_rows(built_dataset)[:2]:
        for prompt in forcebench_harness.forcebench_prompts(row, "generic").values():
            schemas[prompt] = forcebench_harness.forcebench_schema("generic")
    evi, fb = inspect_task_files()
    with server.serving():
        args = ["model=scripted", f"base_url={server.url}/chat/completions", "tokenizer_backend=None"]
        run_lm_eval("local-chat-completions", args, built_dataset, tmp_path / "lm-eval", 4,
                    response_format="json_schema")  # fmt: skip
        lm_eval_sent, sent[:] = list(sent), []
        argv = [sys.executable, "-m", "inspect_ai", "eval", f"{evi}@eviscope_v1_1", f"{fb}@forcebench_generic",
                "--model", "openai/scripted", "-M", "responses_api=false", "-T", f"dataset={built_dataset}",
                "-T", "response_format=json_object", "--limit", "4", "--log-dir", str(tmp_path / "inspect"),
                "--display", "none"]  # fmt: skip
        run_harness(argv, tmp_path, OPENAI_BASE_URL=server.url, OPENAI_API_KEY="none")
    for form, bodies in (("json_schema", lm_eval_sent), ("json_object", sent)):
        assert len(bodies) == len(schemas) == 8, form
        for body in bodies:
            schema = schemas[body["messages"][-1]["content"]]
            assert body["response_format"] == response_format(form, schema), form
