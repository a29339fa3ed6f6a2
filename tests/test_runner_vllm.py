"""The vLLM backend against a stand-in engine that follows vLLM's documented offline API.

``vllm.LLM(model=..., tensor_parallel_size=..., ...)``, ``LLM.chat(messages, sampling_params=...,
use_tqdm=...)`` returning ``RequestOutput``s (``prompt_token_ids``, ``outputs[0].text`` and
``.token_ids``), ``vllm.SamplingParams(**kwargs)`` and ``vllm.sampling_params.StructuredOutputsParams(json=...)``.
"""

from __future__ import annotations

import json
import sys
import types
from dataclasses import dataclass, field
from typing import Any

import pytest
from runner_fixtures import ANSWER, read_jsonl

from eviscope.cli import main
from eviscope.suites.eviscope.dataset import load_rows
from eviscope.suites.eviscope.schemas import ANSWER_SCHEMA, answer_schema
from eviscope.suites.forcebench.rows import read_rows
from eviscope.suites.forcebench.task import label_schema


class SamplingParams:
    def __init__(self, **kwargs: Any) -> None:
        self.__dict__.update(kwargs)


class StructuredOutputsParams:
    def __init__(self, json: Any = None, **kwargs: Any) -> None:
        self.json = json


@dataclass
class CompletionOutput:
    text: str
    token_ids: list[int]


@dataclass
class RequestOutput:
    prompt_token_ids: list[int]
    outputs: list[CompletionOutput]


@dataclass
class LLM:
    """Records its construction and every ``chat`` call."""

    kwargs: dict[str, Any] = field(default_factory=dict)
    calls: list[tuple[list[Any], Any]] = field(default_factory=list)

    def __init__(self, **kwargs: Any) -> None:
        self.kwargs, self.calls = kwargs, []
        ENGINES.append(self)

    @staticmethod
    def reply(conversation: list[dict[str, str]]) -> str:
        """A judge prompt gets a label; an EviScope prompt an abstention."""
        judge = '{"label"' in conversation[-1]["content"]
        return json.dumps({"label": "force_calibrated"}) if judge else ANSWER

    def get_default_sampling_params(self) -> SamplingParams:
        return SamplingParams(
            temperature=0.7, repetition_penalty=1.05, presence_penalty=0.0, frequency_penalty=0.0
        )

    def chat(
        self, messages: list[Any], sampling_params: Any = None, use_tqdm: bool = True
    ) -> list[RequestOutput]:
        self.calls.append((messages, sampling_params))
        return [RequestOutput([0] * 50, [CompletionOutput(self.reply(c), [1] * 7)]) for c in messages]


ENGINES: list[LLM] = []


@pytest.fixture
def fake_vllm(monkeypatch):
    ENGINES.clear()
    vllm = types.ModuleType("vllm")
    vllm.LLM, vllm.SamplingParams = LLM, SamplingParams
    params = types.ModuleType("vllm.sampling_params")
    params.SamplingParams, params.StructuredOutputsParams = SamplingParams, StructuredOutputsParams
    vllm.sampling_params = params
    monkeypatch.setitem(sys.modules, "vllm", vllm)
    monkeypatch.setitem(sys.modules, "vllm.sampling_params", params)
    return ENGINES


def test_one_batched_chat_call_with_greedy_schema_constrained_params(
    fake_vllm, built_dataset, tmp_path, capsys
):
    argv = ["run", "--backend", "vllm", "--model", "org/model", "--revision", "abc123", "--dtype", "bfloat16",
            "--tensor-parallel-size", "2", "--max-tokens", "300", "--seed", "7", "--dataset", str(built_dataset),
            "--out", str(tmp_path / "run"), "--policy", "gate"]  # fmt: skip
    assert main(argv) == 0
    [engine] = fake_vllm
    assert engine.kwargs["tensor_parallel_size"] == 2 and engine.kwargs["revision"] == "abc123"
    assert engine.kwargs["enable_prefix_caching"] is True and engine.kwargs["generation_config"] == "vllm"
    [(conversations, params)] = engine.calls
    assert len(conversations) == 160
    assert conversations[0][0]["role"] == "user" and "evidence state" in conversations[0][0]["content"]
    assert {(p.temperature, p.max_tokens, p.seed) for p in params} == {(0.0, 300, 7)}
    rows = load_rows("eviscope-v1.1", built_dataset)
    # one schema per row, naming that row's doc ids; the manifest records the template
    assert [p.structured_outputs.json for p in params] == [
        answer_schema([d["doc_id"] for d in row["documents"]]) for row in rows
    ]
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    assert manifest["schema"] == ANSWER_SCHEMA
    assert manifest["engine_calls"] == 1 and manifest["tensor_parallel_size"] == 2
    assert (
        manifest["usage"]["prompt_tokens"] == 160 * 50 and manifest["usage"]["completion_tokens"] == 160 * 7
    )
    capsys.readouterr()
    report = tmp_path / "report"
    args = ["score", "--dataset", str(built_dataset), "--json", "--out", str(report)]
    assert main([*args, str(tmp_path / "run" / "predictions.jsonl")]) == 0
    scores = json.loads(capsys.readouterr().out)
    assert scores["overall"]["joint_success"] == 0.25  # always abstaining succeeds on the insufficient rows


