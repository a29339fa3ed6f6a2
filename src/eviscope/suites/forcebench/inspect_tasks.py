"""ForceBench's judge tasks for inspect-ai: ``inspect eval <this file>@forcebench_generic --model …``.

One task per judge prompt (``forcebench_<judge>``), two requests per pair; the suite's label parser
and MVR, FS, LPR and CPA over the whole run (:mod:`eviscope.suites.forcebench.harness`). Task
arguments (``-T``): ``dataset`` (hub id or folder written by ``eviscope build``) and ``response_format``
(``json_schema``, ``json_object`` or ``none``, the default: how each request asks for the judge's label
schema, :mod:`eviscope.harness.inspect_generate`). ``--limit`` takes
samples in dataset order: an even number (both claims of a pair).
"""

from __future__ import annotations

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import GenerateConfig
from inspect_ai.scorer import Score, Scorer, Target, scorer
from inspect_ai.solver import TaskState

from eviscope.harness.data import SCHEMA_KEY, load_rows, schema_json
from eviscope.harness.inspect_generate import generate_with_schema
from eviscope.harness.inspect_metrics import corpus_metric
from eviscope.suites.forcebench import harness as suite
from eviscope.suites.forcebench.rows import CONFIG as FORCEBENCH_CONFIG


@scorer(metrics=[corpus_metric(m, suite.forcebench_metric) for m in suite.FORCEBENCH_METRICS])
def forcebench_scorer() -> Scorer:
    """Per request: the parsed label as the value, and the item MVR, FS, LPR and CPA read."""

    async def score(state: TaskState, target: Target) -> Score:
        m = state.metadata
        item = suite.forcebench_item(m, m["which"], m["judge"], state.output.completion)
        return Score(value=item["label"] or "null", metadata={"item": item})

    return score


def _forcebench(judge: str, dataset: str | None, response_format: str) -> Task:
    schema = schema_json(suite.forcebench_schema(judge))
    samples = [
        Sample(
            input=prompt,
            id=f"{row['id']}#{which}",
            metadata={
                **{name: row[name] for name in suite.FORCEBENCH_PAIR_FIELDS},
                "judge": judge,
                "which": which,
                SCHEMA_KEY: schema,
            },
        )
        for row in load_rows(FORCEBENCH_CONFIG, dataset)
        for which, prompt in suite.forcebench_prompts(row, judge).items()
    ]
    return Task(
        dataset=MemoryDataset(samples, name=f"forcebench-{judge}"),
        solver=generate_with_schema(response_format),
        scorer=forcebench_scorer(),
        config=GenerateConfig(max_tokens=32),
    )


@task
def forcebench_generic(dataset: str | None = None, response_format: str = "none") -> Task:
    return _forcebench("generic", dataset, response_format)


@task
def forcebench_force_aware(dataset: str | None = None, response_format: str = "none") -> Task:
    return _forcebench("force_aware", dataset, response_format)


@task
def forcebench_axis_free(dataset: str | None = None, response_format: str = "none") -> Task:
    return _forcebench("axis_free", dataset, response_format)


@task
def forcebench_dummy_axis(dataset: str | None = None, response_format: str = "none") -> Task:
    return _forcebench("dummy_axis", dataset, response_format)
