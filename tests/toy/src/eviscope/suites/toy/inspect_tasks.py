"""The toy's inspect-ai task: ``inspect eval <this file>@toy --model …`` (``-T dataset=FOLDER``)."""

from __future__ import annotations

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import GenerateConfig
from inspect_ai.scorer import Score, Scorer, Target, scorer
from inspect_ai.solver import TaskState, generate

from eviscope.harness.data import load_rows
from eviscope.harness.inspect_metrics import corpus_metric
from eviscope.suites.toy import harness as suite
from eviscope.suites.toy.rows import CONFIG


@scorer(metrics=[corpus_metric("accuracy", suite.metric)])
def toy_scorer() -> Scorer:
    async def score(state: TaskState, target: Target) -> Score:
        item = suite.item(state.metadata, state.output.completion)
        return Score(value=str(item["sum"]), metadata={"item": item})

    return score


@task
def toy(dataset: str | None = None) -> Task:
    samples = [
        Sample(input=doc["prompt"], id=doc["id"], metadata=doc)
        for doc in map(suite.request, load_rows(CONFIG, dataset))
    ]
    return Task(
        dataset=MemoryDataset(samples, name="toy"),
        solver=generate(),
        scorer=toy_scorer(),
        config=GenerateConfig(max_tokens=16),
    )
