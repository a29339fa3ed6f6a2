"""The Space through its API (gradio_client), against the app launched on 127.0.0.1 in the test."""

from __future__ import annotations

import html
import json
import re
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("gradio", reason="gradio is not installed (the Space): pip install -e '.[space]'")
gradio_client = pytest.importorskip(
    "gradio_client", reason="gradio_client is not installed: pip install -e '.[dev]'"
)

from gradio_client import Client, handle_file  # noqa: E402
from gradio_client.exceptions import AppError  # noqa: E402
from space_server import SpaceForks, SpaceServer  # noqa: E402

from eviscope.core.registry import annotated, browse_filters  # noqa: E402
from eviscope.core.tables import round_value  # noqa: E402
from eviscope.space.annotation import ID_KEY_VARIABLE, AnnotationStore, blind_id  # noqa: E402
from eviscope.space.reference import INDEX, REFERENCE_DIR  # noqa: E402
from eviscope.space.submissions import MAX_BYTES  # noqa: E402
from eviscope.space.ui import LOCAL_USER  # noqa: E402
from eviscope.suites.eviscope.dataset import load_rows  # noqa: E402
from eviscope.suites.eviscope.paired import compare  # noqa: E402
from eviscope.suites.eviscope.reference_systems import predict  # noqa: E402
from eviscope.suites.eviscope.scoring import score  # noqa: E402
from eviscope.suites.forcebench.baselines import baseline_predictions  # noqa: E402
from eviscope.suites.forcebench.rows import read_rows  # noqa: E402

CONFIG = "eviscope-v1.1"
NO_FORCEBENCH_VERDICT: list[str | None] = [None, "", "", "", "", "", "", "", ""]
NO_EVISCOPE_VERDICT: list[str | None] = [None, "", "", ""]
FLOWS = annotated()


def write_jsonl(path: Path, objects: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(o) + "\n" for o in objects), encoding="utf-8")
    return path


ANNOTATION_KEY = "test-annotation-key"
"""The Space's key of the ids an annotator sees, set so that a test can map them back."""