def test_generation_config_model_takes_the_model_penalties(fake_vllm, built_dataset, tmp_path):
    argv = ["run", "--backend", "vllm", "--model", "m", "--generation-config", "model", "--limit", "4",
            "--dataset", str(built_dataset), "--out", str(tmp_path)]  # fmt: skip
    assert main(argv) == 0
    [(_, params)] = fake_vllm[0].calls
    assert fake_vllm[0].kwargs["generation_config"] == "auto"
    assert {(p.temperature, p.repetition_penalty) for p in params} == {(0.0, 1.05)}
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    assert manifest["generation_config"] == "model" and manifest["sampling"]["repetition_penalty"] == 1.05


def test_forcebench_judge_predictions_are_scored_by_forcebench(fake_vllm, built_dataset, tmp_path, capsys):
    out = tmp_path / "judge"
    argv = ["run", "--backend", "vllm", "--model", "org/qwen", "--config", "forcebench", "--judge", "force_aware",
            "--dataset", str(built_dataset), "--out", str(out)]  # fmt: skip
    assert main(argv) == 0
    [(conversations, params)] = fake_vllm[0].calls
    preds = read_jsonl(out / "predictions.jsonl")
    assert len(conversations) == 2 * len(preds)
    assert params.structured_outputs.json == label_schema("force_aware")
    assert preds[0]["evaluator"] == "qwen/force_aware" and preds[0]["label_raised"] == "force_calibrated"
    capsys.readouterr()
    assert (
        main(
            [
                "score",
                str(out / "predictions.jsonl"),
                "--config",
                "forcebench",
                "--dataset",
                str(built_dataset),
                "--json",
            ]
        )
        == 0
    )
    results = json.loads(capsys.readouterr().out)
    # a tie on every contrast pair is a violation (MVR counts contrast pairs, LPR the licensed ones)
    # the headline is the eval split; the judge's replies on pool rows, if the build has any, are set
    # aside and counted (the five annotation rounds leave none: every row is in eval)
    headline = sum(p["split"] == "eval" for p in read_rows(built_dataset))
    assert results["mvr"] == 1.0 and results["n"] + results["n_licensed"] == headline
    assert results["set_aside"] == len(preds) - headline


def test_a_request_round_trips_through_json_with_its_ray_options(tmp_path):
    """A run request (what a Ray worker is built from) survives ``to_json``/``from_json`` whole."""
    from eviscope.runner.accounting import PriceTable
    from eviscope.runner.backends import backend_settings
    from eviscope.runner.backends.base import SamplingConfig
    from eviscope.runner.execute import RunSettings
    from eviscope.runner.ray_pool import RayOptions
    from eviscope.runner.session import RunRequest

    backend = backend_settings("vllm", {"model": "m", "structured_output": False, "tensor_parallel_size": 2})
    parent = RunRequest(
        config="eviscope-v1.1",
        out=tmp_path,
        backend=backend,
        sampling=SamplingConfig(max_tokens=64),
        options={"policy": "gate"},
        settings=RunSettings(prices=PriceTable(usd_per_1m_prompt_tokens=0.5)),
        ray=RayOptions(address="auto", workers=4),
    )
    child = RunRequest.from_json(parent.to_json())
    assert child == parent
    assert child.ray is not None and child.ray.address == "auto" and child.ray.workers == 4
    assert child.backend.structured_output is False and child.backend.tensor_parallel_size == 2
    assert child.options["policy"] == "gate" and child.sampling.max_tokens == 64
    assert child.settings.prices.usd_per_1m_prompt_tokens == 0.5


def test_an_unknown_backend_is_named_with_the_known_ones():
    from eviscope.core.errors import EviScopeError
    from eviscope.runner.backends import backend_settings

    with pytest.raises(EviScopeError, match="unknown backend 'tgi'; known: vllm, openai, transformers"):
        backend_settings("tgi", {"model": "m"})


def test_a_limited_run_is_scored_on_its_rows_with_subset(fake_vllm, built_dataset, tmp_path, capsys):
    run = ["run", "--backend", "vllm", "--model", "m", "--limit", "8", "--dataset", str(built_dataset),
           "--out", str(tmp_path)]  # fmt: skip
    assert main(run) == 0
    score = ["score", str(tmp_path / "predictions.jsonl"), "--dataset", str(built_dataset)]
    capsys.readouterr()
    assert main(score) == 2
    assert "152 missing ids" in capsys.readouterr().err
    assert main([*score, "--subset", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    # the fake model always abstains: right on the 2 insufficient rows of the 8 (2 quartets)
    assert report["overall"]["joint_success"] == 0.25
    assert main([*score, "--subset"]) == 0
    assert "(8 of 160 rows, --subset)" in capsys.readouterr().out
