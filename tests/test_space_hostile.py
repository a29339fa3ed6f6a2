"""The Space against hostile users and files (issue 27): what they type is shown as text, who
annotates is who signed in, sheets are safe to open in a spreadsheet, submissions are limited per
user and hold no upload in memory, temporary folders go at exit, and a malformed stored result
never breaks the leaderboard.

Most cases drive the functions the UI binds (``demo.fns``, as a click would, without a browser),
over hand rows; two start the real app (``spaces/eviscope/app.py``) in a subprocess.
"""

from __future__ import annotations

import csv
import io
import json
import logging
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

gr = pytest.importorskip("gradio", reason="gradio is not installed (the Space): pip install -e '.[space]'")

from eviscope_fixtures import hand_predictions, hand_rows  # noqa: E402
from forcebench_fixtures import sample_rows  # noqa: E402
from gradio.helpers import special_args  # noqa: E402
from markdown_it import MarkdownIt  # noqa: E402

from eviscope.core.errors import EviScopeError  # noqa: E402
from eviscope.core.registry import annotated  # noqa: E402
from eviscope.space.annotation import MAX_FIELD_CHARS, AnnotationStore  # noqa: E402
from eviscope.space.leaderboard import LocalResultStore  # noqa: E402
from eviscope.space.limits import Limits  # noqa: E402
from eviscope.space.ui import LOCAL_USER, SINGLE_USER_BANNER, build_demo  # noqa: E402

CONFIG = "eviscope-v1.1"
EVIL = '<a href=https://evil.example/fix>fix</a><img src=x onerror="alert(1)">'
NO_EVISCOPE: list[str] = ["", "", "", ""]
NO_FORCEBENCH: list[str] = [""] * 9
MAX_AGE_S = 6
"""How long the app in a subprocess keeps an upload ($EVISCOPE_SPACE_UPLOAD_MAX_AGE_S)."""


class HandSource:
    """The hand rows of EviScope and ForceBench, as a built dataset would serve them."""

    def __init__(self) -> None:
        self.by_config = {CONFIG: hand_rows(), "forcebench": sample_rows()}

    def configs(self) -> list[str]:
        return list(self.by_config)

    def rows(self, config: str) -> list[dict[str, Any]]:
        return self.by_config[config]


def profile(username: str) -> Any:
    """What gradio injects for a signed-in user (from the Hub's OpenID userinfo)."""
    return gr.OAuthProfile(
        {
            "name": username.title(),
            "preferred_username": username,
            "profile": f"https://huggingface.co/{username}",
            "picture": "",
        }
    )


@pytest.fixture
def on_hub(monkeypatch: pytest.MonkeyPatch) -> None:
    """The environment of a Space whose card says ``hf_oauth: true`` (the Hub sets these), so that
    the Space turns sign-in on and gradio adds its OAuth routes (gradio's ``oauth`` extra)."""
    pytest.importorskip("authlib", reason="Hugging Face sign-in needs gradio's oauth extra")
    pytest.importorskip("itsdangerous", reason="Hugging Face sign-in needs gradio's oauth extra")
    import gradio.oauth

    monkeypatch.setattr(gradio.oauth, "get_space", lambda: "test/eviscope")  # SPACE_ID, on the Hub
    settings = {
        "OAUTH_CLIENT_ID": "test-client",
        "OAUTH_CLIENT_SECRET": "test-secret",
        "OAUTH_SCOPES": "openid profile",
        "OPENID_PROVIDER_URL": "http://127.0.0.1:9",  # never asked: no one signs in here
    }
    for name, value in settings.items():
        monkeypatch.setenv(name, value)
        monkeypatch.setattr(gradio.oauth, name, value)


def space(tmp_path: Path, **options: Any) -> tuple[dict[str, Callable[..., Any]], Path]:
    """The Space's bound functions by API name, over hand rows and ``tmp_path/results``."""
    results = tmp_path / "results"
    demo = build_demo(
        HandSource(),  # type: ignore[arg-type]
        LocalResultStore(results),
        AnnotationStore(results / "annotations"),
        **options,
    )
    return {fn.api_name: fn.fn for fn in demo.fns.values() if fn.api_name}, results


