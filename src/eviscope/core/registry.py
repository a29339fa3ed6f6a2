"""The benchmark abstraction and its one registry.

A :class:`Benchmark` says everything the suite's shared machinery (``eviscope build``, ``score``,
``run``, the Space) needs to know about one benchmark: its configs and where they come from, how to
build them, how to read its rows, the options and task of a run, how to score a predictions file,
and what the Space shows. EviScope and ForceBench are two entries of :data:`BENCHMARKS`; code outside
a benchmark's own modules asks the registry, never which benchmark it holds. A new benchmark is one
package that defines a :class:`Benchmark` and one line in :data:`BENCHMARKS`.

Entries are ``"module:attribute"`` strings, imported on first use, so that reading the registry
imports neither a benchmark's scoring nor its builder.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from eviscope.core.errors import EviScopeError, id_text

if TYPE_CHECKING:
    from pydantic import BaseModel
    from rich.console import RenderableType

    from eviscope.core.sources import Source
    from eviscope.runner.tasks import Task

Row = dict[str, Any]

BENCHMARKS: dict[str, str] = {
    "eviscope": "eviscope.suites.eviscope.benchmark:BENCHMARK",
    "forcebench": "eviscope.suites.forcebench.benchmark:BENCHMARK",
}
"""Benchmark name → ``"module:attribute"`` of its :class:`Benchmark`, in the order the suite lists them."""

SOURCES: tuple[str, ...] = ("eviscope.ragonite.confquestions:CONFQUESTIONS",)
"""``"module:attribute"`` of each :class:`~eviscope.core.sources.Source` the suite reads that is no
benchmark's own (no config is built from it; a benchmark declares its own in :attr:`Benchmark.sources`)."""

DEFAULT_CONFIG = "eviscope-v1.1"
"""The config a command uses without ``--config``, the Space opens on, and the dataset card declares
``default: true`` (so ``load_dataset(folder_or_repo)`` with no config name loads it)."""


@dataclass(frozen=True)
class Config:
    """One config of a benchmark: its name, the name of its source among the benchmark's
    :attr:`~Benchmark.sources` (None: made from nothing external), and whether a bare
    ``eviscope build`` makes and releases it."""

    name: str
    source: str | None
    releasable: bool = True


@dataclass(frozen=True)
class RunOption:
    """An option of ``eviscope run`` that a benchmark's task takes (``--name`` on the command line).

    ``default`` applies when the option is not given; an option given for a config of another
    benchmark is an error."""

    name: str
    help: str
    default: Any = None
    choices: tuple[str, ...] | None = None
    switch: bool = False
    """A flag without a value (``--contextualize``)."""
    metavar: str | None = None

    @property
    def flag(self) -> str:
        return "--" + self.name.replace("_", "-")


@dataclass(frozen=True)
class BuildRequest:
    """What ``eviscope build`` asks of a benchmark's builder."""

    configs: list[str]
    sources: Mapping[str, str | None]
    """Source key → the path given on the command line (None: the environment variable, else the default)."""
    out: Path
    seed: int | None = None
    """None: the released seed."""
    contextualize: bool = False
    progress: Callable[[Iterable[Any], str], Iterable[Any]] = lambda items, description: items


class Builder(Protocol):
    """Makes a benchmark's configs (build time only; the run-time suite never imports it)."""

    contextualize: bool
    """Whether the builder can write its configs with contextualized evidence (RAGONITE)."""
    requires: tuple[str, ...]
    """The modules its build imports beyond a plain ``pip install eviscope`` (the ``build`` extra)."""

    def build(self, request: BuildRequest) -> dict[str, Any]:
        """Write the requested configs into ``request.out``; the build report (JSON-able)."""
        ...

    def summary(self, report: Mapping[str, Any]) -> list[RenderableType]:
        """What ``eviscope build`` prints of the report."""
        ...


@dataclass
class Scored:
    """What scoring one predictions file gives: the JSON report, tables to print, files written."""

    report: dict[str, Any]
    tables: list[Any] = field(default_factory=list)
    written: list[Path] = field(default_factory=list)
    overall: dict[str, Any] | None = None
    """The overall metrics by name, as :class:`HubTask` names them (None: the report holds them)."""
    rows: list[Row] | None = None
    """The rows scored, when they are the subset the predictions name (None: every row given)."""

    @property
    def metrics(self) -> dict[str, Any]:
        return self.report if self.overall is None else self.overall


