"""EviScope as inspect-ai tasks: ``inspect eval <this file>@eviscope_v1_1 --model …``.

The same tasks as the lm-eval ones: ``eviscope_v1_1``, ``eviscope_v1`` and ``eviscope_xl``; the
suite's prompt and parser, and every metric computed over the whole run by
``eviscope.suites.eviscope.scoring`` (:mod:`eviscope.suites.eviscope.harness`). Task arguments (``-T``):
``dataset`` (hub id or folder written by ``eviscope build``; default ``$EVISCOPE_DATASET``, else the
hub id), ``policy`` (``vanilla`` or ``gate``) and ``response_format`` (``json_schema``, ``json_object`` or
``none``, the default: how each request asks for its row's schema, :mod:`eviscope.harness.inspect_generate`). ``--limit`` takes samples in dataset order: a
multiple of 4 (whole quartets). ``eviscope tasks path --harness inspect`` prints this file's path.
"""

from __future__ import annotations

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import GenerateConfig
from inspect_ai.scorer import Score, Scorer, Target, scorer
from inspect_ai.solver import TaskState

from eviscope.harness.data import SCHEMA_KEY, load_rows, schema_json
from eviscope.harness.inspect_generate import generate_with_schema
from eviscope.harness.inspect_metrics import Items, corpus_metric
from eviscope.suites.eviscope import harness as suite


def _running_eviscope_metric(name: str, items: Items) -> float:
    # inspect shows metrics while samples come in: a partial quartet gives NaN until it is complete.
    return suite.eviscope_metric(name, items, strict=False)


@scorer(metrics=[corpus_metric(m, _running_eviscope_metric) for m in suite.EVISCOPE_METRICS])
def eviscope_scorer() -> Scorer:
    """Per row: the parsed action as the value, and the item the corpus-level metrics read."""

    async def score(state: TaskState, target: Target) -> Score:
        item = suite.eviscope_item(state.metadata, state.output.completion)
        return Score(value=item["prediction"]["action"] or "null", metadata={"item": item})

    return score


def _eviscope(config: str, dataset: str | None, policy: str, response_format: str) -> Task:
    samples = [
        Sample(
            input=suite.eviscope_prompt(row, policy),
            id=row["id"],
            metadata={**suite.scored_row(row), SCHEMA_KEY: schema_json(suite.eviscope_schema(row, policy))},
        )
        for row in load_rows(config, dataset)
    ]
    return Task(
        dataset=MemoryDataset(samples, name=config),
        solver=generate_with_schema(response_format),
        scorer=eviscope_scorer(),
        config=GenerateConfig(max_tokens=512),
    )


@task
def eviscope_v1_1(dataset: str | None = None, policy: str = "vanilla", response_format: str = "none") -> Task:
    return _eviscope("eviscope-v1.1", dataset, policy, response_format)


@task
def eviscope_v1(dataset: str | None = None, policy: str = "vanilla", response_format: str = "none") -> Task:
    return _eviscope("eviscope-v1", dataset, policy, response_format)


@task
def eviscope_xl(dataset: str | None = None, policy: str = "vanilla", response_format: str = "none") -> Task:
    return _eviscope("eviscope-xl", dataset, policy, response_format)
