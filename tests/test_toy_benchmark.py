"""A new benchmark is its own folders and three edits: the toy benchmark (``tests/toy/``, laid out as
in a checkout: its package under ``src/eviscope/suites/toy/``, its builder under ``builders/toy/``,
its evaluate module under ``metrics/toy/``; its own source declared in its package) goes through
``eviscope build`` (which offers the source's flag), ``run`` (against the
stub server), ``score``, the harness tasks, its metric module and the Space; and in a copy of the
repository, with only the registry line, the pyproject's package lists and a docs section added,
it does the same from where a real benchmark's files would stand."""

from __future__ import annotations

import doctest
import filecmp
import importlib
import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest
from module_files import load_file
from stub_server import StubServer

import eviscope.builders
import eviscope.suites
from eviscope.cli import main
from eviscope.core import registry, sources

REPO = Path(__file__).resolve().parents[1]
TOY = REPO / "tests" / "toy"
"""The toy's files, at the paths a new benchmark's files have in a checkout."""
ENTRY = "eviscope.suites.toy.benchmark:BENCHMARK"
CONFIG = "toy-v1"
PAIRS = [[i, 2 * i] for i in range(6)]
"""What the toy's own source holds in these tests (its rows ``t0``…``t5``)."""


def write_pairs(path: Path) -> Path:
    path.write_text(json.dumps(PAIRS), encoding="utf-8")
    return path


def answer(body: Mapping[str, Any]) -> str:
    """What a model that adds correctly replies (the stub server's ``answer``)."""
    a, b = map(int, re.findall(r"What is (\d+) \+ (\d+)\?", body["messages"][0]["content"])[0])
    return json.dumps({"sum": a + b})