def named_rows(config: str, rows: Sequence[Row], ids: Iterable[str], source: str) -> list[Row]:
    """The rows of ``config`` whose id the predictions read from ``source`` name (``eviscope score
    --subset``, an ``eviscope run --limit N`` run), in their order; none is an error.

    >>> named_rows("c", [{"id": "a"}, {"id": "b"}], ["b", "x"], "p.jsonl")
    [{'id': 'b'}]
    """
    named = set(ids)
    chosen = [row for row in rows if row["id"] in named]
    if not chosen:
        raise EviScopeError(f"{source}: --subset, but no prediction names a row of {config}")
    return chosen


@dataclass(frozen=True)
class HubTask:
    """One task (leaderboard) of the benchmark on the Hub's eval results: its id, the config it is
    scored on, and the key of its headline metric in :attr:`Scored.metrics`."""

    id: str
    config: str
    metric: str


@dataclass(frozen=True)
class Harness:
    """A benchmark's tasks in the evaluation harnesses (``pip install 'eviscope[harness]'``)."""

    glue: str
    """The module with ``claims(sample)`` (whether a harness sample is one of its rows) and
    ``predictions(pairs, evaluator)`` (the predictions of (sample, reply) pairs of a harness log)."""
    lm_eval_tasks: str
    """``"package:folder"`` of its lm-eval task YAMLs and the utilities module they load by path."""
    inspect_tasks: str
    """The module of its inspect-ai ``@task`` functions."""


@dataclass(frozen=True)
class Metric:
    """A benchmark's evaluate module: the folder under ``metrics/`` (also the name of its metric
    Space) and the config whose rows a release checks the staged Space on."""

    folder: str
    config: str


@dataclass(frozen=True)
class AnnotationField:
    """One input of a benchmark's annotation form in the Space, named as the verdict's field."""

    name: str
    label: str
    kind: str = "text"
    """``text``; ``choice`` (radio buttons) or ``select`` (a list) of ``choices``; ``document``:
    one of the shown row's ``documents`` (or none)."""
    choices: tuple[str, ...] = ()


class AnnotationFlow(Protocol):
    """Blinded double annotation of a benchmark's rows in the Space (``eviscope.space.annotation``
    stores each annotator's sheet; this says what is annotated and how a verdict reads)."""

    title: str
    """The heading of its form (``ForceBench verdict``)."""
    config: str
    """The config whose rows are annotated."""
    sheet_columns: tuple[str, ...]
    """The columns of an annotator's CSV sheet (besides ``id``, which leads): ``annotation_<name>``
    for each of :attr:`fields`, and whatever of the row helps a reader of the sheet."""
    fields: tuple[AnnotationField, ...]

    def candidates(self, rows: Sequence[Row]) -> list[Row]:
        """The rows of :attr:`config` to annotate."""
        ...

    def blinded_html(self, row: Row) -> str:
        """What an annotator sees of a row (no label that would give the verdict away), as safe HTML."""
        ...

    def verdict(self, row_id: str, values: Mapping[str, str]) -> BaseModel:
        """One verdict from the form's values (pydantic's ValidationError where one is invalid)."""
        ...

    def agreement(
        self, a: Mapping[str, Any], b: Mapping[str, Any], shared: Sequence[Row]
    ) -> tuple[float, list[list[str]]]:
        """Cohen's kappa over the ``shared`` rows both annotated, and the adjudication queue as
        (id, reason) lines."""
        ...