def write_jsonl(path: Path, objects: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(o) + "\n" for o in objects), encoding="utf-8")
    return path


def rendered(markdown: str) -> str:
    """``markdown`` as HTML, raw HTML allowed, as gradio's Markdown component renders it."""
    return MarkdownIt("commonmark", {"html": True}).enable("table").render(markdown)


def error_of(call: Callable[[], Any]) -> str:
    with pytest.raises(gr.Error) as failure:
        call()
    return failure.value.message


# --- 1. What the user typed shows as text ----------------------------------------------------------


def test_what_a_user_typed_is_escaped_in_every_error_toast(tmp_path: Path) -> None:
    api, _ = space(tmp_path)
    shown = error_of(lambda: api["show"](CONFIG, EVIL))
    assert "<a" not in shown and "<img" not in shown
    assert shown.startswith("no row '&lt;a href=https://evil.example/fix&gt;fix&lt;/a&gt;&lt;img src=x")
    for call in (
        lambda: api["compare"](CONFIG, EVIL, "other"),
        lambda: api["browse"](EVIL, "any", "any", "any", "any", ""),
        lambda: api["submit"](CONFIG, EVIL, str(write_jsonl(tmp_path / "p.jsonl", hand_predictions()))),
        lambda: api["annotate_next"](EVIL),
    ):
        message = error_of(call)
        assert "<" not in message and "&lt;a href=https://evil.example/fix&gt;" in message


def test_the_metric_spaces_widget_escapes_the_ids_it_was_given_in_its_error() -> None:
    import evaluate

    from eviscope.space.metric_widget import build_widget

    module = evaluate.load(str(Path(__file__).resolve().parents[1] / "metrics" / "eviscope_metric"))
    widget = build_widget(module, title="EviScope")
    (compute,) = [fn.fn for fn in widget.fns.values() if fn.api_name == "compute"]
    prediction = {"id": EVIL, "action": "answer", "answer": "x"}
    message = error_of(lambda: compute(json.dumps([prediction]), json.dumps(hand_rows()[:1])))
    assert "<" not in message and "&lt;a href=https://evil.example/fix&gt;" in message


def test_ids_and_names_an_upload_brings_are_escaped_in_errors_and_reports(tmp_path: Path) -> None:
    api, _ = space(tmp_path)
    predictions = [{**p, "id": EVIL} if i == 0 else p for i, p in enumerate(hand_predictions())]
    message = error_of(
        lambda: api["submit"](CONFIG, "evil ids", str(write_jsonl(tmp_path / "a.jsonl", predictions)))
    )
    assert "unknown ids" in message and "<a" not in message and "&lt;a href" in message
    # a ForceBench evaluator's name is shown in the report, as text (no link, no image, no HTML)
    lines = [
        {
            "id": row["id"],
            "evaluator": "[fix](https://evil.example) " + EVIL,
            "score_safe": 0.9,
            "score_raised": 0.1,
        }
        for row in sample_rows()
    ]
    status, report, _ = api["submit"](
        "forcebench", "judge", str(write_jsonl(tmp_path / "fb [x](y).jsonl", lines))
    )
    assert status.startswith("Recorded **judge**")
    evaluators = next(line for line in report.splitlines() if "evaluators:" in line)
    shown = rendered(evaluators)
    assert "<a" not in shown and "<img" not in shown
    assert "[fix](https://evil.example) &lt;a href=https://evil.example/fix&gt;fix&lt;/a&gt;&lt;img" in shown
    assert "fb__x_(y).jsonl" in report and "<a" not in rendered(report) and "<img" not in rendered(report)


# --- 2. Who annotates is who signed in -------------------------------------------------------------