@pytest.fixture
def toy(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    """The toy registered by its one line, its package and builder importable from ``tests/toy``."""
    monkeypatch.setattr(
        eviscope.suites, "__path__", [*eviscope.suites.__path__, str(TOY / "src/eviscope/suites")]
    )
    monkeypatch.setattr(eviscope.builders, "__path__", [*eviscope.builders.__path__, str(TOY / "builders")])
    monkeypatch.setitem(registry.BENCHMARKS, "toy", ENTRY)
    monkeypatch.setenv("EVISCOPE_CACHE", str(tmp_path / "cache"))  # the gathered harness tasks
    yield
    for name in [n for n in sys.modules if n.startswith(("eviscope.suites.toy", "eviscope.builders.toy"))]:
        del sys.modules[name]


@pytest.fixture
def dataset(toy, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    out = tmp_path / "dataset"
    out.mkdir()
    (out / "README.md").write_text("---\n---\n", encoding="utf-8")
    pairs = write_pairs(tmp_path / "pairs.json")
    assert main(["build", CONFIG, "--toy-pairs", str(pairs), "--out", str(out)]) == 0
    assert "toy: 6 rows in toy-v1" in capsys.readouterr().out
    assert json.loads((out / "build_report.json").read_text()) == {"toy": {"configs": [CONFIG], "rows": 6}}
    return out


def test_the_toy_declares_its_own_source_and_build_offers_it(
    toy, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("EVISCOPE_TOY_PAIRS", raising=False)
    assert sources.source("toy_pairs").hub_id is None
    with pytest.raises(SystemExit):
        main(["build", "--help"])
    assert "--toy-pairs PATH" in capsys.readouterr().out
    # without a copy, one line names the flag and the variable; with a bad one, the file too
    out = tmp_path / "dataset"
    assert main(["build", CONFIG, "--out", str(out)]) == 2
    assert capsys.readouterr().err == (
        "eviscope build: error: Toy pairs (JSON list of [a, b]): no copy configured; point at your own "
        "copy with --toy-pairs PATH or EVISCOPE_TOY_PAIRS=PATH (it is never downloaded or redistributed)\n"
    )
    (tmp_path / "pairs.json").write_text("[[1, 2], [3]]", encoding="utf-8")
    monkeypatch.setenv("EVISCOPE_TOY_PAIRS", str(tmp_path / "pairs.json"))
    assert main(["build", CONFIG, "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert f"Toy pairs (JSON list of [a, b]) at {tmp_path / 'pairs.json'} (via EVISCOPE_TOY_PAIRS): " in err
    assert err.endswith("; point at a local copy with --toy-pairs PATH or EVISCOPE_TOY_PAIRS=PATH\n")
    # made from a user's own copy, it is not among the configs a bare build makes and a release stages
    assert CONFIG in registry.configs() and CONFIG not in registry.releasable()


def test_the_toy_benchmark_builds_runs_scores_and_shows_in_the_space(
    dataset: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = tmp_path / "runs" / "adder"
    server = StubServer(answer=answer)
    with server.serving():
        argv = ["run", "--config", CONFIG, "--dataset", str(dataset), "--backend", "openai", "--model", "adder",
                "--base-url", server.url, "--out", str(run), "--toy-note", "hello"]  # fmt: skip
        assert main(argv) == 0
    assert len(server.log) == 6
    assert f"eviscope score {run / 'predictions.jsonl'} --config {CONFIG}" in capsys.readouterr().err
    manifest = json.loads((run / "manifest.json").read_text())
    assert (manifest["task"], manifest["rows"]["done"]) == ("toy", 6)

    score = ["score", str(run / "predictions.jsonl"), "--config", CONFIG, "--dataset", str(dataset), "--json"]
    assert main(score) == 0
    assert json.loads(capsys.readouterr().out) == {"n": 6, "accuracy": 1.0}
    assert json.loads((run / "report" / "results.json").read_text())["accuracy"] == 1.0

    # an option of another benchmark is refused, naming the ones the toy takes
    assert main([*argv[:-2], "--policy", "gate"]) == 2
    assert (
        "--policy is not an option of Toy configs like toy-v1; they take --toy-note"
        in capsys.readouterr().err
    )

    pytest.importorskip("gradio", reason="gradio is not installed (the Space): pip install -e '.[space]'")
    from eviscope.space.annotation import AnnotationStore
    from eviscope.space.data import RowSource
    from eviscope.space.leaderboard import LocalResultStore, leaderboard_table
    from eviscope.space.ui import build_demo

    store = LocalResultStore(tmp_path / "results")
    demo = build_demo(RowSource(dataset), store, AnnotationStore(tmp_path / "results" / "annotations"))
    api = {fn.api_name: fn.fn for fn in demo.fns.values()}
    status, markdown, _ = api["submit"](CONFIG, "adder", str(run / "predictions.jsonl"))
    assert "Recorded **adder**" in status and "accuracy 1.000" in markdown
    table = leaderboard_table(CONFIG, store.records(CONFIG))
    assert table[["system", "accuracy"]].values.tolist() == [["adder", 1.0]]
    assert api["show"](CONFIG, "t2") == "<p>2 + 4</p>"
    # its Browse filter joins the others', after them; the others ignore its rows
    filters = {f.label: "any" for f in registry.browse_filters()}
    assert list(filters)[-1] == "a"
    table, note = api["browse"](CONFIG, *{**filters, "a": "2"}.values(), "")
    assert table["id"].tolist() == ["t2"] and note == "1 of 6 rows match"
    table, note = api["browse"](CONFIG, *{**filters, "variant": "noisy"}.values(), "")
    assert note == "6 of 6 rows match"
    # annotation is optional: the toy declares none, so the Annotate tab refuses it by name
    with pytest.raises(Exception, match="no annotation flow for 'toy'; choose one of eviscope, forcebench"):
        api["annotate_next"]("toy")


def test_the_toy_harness_tasks_are_gathered_with_the_others(
    dataset: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["tasks", "path"]) == 0
    folder = Path(capsys.readouterr().out.strip())
    assert sorted(p.name for p in (folder / "toy").iterdir()) == ["toy.yaml", "toy_utils.py"]
    assert (folder / "forcebench").is_dir() and (folder / "eviscope").is_dir()
    assert main(["tasks", "path", "--harness", "inspect"]) == 0
    files = [Path(line) for line in capsys.readouterr().out.split()]
    assert files[-1] == TOY / "src/eviscope/suites/toy/inspect_tasks.py" and len(files) == len(
        registry.harnessed()
    )

    monkeypatch.setenv("EVISCOPE_DATASET", str(dataset))  # where the harness tasks read their rows
    pytest.importorskip("lm_eval", reason="lm-eval is not installed: pip install -e '.[harness]'")
    from lm_eval.tasks import TaskManager

    task = TaskManager(include_path=str(folder), include_defaults=False).load("toy")["tasks"]["toy"]
    docs = list(task.test_docs())
    assert [doc["id"] for doc in docs] == [f"t{i}" for i in range(6)]
    replies = [
        answer({"messages": [{"content": task.doc_to_text(d)}]}) if i else "no idea"
        for i, d in enumerate(docs)
    ]
    items = [task.process_results(doc, [reply])["accuracy"] for doc, reply in zip(docs, replies, strict=True)]
    # lm-eval's aggregation is the toy's scoring: 5 of 6 right
    assert task.aggregation()["accuracy"](items) == 5 / 6

    pytest.importorskip("inspect_ai", reason="inspect-ai is not installed: pip install -e '.[harness]'")
    inspect_task = importlib.import_module("eviscope.suites.toy.inspect_tasks").toy(dataset=str(dataset))
    assert [s.input for s in inspect_task.dataset] == [d["prompt"] for d in docs]


def test_the_toy_metric_module_loads_offline_and_scores_as_the_library(dataset: Path, tmp_path: Path) -> None:
    import evaluate

    bench = registry.benchmark("toy")
    example = bench.metric_example(bench.load_rows(CONFIG, dataset))
    predictions = tmp_path / "predictions.jsonl"
    predictions.write_text("".join(json.dumps(p) + "\n" for p in example["predictions"]), encoding="utf-8")
    result = evaluate.load(str(TOY / "metrics" / bench.metric.folder)).compute(**example)
    assert result == bench.score(CONFIG, bench.load_rows(CONFIG, dataset), predictions, None).report
    assert result == {"n": 6, "accuracy": 5 / 6}


def test_the_toy_metric_card_example_runs_as_a_doctest(toy, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(TOY)  # the example loads "metrics/toy", as from a checkout's root
    outcome = doctest.testmod(load_file(TOY / "metrics" / "toy" / "toy.py", "toy_metric"))
    assert outcome.attempted > 0 and outcome.failed == 0
    card = (TOY / "metrics" / "toy" / "README.md").read_text(encoding="utf-8")
    assert card.startswith("---\n") and "app_file: app.py" in card


# --- what a new benchmark changes in the repository ------------------------------------------------

EDITS = {
    "src/eviscope/core/registry.py": [
        ('    "forcebench": "eviscope.suites.forcebench.benchmark:BENCHMARK",\n', f'    "toy": "{ENTRY}",\n')
    ],
    "pyproject.toml": [
        ('    "eviscope.suites.forcebench.commands",\n', '    "eviscope.suites.toy",\n'),
        ('    "eviscope.builders.forcebench",\n', '    "eviscope.builders.toy",\n'),
        (
            '"eviscope.suites.forcebench" = ["prompts/*.txt", "lm_eval_tasks/*.yaml", "lm_eval_tasks/_*_yaml", '
            '"lm_eval_tasks/*.py"]\n',
            '"eviscope.suites.toy" = ["lm_eval_tasks/*.yaml", "lm_eval_tasks/*.py"]\n',
        ),
    ],
    "docs/contract.md": [
        (None, "\n## The toy benchmark\n\nRows `id`, `a`, `b`; a prediction is `id` and `sum`.\n")
    ],
}
"""The only existing files a new benchmark edits, and the edits: (after this text, add this; None: at the end)."""


def _checkout(target: Path) -> None:
    """The repository's files (tracked, and new ones git does not ignore) copied into ``target``."""
    listed = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=REPO, check=True,
                            capture_output=True, text=True).stdout.split("\0")  # fmt: skip
    for name in filter(None, listed):
        if (REPO / name).is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO / name, target / name)


def _add_the_toy(checkout: Path) -> list[str]:
    """The toy's files into their places in ``checkout``, then :data:`EDITS`; the files it added."""
    added = []
    for path in sorted(p for p in TOY.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
        name = path.relative_to(TOY).as_posix()
        assert not (checkout / name).exists(), (
            f"{name}: the toy's file would overwrite one of the repository's"
        )
        (checkout / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(path, checkout / name)
        added.append(name)
    for name, edits in EDITS.items():
        text = (checkout / name).read_text(encoding="utf-8")
        for after, line in edits:
            assert after is None or text.count(after) == 1, f"{name}: {after!r} is not there once"
            text = text + line if after is None else text.replace(after, after + line)
        (checkout / name).write_text(text, encoding="utf-8")
    return added


@pytest.mark.slow
def test_a_new_benchmark_is_its_own_folders_and_three_edits(tmp_path: Path) -> None:
    checkout = tmp_path / "checkout"
    _checkout(checkout)
    added = _add_the_toy(checkout)
    # the toy's files stand only in its own folders
    assert {n.split("/toy/")[0] for n in added} == {"src/eviscope/suites", "builders", "metrics"}
    # every file of its package is installed: a package the pyproject lists, or its package data
    setup = tomllib.loads((checkout / "pyproject.toml").read_text())["tool"]["setuptools"]
    for name in added:
        if name.startswith("src/"):
            package = "eviscope.suites.toy"
            inside = Path(name).relative_to("src/eviscope/suites/toy")
            shipped = inside.suffix == ".py" and inside.parent == Path(".")
            shipped |= any(inside.match(p) for p in setup["package-data"].get(package, []))
            assert package in setup["packages"] and shipped, f"{name}: not installed"
    assert "eviscope.builders.toy" in setup["packages"]
    changed = sorted(
        name
        for name in (p.relative_to(REPO).as_posix() for p in REPO.rglob("*") if p.is_file())
        if (checkout / name).is_file() and not filecmp.cmp(REPO / name, checkout / name, shallow=False)
    )
    assert changed == sorted(EDITS)

    # ... and that is all it takes: from the checkout, as its pyproject installs it, the toy builds,
    # runs, scores, has harness tasks, a metric module and a Space view
    work = tmp_path / "work"
    work.mkdir()
    env = {**os.environ, "EVISCOPE_CACHE": str(tmp_path / "cache"), "HF_HUB_OFFLINE": "1",
           "HF_DATASETS_OFFLINE": "1", "GRADIO_ANALYTICS_ENABLED": "False", "MPLBACKEND": "Agg",
           "EVISCOPE_TOY_PAIRS": str(write_pairs(tmp_path / "pairs.json"))}  # fmt: skip
    env.pop("PYTHONPATH", None)
    server = StubServer(answer=answer)
    with server.serving():
        done = subprocess.run([sys.executable, str(REPO / "tests" / "toy_checkout.py"), str(checkout), str(work),
                               server.url], cwd=work, env=env, capture_output=True, text=True, timeout=600)  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    seen = json.loads((work / "seen.json").read_text())
    assert seen["score"] == {"n": 6, "accuracy": 1.0}
    assert seen["lm_eval"] == ["toy.yaml", "toy_utils.py"]
    assert seen["inspect"][-1] == "src/eviscope/suites/toy/inspect_tasks.py"
    assert seen["metric"] == {"n": 6, "accuracy": 5 / 6}
    if importlib.util.find_spec("gradio") is not None:
        assert seen["space"] == "<p>2 + 4</p>"

    # the checkout's tests that read every benchmark (layering, command-line conventions, harness
    # task files) read the toy's as the others'
    layering = [sys.executable, str(REPO / "tests" / "toy_checkout.py"), "--pytest", str(checkout), "-q",
                "-p", "no:cacheprovider", "tests/test_layering.py", "tests/test_cli_convention.py",
                "tests/test_harness.py::test_tasks_path_lists_every_task_with_every_suite_metric",
                "tests/test_harness.py::test_every_lm_eval_task_file_is_package_data"]  # fmt: skip
    done = subprocess.run(layering, cwd=checkout, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-3000:]
