"""EviScope and ForceBench as inspect-ai tasks: ``inspect eval <this file>@eviscope_v1_1 --model …``.

The same tasks as the lm-eval ones: ``eviscope_v1_1``, ``eviscope_v1``, ``eviscope_xl`` and
``forcebench_<judge>``; the suite's prompt and parser, and every metric computed over the whole run
by ``eviscope.suites.eviscope.scoring`` / ``eviscope.suites.forcebench.scoring`` (:mod:`eviscope.harness.suite`). Task
arguments (``-T``): ``dataset`` (hub id or folder written by ``eviscope build``; default
``$EVISCOPE_DATASET``, else the hub id), and for EviScope ``policy`` (``vanilla`` or ``gate``).
``--limit`` takes samples in dataset order: a multiple of 4 for EviScope (whole quartets), an even
number for ForceBench (both claims of a pair). ``eviscope tasks path --harness inspect`` prints this
file's path.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import GenerateConfig
from inspect_ai.scorer import Metric, SampleScore, Score, Scorer, Target, metric, scorer
from inspect_ai.solver import TaskState, generate

from eviscope.harness import suite
from eviscope.suites.forcebench.rows import CONFIG as FORCEBENCH_CONFIG

Items = Sequence[Mapping[str, Any]]


def _metric(name: str, compute: Callable[[str, Items], float]) -> Metric:
    @metric(name=name)
    def factory() -> Metric:
        def value(scores: list[SampleScore]) -> float:
            return compute(name, [s.score.metadata["item"] for s in scores])

        return value

    return factory()


def _running_eviscope_metric(name: str, items: Items) -> float:
    # inspect shows metrics while samples come in: a partial quartet gives NaN until it is complete.
    return suite.eviscope_metric(name, items, strict=False)


@scorer(metrics=[_metric(m, _running_eviscope_metric) for m in suite.EVISCOPE_METRICS])
def eviscope_scorer() -> Scorer:
    """Per row: the parsed action as the value, and the item the corpus-level metrics read."""

    async def score(state: TaskState, target: Target) -> Score:
        item = suite.eviscope_item(state.metadata, state.output.completion)
        return Score(value=item["prediction"]["action"] or "null", metadata={"item": item})

    return score


@scorer(metrics=[_metric(m, suite.forcebench_metric) for m in suite.FORCEBENCH_METRICS])
def forcebench_scorer() -> Scorer:
    """Per request: the parsed label as the value, and the item MVR, FS, LPR and CPA read."""

    async def score(state: TaskState, target: Target) -> Score:
        m = state.metadata
        item = suite.forcebench_item(m, m["which"], m["judge"], state.output.completion)
        return Score(value=item["label"] or "null", metadata={"item": item})

    return score


def _eviscope(config: str, dataset: str | None, policy: str) -> Task:
    samples = [
        Sample(input=suite.eviscope_prompt(row, policy), id=row["id"], metadata=suite.scored_row(row))
        for row in suite.load_rows(config, dataset)
    ]
    return Task(
        dataset=MemoryDataset(samples, name=config),
        solver=generate(),
        scorer=eviscope_scorer(),
        config=GenerateConfig(max_tokens=512),
    )


def _forcebench(judge: str, dataset: str | None) -> Task:
    samples = [
        Sample(
            input=prompt,
            id=f"{row['id']}#{which}",
            metadata={
                **{name: row[name] for name in suite.FORCEBENCH_PAIR_FIELDS},
                "judge": judge,
                "which": which,
            },
        )
        for row in suite.load_rows(FORCEBENCH_CONFIG, dataset)
        for which, prompt in suite.forcebench_prompts(row, judge).items()
    ]
    return Task(
        dataset=MemoryDataset(samples, name=f"forcebench-{judge}"),
        solver=generate(),
        scorer=forcebench_scorer(),
        config=GenerateConfig(max_tokens=32),
    )


@task
def eviscope_v1_1(dataset: str | None = None, policy: str = "vanilla") -> Task:
    return _eviscope("eviscope-v1.1", dataset, policy)


@task
def eviscope_v1(dataset: str | None = None, policy: str = "vanilla") -> Task:
    return _eviscope("eviscope-v1", dataset, policy)


@task
def eviscope_xl(dataset: str | None = None, policy: str = "vanilla") -> Task:
    return _eviscope("eviscope-xl", dataset, policy)


@task
def forcebench_generic(dataset: str | None = None) -> Task:
    return _forcebench("generic", dataset)


@task
def forcebench_force_aware(dataset: str | None = None) -> Task:
    return _forcebench("force_aware", dataset)


@task
def forcebench_axis_free(dataset: str | None = None) -> Task:
    return _forcebench("axis_free", dataset)


@task
def forcebench_dummy_axis(dataset: str | None = None) -> Task:
    return _forcebench("dummy_axis", dataset)