@pytest.mark.usefixtures("on_hub")
def test_a_second_signed_in_user_cannot_read_or_overwrite_the_first_ones_sheet(tmp_path: Path) -> None:
    api, results = space(tmp_path)
    alice, bob = profile("alice"), profile("bob")
    row_id, _, progress, _ = api["annotate_next"]("forcebench", alice)
    assert progress == "0 of 10 rows annotated by alice"
    accept = ["accept_force_gap", *[""] * 7, "alice's note"]
    next_id, _, progress, _ = api["annotate_save"]("forcebench", alice, row_id, *NO_EVISCOPE, *accept)
    assert progress == "1 of 10 rows annotated by alice" and next_id != row_id
    sheet_a = results / "annotations" / "forcebench" / "alice.csv"
    before = sheet_a.read_bytes()

    # Bob starts from nothing: he is offered the same first row, sees none of Alice's marks
    first, view, progress, _ = api["annotate_next"]("forcebench", bob)
    assert progress == "0 of 10 rows annotated by bob" and "alice" not in view
    assert first != row_id  # the same row under another id: ids are per annotator
    reject = ["reject_not_force_gap", *[""] * 6, "ambiguous", "bob's note"]
    with pytest.raises(gr.Error, match="load a row to annotate first"):  # Alice's id means nothing to him
        api["annotate_save"]("forcebench", bob, row_id, *NO_EVISCOPE, *reject)
    api["annotate_save"]("forcebench", bob, first, *NO_EVISCOPE, *reject)
    assert sheet_a.read_bytes() == before  # his verdict on the same row went into his own sheet
    assert "reject_not_force_gap" in (results / "annotations" / "forcebench" / "bob.csv").read_text()
    # no handler takes an annotator's name: a profile is the only way to say who one is
    assert api["annotate_next"]("forcebench", alice)[2] == "1 of 10 rows annotated by alice"
    for call in (
        lambda: api["annotate_next"]("forcebench", None),
        lambda: api["annotate_save"]("forcebench", None, row_id, *NO_EVISCOPE, *reject),
        lambda: api["agreement"]("forcebench", None),
        lambda: api["submit"](
            CONFIG, "anonymous", str(write_jsonl(tmp_path / "p.jsonl", hand_predictions()))
        ),
    ):
        assert error_of(call).startswith("sign in with Hugging Face")
    assert sheet_a.read_bytes() == before

    # the agreement view: counts and kappa against an unnamed other, none of Bob's verdicts or notes
    summary, pairs, queue = api["agreement"]("forcebench", alice)
    assert summary.startswith("1 rows annotated by alice; 1 other annotators share rows")
    # the tables are shown styled (one formatter); their data are what the view holds
    pairs, queue = getattr(pairs, "data", pairs), getattr(queue, "data", queue)
    assert pairs.values.tolist() == [["annotator 1", 1, 0.0, 1]]
    assert queue.values.tolist() == [[row_id, 1]]
    seen = summary + pairs.to_csv() + queue.to_csv()
    assert not any(word in seen for word in ("bob", "reject", "ambiguous", "accept"))
    with pytest.raises(gr.Error, match="carol has annotated no forcebench row yet"):
        api["agreement"]("forcebench", profile("carol"))
    # another's sheet that cannot be read (edited by hand) is left out, naming no one to Alice
    (results / "annotations" / "forcebench" / "dave.csv").write_text("id,nonsense\nx,y\n")
    summary, pairs, _ = api["agreement"]("forcebench", alice)
    pairs = getattr(pairs, "data", pairs)
    assert pairs.values.tolist() == [["annotator 1", 1, 0.0, 1]] and "dave" not in summary