def read_verdicts(
    flow: AnnotationFlow, lines: Sequence[tuple[int, Mapping[str, str]]], rows: Sequence[Row], where: str
) -> dict[str, BaseModel]:
    """The verdicts of an annotator's sheet by row id, from its complete (line number, line) pairs:
    each line's ``annotation_<name>`` values of ``flow``'s fields, stripped, read by ``flow.verdict``.

    One reader for every benchmark's sheets: an id that is not one of ``rows`` (the candidates), an
    id on two lines, or an invalid value is one :class:`EviScopeError` line naming the sheet
    (``where``), the line number and the id.
    """
    from pydantic import ValidationError

    from eviscope.core.errors import field_error
    from eviscope.core.sheets import checked_ids

    verdicts: dict[str, BaseModel] = {}
    for at, row_id, line in checked_ids(lines, {row["id"] for row in rows}, lambda n: f"{where}: line {n}"):
        values = {field.name: line[f"annotation_{field.name}"].strip() for field in flow.fields}
        try:
            verdicts[row_id] = flow.verdict(row_id, values)
        except ValidationError as err:
            raise field_error(err, f"{at}: id '{id_text(row_id)}'", "annotation_") from None
    return verdicts


@dataclass(frozen=True)
class BrowseFilter:
    """A dropdown of the Space's Browse tab: it keeps the rows whose ``field`` (as a string) is the
    value chosen among ``choices``; a row without the field (another benchmark's) is kept."""

    field: str
    label: str
    """The dropdown's label, also its parameter of the Space's ``/browse`` endpoint (an identifier)."""
    choices: tuple[str, ...]


@dataclass(frozen=True)
class Reported:
    """A result a paper reports, shown on its config's leaderboard as a ``reported (paper)`` line
    beside the submissions (never scored here: the paper's own rows and models)."""

    config: str
    system: str
    source: str
    """Where the figures are printed (paper, table or section), shown beside them."""
    line: Mapping[str, float | None]
    """Leaderboard cells by column; a column the paper does not report is left out (shown empty)."""


@dataclass
class SpaceScore:
    """A scored Space submission: the stored result and predictions, and what its report needs."""

    result: dict[str, Any]
    predictions: list[dict[str, Any]]
    detail: Any = None
    """Whatever the benchmark's report draws from (not stored)."""
    warnings: list[str] = field(default_factory=list)
    """One line each: what was scored, but not as the uploader may think (an unknown field, a label
    outside its prompt's set, predictions that fit another config); shown with the result."""


class SpaceView(Protocol):
    """What the Space shows of a benchmark's configs."""

    browse_columns: tuple[str, ...]
    """Row fields the browse table shows."""
    browse_filters: tuple[BrowseFilter, ...]
    """Its dropdowns in the Browse tab (:func:`browse_filters` gathers every benchmark's)."""
    leaderboard_columns: tuple[str, ...]
    """The leaderboard's metric columns; the first is the default sort key."""
    lower_is_better: tuple[str, ...]
    """Leaderboard columns (or prefixes) sorted ascending."""
    annotation: AnnotationFlow | None
    """Its annotation form in the Annotate tab (None: its rows are not annotated in the Space)."""
    reported: tuple[Reported, ...]
    """The papers' reported results, each on the config it was reported for."""
    reference_command: str
    """How to run one of :meth:`reference_systems` from the command line, ``{name}`` for its name:
    the source the leaderboard gives its line."""

    def reference_systems(self, rows: Sequence[Mapping[str, Any]]) -> dict[str, list[dict[str, Any]]]:
        """The predictions of each registered reference system on ``rows``, by name: the
        leaderboard scores them as it scores a submission, and shows them as ``reference`` lines."""
        ...

    def score_upload(
        self,
        rows: Sequence[Mapping[str, Any]],
        path: Path,
        source: str,
        config: str | None = None,
        rows_of: Callable[[str], Sequence[Row]] | None = None,
    ) -> SpaceScore:
        """Validate and score an uploaded predictions file for ``config``; errors name it by
        ``source``. ``rows_of`` gives the rows of the other configs the Space serves, so that
        predictions made for another config's rows are named in a warning."""
        ...

    def report(self, meta: dict[str, Any], scored: SpaceScore, out_dir: Path) -> tuple[str, list[Path]]:
        """A submission's Markdown report and its plots, drawn into ``out_dir``."""
        ...

    def leaderboard_line(self, result: Mapping[str, Any]) -> dict[str, Any]:
        """The leaderboard cells of a stored result, by column."""
        ...

    def leaderboard_plot(self, records: Sequence[Mapping[str, Any]], path: Path) -> Path:
        """The leaderboard plot of the stored records, drawn into a PNG file."""
        ...

    def row_html(self, rows: Sequence[Mapping[str, Any]], row: Mapping[str, Any]) -> str:
        """A row (with whatever belongs with it) as safe HTML."""
        ...

    def compare(
        self, record_a: Mapping[str, Any], record_b: Mapping[str, Any], rows: Sequence[Mapping[str, Any]]
    ) -> list[dict[str, Any]]:
        """The paired comparison of two stored results, one dict per line; an error where undefined."""
        ...