@pytest.fixture(scope="module")
def files(built_dataset: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Prediction files of the reference systems (EviScope) and one ForceBench baseline."""
    out = tmp_path_factory.mktemp("predictions")
    rows = load_rows(CONFIG, built_dataset)
    paths = {
        name: write_jsonl(out / f"{name}.jsonl", predict(name, rows))
        for name in ("lexical", "oracle", "always-answer")
    }
    fb = baseline_predictions(read_rows(built_dataset), ["axis_forcecheck"])
    paths["forcebench"] = write_jsonl(out / "axis.jsonl", fb)
    return paths


@pytest.fixture(scope="module")
def space(built_dataset: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Client, Path]]:
    """The app on a free port with an empty results folder, and a client."""
    results = tmp_path_factory.mktemp("results")
    env = {ID_KEY_VARIABLE: ANNOTATION_KEY}  # so that the test can tell which row an annotator was shown
    server = SpaceServer(built_dataset, results, results.parent / "space.log", env=env)
    try:
        yield Client(server.url, verbose=False), results
    finally:
        server.stop()


def board(client: Client, config: str) -> dict[str, dict[str, Any]]:
    """The leaderboard of ``config`` as {system: {column: cell}}."""
    table = client.predict(config, "", None, api_name="/leaderboard")[0]
    return {line[0]: dict(zip(table["headers"], line, strict=True)) for line in table["data"]}


def reference_systems(config: str) -> set[str]:
    """The systems of the reference runs committed for ``config`` (eviscope.space.reference)."""
    index = json.loads((REFERENCE_DIR / INDEX).read_text(encoding="utf-8"))["results"]
    return {entry["system"] for entry in index if entry["config"] == config}


def recorded(results: Path, config: str) -> list[dict[str, Any]]:
    return [json.loads(p.read_text()) for p in sorted((results / config).glob("*.json"))]


def test_browse_filters_rows_and_shows_the_quartet_with_span_and_conflict_diff(
    space: tuple[Client, Path], built_dataset: Path
) -> None:
    client, _ = space
    table, note = client.predict(CONFIG, "conflicting", "any", "any", "any", "", api_name="/browse")
    assert len(table["data"]) == 40 and note.startswith("40 of 160")
    assert {line[1] for line in table["data"]} == {"conflicting"}
    table, _ = client.predict(CONFIG, "any", "any", "any", "any", "SURRENDER", api_name="/browse")
    ids = {line[0] for line in table["data"]}
    assert {f"q02-{v}" for v in ("sufficient", "noisy", "insufficient", "conflicting")} <= ids
    assert "q01-sufficient" not in ids
    table, _ = client.predict(CONFIG, "any", "any", "any", "any", "q05-noisy", api_name="/browse")
    assert [line[0] for line in table["data"]] == ["q05-noisy"]
    fb, _ = client.predict("forcebench", "any", "numeric", "1", "adjudicated", "", api_name="/browse")
    columns = fb["headers"]
    assert fb["data"] and {
        (line[columns.index("axis")], str(line[columns.index("severity")])) for line in fb["data"]
    } == {("numeric", "1")}
    by_id = {row["id"]: row for row in read_rows(built_dataset)}
    assert [line[columns.index("claim_source")] for line in fb["data"]] == [
        by_id[line[0]]["claim_source"] for line in fb["data"]
    ]  # where each claim came from, as built
    # /browse takes the registry's filters by name, each "any" when left out (as the release probe calls it)
    endpoint = client.view_api(print_info=False, return_format="dict")["named_endpoints"]["/browse"]
    names = [parameter["parameter_name"] for parameter in endpoint["parameters"]]
    assert names == ["config", *(f.label for f in browse_filters()), "query"]
    by_name = client.predict(
        "forcebench", axis="numeric", severity="1", status="adjudicated", query="", api_name="/browse"
    )
    assert by_name[0] == fb

    view = client.predict(CONFIG, "q01-noisy", api_name="/show")
    for variant in ("sufficient", "noisy", "insufficient", "conflicting"):
        assert f"<h4>{variant}</h4>" in view
    assert "<mark>" in view  # the support span
    [conflicting] = [r for r in load_rows(CONFIG, built_dataset) if r["id"] == "q01-conflicting"]
    # the conflict edit against the support: the gold struck, the built alternative marked
    assert "<del>" in view and f"<ins>{html.escape(conflicting['conflict_answer'])}</ins>" in view
    pair = client.predict("forcebench", fb["data"][0][0], api_name="/show")
    assert "<mark>" in pair and ("<ins>" in pair or "<del>" in pair)  # span, and the force edit


def test_valid_submission_is_scored_by_the_library_and_on_the_leaderboard(
    space: tuple[Client, Path], files: dict[str, Path], built_dataset: Path
) -> None:
    client, results = space
    status, report, plots = client.predict(
        CONFIG, "lexical", handle_file(files["lexical"]), api_name="/submit"
    )
    assert status.startswith("Recorded **lexical**")
    expected = score(load_rows(CONFIG, built_dataset), files["lexical"]).overall
    qcs = f"{expected['quartet_consistency']:.3f}"
    assert re.search(rf"^\| quartet_consistency \(QCS\) +\| {qcs} +\|", report, flags=re.MULTILINE)
    assert len(plots) == 2 and all(Path(p["image"]).stat().st_size > 0 for p in plots)
    line = board(client, CONFIG)["lexical"]
    assert line["joint success"] == round_value(expected["joint_success"]) and line["kind"] == "submission"
    assert [r["system"] for r in recorded(results, CONFIG)].count("lexical") == 1

    status, report, plots = client.predict(
        "forcebench", "axis check", handle_file(files["forcebench"]), api_name="/submit"
    )
    assert status.startswith("Recorded") and re.search(r"^\| axis numeric +\|", report, flags=re.MULTILINE)
    assert "axis check" in board(client, "forcebench")


@pytest.mark.parametrize(
    ("name", "make", "message"),
    [
        (
            "malformed",
            lambda lines: ['{"id": "q01-sufficient", "action": "answer"', *lines[1:]],
            "malformed.jsonl line 1: not valid JSON",
        ),
        ("missing", lambda lines: lines[1:], "1 missing ids (q01-sufficient)"),
        (
            "unknown",
            lambda lines: [*lines, json.dumps({"id": "q99-noisy", "action": "abstain"})],
            "1 unknown ids (q99-noisy)",
        ),
        (
            "duplicate",
            lambda lines: [*lines, lines[0]],
            "line 161: duplicate id q01-sufficient (first on line 1)",
        ),
        (
            "bad-action",
            lambda lines: [lines[0].replace('"action": "answer"', '"action": "guess"'), *lines[1:]],
            "field `action`",
        ),
        ("empty", lambda lines: ["", ""], "the file is empty"),
    ],
)
def test_invalid_submission_gets_a_clear_error_and_nothing_is_recorded(
    space: tuple[Client, Path], files: dict[str, Path], tmp_path: Path, name: str, make: Any, message: str
) -> None:
    client, results = space
    lines = files["oracle"].read_text().splitlines()
    assert '"action": "answer"' in lines[0]
    upload = tmp_path / f"{name}.jsonl"
    upload.write_text("\n".join(make(lines)) + "\n")
    before = recorded(results, CONFIG)
    with pytest.raises(AppError, match=message.replace("(", r"\(").replace(")", r"\)")):
        client.predict(CONFIG, f"invalid {name}", handle_file(upload), api_name="/submit")
    assert recorded(results, CONFIG) == before


def test_oversized_bad_name_and_wrong_benchmark_submissions_are_refused(
    space: tuple[Client, Path], files: dict[str, Path], tmp_path: Path
) -> None:
    client, results = space
    before = {config: recorded(results, config) for config in (CONFIG, "forcebench")}
    huge = tmp_path / "huge.jsonl"
    huge.write_bytes(files["oracle"].read_bytes() + b" " * MAX_BYTES)
    # The Space gives gradio its size limit, so an oversized upload is refused before it is stored.
    with pytest.raises(ValueError, match=f"huge.jsonl exceeds the maximum file size of {MAX_BYTES} bytes"):
        client.predict(CONFIG, "huge", handle_file(huge), api_name="/submit")
    cases = [
        (CONFIG, "../../etc/passwd!", files["oracle"], "system name .* is not allowed"),
        (
            CONFIG,
            "fb on eviscope",
            files["forcebench"],
            "axis.jsonl line 1 .*: field `action`: Field required",
        ),
        ("forcebench", "eviscope on fb", files["oracle"], "oracle.jsonl:1: field 'evaluator'"),
    ]
    for config, system, path, message in cases:
        with pytest.raises(AppError, match=message):
            client.predict(config, system, handle_file(path), api_name="/submit")
    with pytest.raises(AppError, match="no file uploaded"):
        client.predict(CONFIG, "nothing", None, api_name="/submit")
    assert {config: recorded(results, config) for config in before} == before


def test_concurrent_submissions_are_each_recorded_exactly_once(
    space: tuple[Client, Path], files: dict[str, Path]
) -> None:
    client, results = space
    uploads = [
        ("oracle", files["oracle"]),
        ("always-answer", files["always-answer"]),
        ("oracle", files["oracle"]),
    ]
    statuses: list[str] = []

    def submit(system: str, path: Path) -> None:
        statuses.append(
            Client(client.src, verbose=False).predict(CONFIG, system, handle_file(path), api_name="/submit")[
                0
            ]
        )

    threads = [threading.Thread(target=submit, args=upload) for upload in uploads]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(statuses) == 3
    assert sum(s.startswith("Recorded") for s in statuses) == 2  # the repeated upload is recognized
    systems = [r["system"] for r in recorded(results, CONFIG)]
    assert systems.count("oracle") == 1 and systems.count("always-answer") == 1
    assert {"oracle", "always-answer"} <= board(client, CONFIG).keys()


def test_two_systems_compared_with_the_library_mcnemar_and_bootstrap(
    space: tuple[Client, Path], files: dict[str, Path], built_dataset: Path
) -> None:
    client, _ = space
    for system in ("lexical", "oracle"):
        if system not in board(client, CONFIG):
            client.predict(CONFIG, system, handle_file(files[system]), api_name="/submit")
    table = client.predict(CONFIG, "lexical", "oracle", api_name="/compare")
    rows = load_rows(CONFIG, built_dataset)
    expected = compare(score(rows, files["lexical"]), score(rows, files["oracle"]))
    got = {line[0]: dict(zip(table["headers"], line, strict=True)) for line in table["data"]}
    assert list(got) == ["ERS", "NR", "CS", "QCS"]
    for r, line in zip(expected, got.values(), strict=True):
        assert (line["b (A only)"], line["c (B only)"]) == (r.b, r.c)
        assert line["McNemar p"] == pytest.approx(r.p_value, rel=1e-2)
        assert line["95% CI low"] == round_value(r.ci_low)
    with pytest.raises(AppError, match="no result for 'nobody'"):
        client.predict(CONFIG, "lexical", "nobody", api_name="/compare")


def test_annotation_without_sign_in_is_one_local_sheet_and_agreement_names_no_one(
    space: tuple[Client, Path], built_dataset: Path
) -> None:
    """Run locally (no OAuth), the Space is single-user: every verdict goes into the local user's
    sheet; the agreement view compares it with the other sheets (here one written beside it, as a
    results repo would restore it) without naming their annotators or showing their verdicts."""
    client, results = space
    row_id, view, progress, _ = client.predict("forcebench", api_name="/annotate_next")
    assert "<b>raised_claim</b>" in view and progress == f"0 of {progress.split(' of ')[1]}"
    next_id, _, progress, _ = client.predict(
        "forcebench",
        row_id,
        *NO_EVISCOPE_VERDICT,
        "accept_force_gap",
        *NO_FORCEBENCH_VERDICT[1:],
        api_name="/annotate_save",
    )
    assert (
        progress.startswith("1 of") and progress.endswith(f"annotated by {LOCAL_USER}") and next_id != row_id
    )
    sheets = results / "annotations" / "forcebench"
    assert sorted(p.name for p in sheets.glob("*.csv")) == [f"{LOCAL_USER}.csv"]
    assert "accept_force_gap" in (sheets / f"{LOCAL_USER}.csv").read_text()

    rows = FLOWS["forcebench"].candidates(read_rows(built_dataset))
    row = next(r for r in rows if blind_id(ANNOTATION_KEY.encode(), LOCAL_USER, r["id"]) == row_id)
    verdict = {"decision": "reject_not_force_gap", "boundary_type": "ambiguous", "notes": "ann-b thinks so"}
    AnnotationStore(results / "annotations").save("forcebench", "ann-b", row, verdict, rows)
    summary, pairs, queue = client.predict("forcebench", api_name="/agreement")
    assert summary.startswith(f"1 rows annotated by {LOCAL_USER}; 1 other annotators share rows")
    assert pairs["data"] == [["annotator 1", 1, 0.0, 1]] and queue["data"] == [[row_id, 1]]
    assert not any(word in json.dumps([summary, pairs, queue]) for word in ("ann-b", "reject", "ambiguous"))

    row_id, view, _, _ = client.predict("eviscope", api_name="/annotate_next")
    assert "document 1" in view and not re.search(r"doc-[0-9a-f]{8}", view)  # blind to document ids and role
    assert re.fullmatch(r"row-[0-9a-f]{12}", row_id)  # not the row's id, which names its variant
    assert not any(v in view for v in ("sufficient", "insufficient", "conflicting", "expected"))
    with pytest.raises(AppError, match=f"row {row_id}: field action"):
        client.predict(
            "eviscope",
            row_id,
            *NO_EVISCOPE_VERDICT,  # no action chosen
            *NO_FORCEBENCH_VERDICT,
            api_name="/annotate_save",
        )


def test_leaderboard_survives_a_restart(
    space_forks: SpaceForks, files: dict[str, Path], tmp_path: Path
) -> None:
    results = tmp_path / "results"
    # two Space processes, one after the other, on one results folder: each a fork of a parent that
    # imported the app but never ran it (the `space` fixture starts it as `python app.py`)
    server = space_forks.start(results, tmp_path / "first.log")
    try:
        client = Client(server.url, verbose=False)
        client.predict(CONFIG, "lexical", handle_file(files["lexical"]), api_name="/submit")
        before = board(client, CONFIG)["lexical"]
    finally:
        server.stop()
    server = space_forks.start(results, tmp_path / "second.log")
    try:
        after = board(Client(server.url, verbose=False), CONFIG)
    finally:
        server.stop()
    assert after.pop("lexical") == before
    # besides it, only reference lines: the committed reference runs, shown from the start, and more
    assert {s for s, line in after.items() if line["kind"] == "submission"} == set()
    assert reference_systems(CONFIG) <= {s for s, line in after.items() if line["kind"] == "reference"}