@pytest.mark.usefixtures("on_hub")
def test_gradio_injects_the_signed_in_profile_into_the_annotate_and_submit_handlers(tmp_path: Path) -> None:
    """On a Space with sign-in the page has a login button and no single-user banner; on each event
    gradio's ``special_args`` puts the session's profile (None when signed out) where each handler
    declares ``gr.OAuthProfile | None``."""
    results = tmp_path / "results"
    demo = build_demo(HandSource(), LocalResultStore(results), AnnotationStore(results / "annotations"))  # type: ignore[arg-type]
    assert any(isinstance(block, gr.LoginButton) for block in demo.blocks.values())
    assert SINGLE_USER_BANNER not in [getattr(block, "value", None) for block in demo.blocks.values()]
    api = {fn.api_name: fn.fn for fn in demo.fns.values() if fn.api_name}
    userinfo = {"preferred_username": "alice", "name": "Alice", "profile": "", "picture": ""}

    request = SimpleNamespace(scope={"session": {"oauth_info": {"userinfo": userinfo, "expires_at": None}}})

    for name, inputs, at in (
        ("annotate_next", ["forcebench"], 1),
        ("annotate_save", ["forcebench", "row", *NO_EVISCOPE, *NO_FORCEBENCH], 1),
        ("agreement", ["forcebench"], 1),
        ("submit", [CONFIG, "system", None], 3),
    ):
        injected, *_ = special_args(api[name], list(inputs), request)  # type: ignore[arg-type]
        assert injected[at].username == "alice" and injected[:at] + injected[at + 1 :] == inputs, name
        signed_out, *_ = special_args(api[name], list(inputs), None)
        assert signed_out[at] is None, name


def test_without_sign_in_the_space_says_it_is_single_user_and_everyone_is_one_local_user(
    tmp_path: Path,
) -> None:
    results = tmp_path / "results"
    demo = build_demo(
        HandSource(),  # type: ignore[arg-type]
        LocalResultStore(results),
        AnnotationStore(results / "annotations"),
        signin=False,
    )
    api = {fn.api_name: fn.fn for fn in demo.fns.values() if fn.api_name}
    texts = [getattr(block, "value", None) for block in demo.blocks.values()]
    assert SINGLE_USER_BANNER in texts and "Single-user mode" in SINGLE_USER_BANNER
    assert not any(isinstance(block, gr.LoginButton) for block in demo.blocks.values())
    row_id, _, _, _ = api["annotate_next"]("forcebench", profile("alice"))  # a profile is ignored
    api["annotate_save"]("forcebench", None, row_id, *NO_EVISCOPE, "accept_force_gap", *[""] * 8)
    assert api["annotate_next"]("forcebench", profile("bob"))[2] == f"1 of 10 rows annotated by {LOCAL_USER}"
    assert [p.name for p in (results / "annotations" / "forcebench").iterdir()] == [f"{LOCAL_USER}.csv"]


# --- 3. Sheets are safe to open in a spreadsheet ----------------------------------------------------

FORMULAS = ['=HYPERLINK("https://evil.example","fix")', "+1+2", "-3 dead", "@SUM(A1:A9)", "'quoted"]


def test_formula_cells_are_neutralized_in_the_sheet_and_read_back_as_typed(tmp_path: Path) -> None:
    store = AnnotationStore(tmp_path / "annotations")
    rows = sample_rows()
    for row, text in zip(rows, FORMULAS, strict=False):
        fields = {"decision": "accept_force_gap", "raised_claim": text, "notes": text}
        store.save("forcebench", "alice", row, fields, rows)
    store.save(
        "forcebench", "alice", rows[5], {"decision": "accept_force_gap", "notes": "plain = fine"}, rows
    )
    data = (tmp_path / "annotations" / "forcebench" / "alice.csv").read_text(encoding="utf-8")
    cells = [cell for line in csv.reader(io.StringIO(data)) for cell in line]
    assert not [cell for cell in cells if cell.startswith(("=", "+", "-", "@", "\t", "\r"))]
    for text in FORMULAS:
        assert cells.count("'" + text) == 2  # the corrected claim and the note
    assert "plain = fine" in cells  # anything else as typed
    sheet = store.sheet("forcebench", "alice", rows)
    assert [sheet[row["id"]].notes for row in rows[: len(FORMULAS)]] == FORMULAS
    assert [sheet[row["id"]].raised_claim for row in rows[: len(FORMULAS)]] == FORMULAS
    assert sheet[rows[5]["id"]].notes == "plain = fine"