class Benchmark(Protocol):
    """One benchmark of the suite (see the module docstring)."""

    name: str
    title: str
    """Its display name (``EviScope``)."""
    configs: tuple[Config, ...]
    sources: tuple[Source, ...]
    """The public sources its builder reads (each config's ``source`` names one): ``eviscope build``
    offers a flag for each, and :func:`eviscope.core.sources.resolve` finds them by name."""
    builder: str
    """``"module:attribute"`` of its :class:`Builder`."""
    run_options: tuple[RunOption, ...]
    hub_tasks: tuple[HubTask, ...]
    """Its leaderboards on the Hub (``eviscope results``); empty: none."""
    metric: Metric | None
    """Its evaluate module and metric Space (None: it has none)."""
    harness: Harness | None
    """Its harness tasks (None: it has none)."""
    commands: tuple[str, ...]
    """Modules of the ``eviscope`` subcommands only it offers, each with ``register(subparsers)``
    (``eviscope compare``); the command line adds them after its own."""

    def load_rows(self, config: str, dataset: Path) -> list[Row]:
        """The rows of ``config`` built into ``dataset`` (a folder, or a file where the benchmark allows)."""
        ...

    def run_rows(
        self, config: str, dataset: Path, options: Mapping[str, Any]
    ) -> tuple[list[Row], dict[str, Any] | None]:
        """The rows a run shows the model, and what the manifest records of how they were prepared."""
        ...

    def task(self, options: Mapping[str, Any], model: str) -> Task:
        """The runner's task for the run options (each given or at its default)."""
        ...

    def score(
        self,
        config: str,
        rows: list[Row],
        predictions: Path,
        out: Path | None,
        *,
        subset: bool = False,
        rows_of: Callable[[str], Sequence[Row]] | None = None,
    ) -> Scored:
        """Validate and score a predictions file, read once (a FIFO too); write the reports into
        ``out`` (None: write nothing). ``subset``: score only the rows the predictions name
        (:func:`named_rows`; ``eviscope score --subset``), given in :attr:`Scored.rows`. ``rows_of``
        gives the rows of another built config (an error where it is not built), so that predictions
        made for another config's rows are named in a warning."""
        ...

    def score_command(self, config: str, predictions: Path) -> str:
        """The command line that scores a run's predictions."""
        ...

    def metric_example(self, rows: list[Row]) -> dict[str, list[dict[str, Any]]]:
        """``predictions`` and ``references`` of :attr:`metric` on ``rows`` of its config: what a
        release computes with the staged metric Space and with the library, to compare."""
        ...

    @property
    def space(self) -> SpaceView:
        """What the Space shows of its configs."""
        ...


def load_entry(entry: str) -> Any:
    """The object a ``"module:attribute"`` entry names (its module imported now)."""
    module, _, attribute = entry.partition(":")
    return getattr(importlib.import_module(module), attribute)


def benchmark(name: str) -> Benchmark:
    """The benchmark registered as ``name``; an unknown name is an error naming the known ones."""
    if name not in BENCHMARKS:
        raise EviScopeError(f"unknown benchmark {name!r}; known: {', '.join(BENCHMARKS)}")
    return load_entry(BENCHMARKS[name])


def benchmarks() -> list[Benchmark]:
    """Every registered benchmark, in registry order."""
    return [benchmark(name) for name in BENCHMARKS]


def configs() -> dict[str, tuple[Benchmark, Config]]:
    """Every config of every benchmark → (its benchmark, its :class:`Config`)."""
    return {config.name: (b, config) for b in benchmarks() for config in b.configs}