# --- 4. Limits, uploads, memory, temporary folders -------------------------------------------------


@pytest.mark.usefixtures("on_hub")
def test_submissions_are_limited_per_user_with_one_clear_line(tmp_path: Path) -> None:
    now = [0.0]
    limits = Limits(submissions=2, upload_bytes=10 * 2**20, clock=lambda: now[0])
    api, results = space(tmp_path, limits=limits)
    upload = write_jsonl(tmp_path / "p.jsonl", hand_predictions())
    alice, bob = profile("alice"), profile("bob")
    assert api["submit"](CONFIG, "a1", str(upload), alice)[0].startswith("Recorded")
    with pytest.raises(gr.Error, match="system name"):  # refused by validation, still counted
        api["submit"](CONFIG, "!", str(upload), alice)
    message = error_of(lambda: api["submit"](CONFIG, "a3", str(upload), alice))
    assert message == (
        "alice has made 2 submissions in the last hour, the limit ($EVISCOPE_SPACE_SUBMISSIONS_PER_HOUR); "
        "the next is possible in 60 min"
    )
    assert api["submit"](CONFIG, "b1", str(upload), bob)[0].startswith("Recorded **b1**")  # his own count
    now[0] = 3600.0  # an hour later
    assert api["submit"](CONFIG, "a3", str(upload), alice)[0].startswith("Recorded **a3**")
    assert sorted(r["system"] for r in LocalResultStore(results).records(CONFIG)) == ["a1", "a3", "b1"]

    size = 4 * 2**20
    by_bytes = Limits(submissions=100, upload_bytes=10 * 2**20, clock=lambda: now[0])
    by_bytes.admit("alice", size)
    by_bytes.admit("alice", size)
    with pytest.raises(EviScopeError) as refused:
        by_bytes.admit("alice", size)
    assert str(refused.value) == (
        "this 4.0 MiB upload would bring alice's uploads of the last hour to 12.0 MiB, over the 10 MiB "
        "limit ($EVISCOPE_SPACE_UPLOAD_MIB_PER_HOUR); try again in 60 min"
    )
    by_bytes.admit("bob", size)  # each user has their own


def test_limits_come_from_the_environment_with_documented_defaults() -> None:
    assert Limits.from_env({}) == Limits()
    assert (Limits().submissions, Limits().upload_bytes, Limits().upload_max_age_s) == (30, 200 * 2**20, 600)
    env = {
        "EVISCOPE_SPACE_SUBMISSIONS_PER_HOUR": "5",
        "EVISCOPE_SPACE_UPLOAD_MIB_PER_HOUR": "0.5",
        "EVISCOPE_SPACE_UPLOAD_MAX_AGE_S": "30",
    }
    limits = Limits.from_env(env)
    assert (limits.submissions, limits.upload_bytes, limits.upload_max_age_s) == (5, 2**19, 30)
    with pytest.raises(EviScopeError, match=r"\$EVISCOPE_SPACE_SUBMISSIONS_PER_HOUR: '-1' is not a positive"):
        Limits.from_env({"EVISCOPE_SPACE_SUBMISSIONS_PER_HOUR": "-1"})


def test_the_store_keeps_a_summary_of_each_result_and_reads_predictions_back_to_compare(
    tmp_path: Path,
) -> None:
    api, results = space(tmp_path)
    for system in ("first", "second"):
        upload = write_jsonl(
            tmp_path / f"{system}.jsonl",
            hand_predictions()[::-1] if system == "first" else hand_predictions(),
        )
        assert api["submit"](CONFIG, system, str(upload))[0].startswith("Recorded")
    store = LocalResultStore(results)
    (summary,) = [r for r in store.records(CONFIG) if r["system"] == "first"]
    assert "predictions" not in summary and summary["result"]["joint_success"] is not None
    assert len(store.full(summary)["predictions"]) == len(hand_predictions())
    table = api["compare"](CONFIG, "first", "second")  # reads the predictions back from the store
    assert list(getattr(table, "data", table)["metric"]) == ["ERS", "NR", "CS", "QCS"]