def for_config(config: str, benchmark: str | None = None) -> Benchmark:
    """The benchmark that config ``config`` belongs to; an unknown config names the known ones, and
    so does a config of another benchmark than ``benchmark`` (where a command takes only its configs).
    The one check of a config name: ``eviscope`` runs it on every command's ``--config``."""
    known = configs()
    if config not in known:
        raise EviScopeError(f"unknown config {config!r}; known: {', '.join(known)}")
    bench = known[config][0]
    if benchmark is not None and bench.name != benchmark:
        own = [name for name, (b, _) in known.items() if b.name == benchmark]
        title = next(b.title for b, _ in known.values() if b.name == benchmark)
        raise EviScopeError(
            f"config {config!r} belongs to {bench.title}, not {title}; {title} configs: {', '.join(own)}"
        )
    return bench


def source_of(bench: Benchmark, config: Config) -> Source | None:
    """The source ``config`` of ``bench`` is built from (None: nothing external); a source its
    benchmark does not declare is an error naming those it does."""
    if config.source is None:
        return None
    declared = {source.name: source for source in getattr(bench, "sources", ())}
    if config.source not in declared:
        raise EviScopeError(
            f"config {config.name!r} names source {config.source!r}, which {bench.title} does not declare "
            f"(its sources: {', '.join(declared) or 'none'})"
        )
    return declared[config.source]


def harnessed() -> list[tuple[Benchmark, Harness]]:
    """Every benchmark that has harness tasks, with them, in registry order."""
    return [(b, h) for b in benchmarks() if (h := getattr(b, "harness", None)) is not None]


def command_modules() -> list[str]:
    """Every benchmark's subcommand modules, in registry order."""
    return [module for b in benchmarks() for module in getattr(b, "commands", ())]


def builder(bench: Benchmark) -> Builder:
    """A benchmark's builder (imported only now: build time)."""
    return load_entry(bench.builder)


BUILD_EXTRA = "eviscope[build]"
"""The extra that installs what every builder :attr:`~Builder.requires`."""


def check_build_requirements(bench: Benchmark, built: Builder) -> None:
    """Raise one line naming what to install when a module the build of ``bench`` needs is missing."""
    from importlib.util import find_spec

    missing = [name for name in getattr(built, "requires", ()) if find_spec(name) is None]
    if missing:
        raise EviScopeError(
            f"building {bench.name} needs the build-time packages of the `build` extra (missing: "
            f"{', '.join(missing)}): pip install '{BUILD_EXTRA}' (from a checkout: pip install -e '.[build]')"
        )


def run_options() -> dict[str, RunOption]:
    """Every benchmark's run options by name (a name two benchmarks share is offered once)."""
    return {option.name: option for b in benchmarks() for option in b.run_options}


def task_options(bench: Benchmark, config: str, given: Mapping[str, Any]) -> dict[str, Any]:
    """The run options of ``bench`` from those given (None or False: not given), each at its
    default when not given; an option given that ``bench`` does not take is an error."""
    own = {option.name: option for option in bench.run_options}
    stray = [name for name, value in given.items() if value not in (None, False) and name not in own]
    if stray:
        takes = ", ".join(option.flag for option in own.values()) or "no task options"
        flag = "--" + stray[0].replace("_", "-")
        raise EviScopeError(
            f"{flag} is not an option of {bench.title} configs like {config}; they take {takes}"
        )
    return {
        name: option.default if given.get(name) in (None, False) else given[name]
        for name, option in own.items()
    }


def browse_filters() -> list[BrowseFilter]:
    """Every benchmark's browse filters, in registry order; a field two benchmarks filter on is
    offered once, with the choices of both."""
    by_field: dict[str, BrowseFilter] = {}
    for b in benchmarks():
        for f in b.space.browse_filters:
            first = by_field.setdefault(f.field, f)
            if first is not f:
                choices = tuple(dict.fromkeys((*first.choices, *f.choices)))
                by_field[f.field] = BrowseFilter(f.field, first.label, choices)
    return list(by_field.values())


def annotated() -> dict[str, AnnotationFlow]:
    """Benchmark name → its annotation flow, for every benchmark annotated in the Space."""
    return {b.name: b.space.annotation for b in benchmarks() if b.space.annotation is not None}


def releasable() -> list[str]:
    """The configs a bare ``eviscope build`` makes and ``eviscope release`` stages."""
    return [name for name, (_, config) in configs().items() if config.releasable]