# --- 5. A malformed stored result -----------------------------------------------------------------


def test_a_malformed_stored_result_is_left_off_the_leaderboard_with_a_log_line(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    api, results = space(tmp_path)
    api["submit"](CONFIG, "good", str(write_jsonl(tmp_path / "p.jsonl", hand_predictions())))
    (good,) = (results / CONFIG).glob("*.json")
    record = json.loads(good.read_text())
    older = {**record, "id": "older", "system": "older format", "result": dict(record["result"])}
    del older["result"]["joint_success"]
    edited = {
        **record,
        "id": "edited",
        "system": "hand edit",
        "result": {**record["result"], "joint_success": "high"},
    }
    no_plot = {**record, "id": "no-plot", "system": "no per-variant", "result": dict(record["result"])}
    del no_plot["result"]["per_variant"]
    for bad in (older, edited, no_plot):
        (results / CONFIG / f"{bad['id']}.json").write_text(json.dumps(bad))
    with caplog.at_level(logging.WARNING):
        table, plot, *_ = api["leaderboard"](CONFIG, "", None)
        again, *_ = api["leaderboard"](CONFIG, "", None)
    table, again = table.data, again.data  # the page's styled table: its cells
    submitted = table[table["kind"] == "submission"]["system"].tolist()
    assert submitted == ["good", "no per-variant"] == again[again["kind"] == "submission"]["system"].tolist()
    assert plot is None  # the per-variant plot cannot read one of them: the table still shows
    skipped = [r.getMessage() for r in caplog.records if "left off the leaderboard" in r.getMessage()]
    assert len(skipped) == 2  # once each, not once per view
    assert any("older.json ('older format')" in line and "joint_success" in line for line in skipped)
    assert any("edited.json ('hand edit')" in line and "'high', not a number" in line for line in skipped)
    assert any("no plot" in r.getMessage() and "per_variant" in r.getMessage() for r in caplog.records)
    del no_plot["result"]
    (results / CONFIG / "no-plot.json").write_text(json.dumps(no_plot))  # not a record at all
    fresh, plot, *_ = space(tmp_path)[0]["leaderboard"](CONFIG, "", None)
    fresh = fresh.data
    assert fresh[fresh["kind"] == "submission"]["system"].tolist() == ["good"] and Path(plot).is_file()


# --- The real app, in a subprocess --------------------------------------------------------------


def test_the_app_escapes_its_errors_says_single_user_and_leaves_no_temporary_files_at_exit(
    built_dataset: Path, tmp_path: Path
) -> None:
    from gradio_client import Client, handle_file
    from gradio_client.exceptions import AppError
    from space_server import SpaceServer

    from eviscope.suites.eviscope.dataset import load_rows
    from eviscope.suites.eviscope.reference_systems import predict

    tmp, uploads = tmp_path / "tmp", tmp_path / "uploads"
    tmp.mkdir()
    gone = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, check=True
    )
    killed = tmp / f"eviscope-space-{int(gone.stdout)}-left"  # a Space SIGKILLed: no cleanup ran
    (killed / "plot.png").parent.mkdir()
    (killed / "plot.png").write_bytes(b"png")
    (tmp / "eviscope-space-unrelated").mkdir()  # not a Space's (no process id): never touched
    env = {
        "TMPDIR": str(tmp),
        "GRADIO_TEMP_DIR": str(uploads),
        "EVISCOPE_SPACE_UPLOAD_MAX_AGE_S": str(MAX_AGE_S),
    }
    server = SpaceServer(built_dataset, tmp_path / "results", tmp_path / "space.log", env=env)
    try:
        assert not killed.exists()  # removed at start, its process being gone
        (mine,) = tmp.glob(f"eviscope-space-{server.process.pid}-*")  # the plots folder of this run
        client = Client(server.url, verbose=False)
        with pytest.raises(AppError) as failure:
            client.predict(CONFIG, EVIL, api_name="/show")
        assert "<" not in str(failure.value) and "&lt;a href=https://evil.example/fix&gt;" in str(
            failure.value
        )
        with urllib.request.urlopen(f"{server.url}config", timeout=10) as page:
            assert "Single-user mode" in page.read().decode()

        submitted = write_jsonl(
            tmp_path / "lexical.jsonl", predict("lexical", load_rows(CONFIG, built_dataset))
        )
        status, _, _ = client.predict(CONFIG, "lexical", handle_file(submitted), api_name="/submit")
        assert status.startswith("Recorded **lexical**")
        (handled,) = uploads.rglob("lexical.jsonl")
        old = _upload(server.url, tmp_path / "never-submitted.jsonl")
        deadline = time.monotonic() + MAX_AGE_S + 60
        while (handled.exists() or Path(old).exists()) and time.monotonic() < deadline:
            time.sleep(0.5)
        assert not handled.exists() and not Path(old).exists()  # removed once older than the limit
        left = _upload(server.url, tmp_path / "never-submitted-either.jsonl")
        assert Path(left).is_file()
    finally:
        server.stop()
    assert server.process.returncode is not None
    assert not mine.exists() and [p.name for p in tmp.iterdir()] == ["eviscope-space-unrelated"]
    assert not Path(left).exists()  # and whatever is left, at exit


def _upload(url: str, path: Path) -> str:
    """Upload a file as a page does before a submission (gradio's upload route); its path there."""
    import httpx

    path.write_text('{"id": "x"}\n')
    with path.open("rb") as handle:
        reply = httpx.post(f"{url}gradio_api/upload", files={"files": (path.name, handle)}, timeout=30)
    reply.raise_for_status()
    return reply.json()[0]


# --- 5. The Space never says OK for what it dropped (issue 34) -------------------------------------


@pytest.mark.usefixtures("on_hub")
def test_the_form_limits_a_note_and_a_save_past_it_or_with_a_lone_surrogate_is_one_line(
    tmp_path: Path,
) -> None:
    results = tmp_path / "results"
    demo = build_demo(HandSource(), LocalResultStore(results), AnnotationStore(results / "annotations"))  # type: ignore[arg-type]
    labels = [f.label for flow in annotated().values() for f in flow.fields if f.kind == "text"]
    form = [b for b in demo.blocks.values() if isinstance(b, gr.Textbox) and b.label in labels]
    assert sorted(b.label for b in form) == sorted(labels) and "notes" in labels
    assert all(b.max_length == MAX_FIELD_CHARS for b in form)
    assert all(b.info == f"at most {MAX_FIELD_CHARS:,} characters" for b in form)

    api = {fn.api_name: fn.fn for fn in demo.fns.values() if fn.api_name}
    alice = profile("alice")
    row_id, _, _, _ = api["annotate_next"]("forcebench", alice)
    kept = ["accept_force_gap", *[""] * 7, "kept"]
    next_id, _, progress, _ = api["annotate_save"]("forcebench", alice, row_id, *NO_EVISCOPE, *kept)
    assert progress == "1 of 10 rows annotated by alice"
    sheet = results / "annotations" / "forcebench" / "alice.csv"
    before = sheet.read_bytes()
    long = "x" * (128 * 1024 + 1)
    for target in (next_id, row_id):  # a new row, and the one saved before
        message = error_of(
            lambda t=target: api["annotate_save"]("forcebench", alice, t, *NO_EVISCOPE, *kept[:-1], long)
        )
        assert message == (
            f"row {target}: field notes holds {len(long):,} characters, more than the {MAX_FIELD_CHARS:,} a "
            "field may hold; shorten it (nothing was saved)"
        )
    message = error_of(
        lambda: api["annotate_save"]("forcebench", alice, next_id, *NO_EVISCOPE, *kept[:-1], "\udc80")
    )
    assert message == (
        f"row {next_id}: field notes is not valid Unicode text (character 1 is a lone surrogate); nothing was saved"
    )
    assert sheet.read_bytes() == before
    assert api["annotate_next"]("forcebench", alice)[2] == "1 of 10 rows annotated by alice"
