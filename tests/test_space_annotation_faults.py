"""The Space's annotation sheets under faults: an unwritable folder, a sheet cut short, a kill mid-write.

- **Unwritable folder.** A read-only folder (``EROFS``), a full disk (``ENOSPC``: new files backed by
  ``/dev/full``), a lock held too long, and (when not root) a real ``chmod``: a save is one
  :class:`EviScopeError` line naming the reason and not the server's paths, the folder is byte for
  byte as before (no half-written sheet, no temporary file), and the same save works once the
  folder does. Root ignores file modes, so the first two patch ``os`` calls on paths under the
  folder, as ``test_space_faults`` does for the results. Checked through ``AnnotationStore`` and
  through the Annotate tab's ``/annotate_save`` handler, called without a browser.
- **A sheet cut short** at every byte of its last lines (multi-line and non-ASCII notes) loads: only
  whole lines count, each as written; a warning is logged once; the next save rewrites it whole;
  agreement afterwards counts only the complete annotations.
- **Kill mid-write.** Forked writers saving large sheets back to back are SIGKILLed at seeded random
  moments: each sheet is some save's whole state, and the next store sweeps the temporary files.
"""

from __future__ import annotations

import csv
import logging
import math
import os
import random
import signal
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from eviscope_fixtures import hand_rows
from fault_injection import make_full, make_read_only, snapshot
from filelock import FileLock
from forcebench_fixtures import sample_rows
from sklearn.metrics import cohen_kappa_score

from eviscope.core.errors import EviScopeError
from eviscope.space.annotation import MAX_FIELD_CHARS, AnnotationStore, agreement
from eviscope.space.storage import TEMP_PREFIX, TEMP_SUFFIX
from eviscope.suites.eviscope.rows import ACTIONS
from eviscope.suites.forcebench.annotation import DECISIONS, cohen_kappa

SEED = 20260502
KILL_TRIALS = 10
REFUSED = "could not save the annotation of row {row}: {reason}; nothing was saved (your earlier annotations are kept). Try again later, or tell the Space's maintainers."


def forcebench_verdict(decision: str = "accept_force_gap", notes: str = "") -> dict[str, str]:
    extra = {"boundary_type": "ambiguous"} if decision.startswith("reject") else {}
    return {"decision": decision, "notes": notes, **extra}


def eviscope_verdict(action: str, notes: str = "") -> dict[str, str]:
    return {"action": action, "supporting_doc_id": "", "answer": "", "notes": notes}


FAULTS = {
    "read-only": (make_read_only, "the annotation folder is read-only (EROFS)"),
    "full-disk": (make_full, "the annotation disk is full (ENOSPC)"),
}


@pytest.fixture(params=[*FAULTS, "chmod", "busy"])
def fault(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[..., str]]:
    """Apply a fault to a folder, returning the reason the error line must give; undone at the end."""
    undo: list[Callable[[], None]] = []

    def apply(folder: Path) -> str:
        if request.param == "chmod":
            if os.geteuid() == 0:
                pytest.skip(
                    "run as root, which ignores file modes: chmod is tried only as another user (the read-only and full-disk cases simulate it)"
                )
            modes = {p: p.stat().st_mode for p in (folder, *folder.rglob("*")) if p.is_dir()}
            for path in modes:
                path.chmod(0o555)
            undo.append(lambda: [path.chmod(mode) for path, mode in modes.items()])
            return "the annotation folder is not writable (EACCES)"
        if request.param == "busy":
            lock = FileLock(folder / ".lock")
            lock.acquire()
            undo.append(lock.release)
            return "the annotation store stayed busy with other annotators"
        make, reason = FAULTS[request.param]
        make(monkeypatch, folder)
        undo.append(monkeypatch.undo)
        return reason

    def lift() -> None:
        while undo:
            undo.pop()()

    apply.lift = lift  # type: ignore[attr-defined]
    try:
        yield apply
    finally:
        lift()


# --- Unwritable folder ------------------------------------------------------------------------------


@pytest.mark.parametrize("benchmark", ["forcebench", "eviscope"])
def test_an_unwritable_folder_is_one_line_and_the_sheet_is_kept(
    tmp_path: Path, fault: Callable[..., str], benchmark: str
) -> None:
    folder = tmp_path / "annotations"
    store = AnnotationStore(folder, lock_timeout=0.2)
    if benchmark == "forcebench":
        rows, first, second = sample_rows(), forcebench_verdict(), forcebench_verdict("needs_discussion")
    else:
        rows, first, second = hand_rows(), eviscope_verdict("answer"), eviscope_verdict("abstain")
    store.save(benchmark, "ann-a", rows[0], first, rows)
    before = snapshot(folder)
    reason = fault(folder)
    with pytest.raises(EviScopeError) as failure:
        store.save(benchmark, "ann-a", rows[1], second, rows)
    message = str(failure.value)
    assert message == REFUSED.format(row=rows[1]["id"], reason=reason)
    assert "\n" not in message and str(tmp_path) not in message
    assert list(store.sheet(benchmark, "ann-a", rows)) == [rows[0]["id"]]  # reading still works
    fault.lift()  # type: ignore[attr-defined]
    assert snapshot(folder) == before  # nothing partial, no temporary file left
    store.save(benchmark, "ann-a", rows[1], second, rows)  # writable again: the same save lands
    assert list(AnnotationStore(folder).sheet(benchmark, "ann-a", rows)) == [rows[0]["id"], rows[1]["id"]]


def test_a_store_whose_folder_cannot_be_made_starts_and_refuses_saves_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    make_read_only(monkeypatch, tmp_path)
    store = AnnotationStore(tmp_path / "annotations")  # no traceback at the Space's start
    rows = sample_rows()
    assert store.annotators("forcebench") == [] and store.sheet("forcebench", "ann-a", rows) == {}
    with pytest.raises(EviScopeError, match=r"annotation folder is read-only \(EROFS\); nothing was saved"):
        store.save("forcebench", "ann-a", rows[0], forcebench_verdict(), rows)
    monkeypatch.undo()
    store.save("forcebench", "ann-a", rows[0], forcebench_verdict(), rows)
    assert store.annotators("forcebench") == ["ann-a"]


class FakeSource:
    """The rows the Annotate tab needs, without building the dataset."""

    def __init__(self) -> None:
        self.by_config = {"eviscope-v1.1": hand_rows(), "forcebench": sample_rows()}

    def configs(self) -> list[str]:
        return list(self.by_config)

    def rows(self, config: str) -> list[dict[str, Any]]:
        return self.by_config[config]


def test_the_annotate_tab_shows_a_failed_save_as_its_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    gr = pytest.importorskip(
        "gradio", reason="gradio is not installed (the Space): pip install -e '.[space]'"
    )
    from eviscope.space.leaderboard import LocalResultStore
    from eviscope.space.ui import build_demo

    folder = tmp_path / "annotations"
    demo = build_demo(FakeSource(), LocalResultStore(tmp_path / "results"), AnnotationStore(folder))  # type: ignore[arg-type]
    api = {fn.api_name: fn.fn for fn in demo.fns.values() if fn.api_name}
    no_forcebench = ["accept_force_gap", *[""] * 8]
    row_id, _, progress, _ = api["annotate_next"]("forcebench", None)
    assert progress.startswith("0 of")
    next_id, _, progress, _ = api["annotate_save"]("forcebench", None, row_id, *[""] * 4, *no_forcebench)
    assert progress.startswith("1 of")
    before = snapshot(folder)
    for make, reason in FAULTS.values():
        make(monkeypatch, folder)
        with pytest.raises(gr.Error) as failure:
            api["annotate_save"]("forcebench", None, next_id, *[""] * 4, *no_forcebench)
        assert failure.value.message == REFUSED.format(row=next_id, reason=reason)
        assert api["annotate_next"]("forcebench", None)[0] == next_id  # the tab still serves
        monkeypatch.undo()
        assert snapshot(folder) == before
    _, _, progress, _ = api["annotate_save"]("forcebench", None, next_id, *[""] * 4, *no_forcebench)
    assert progress.startswith("2 of")


def test_the_annotate_intro_without_sign_in_speaks_of_the_one_local_sheet(tmp_path: Path) -> None:
    """Without sign-in the banner says single-user mode, and the Annotate tab said "as the Hugging
    Face user you signed in as" all the same."""
    gr = pytest.importorskip(
        "gradio", reason="gradio is not installed (the Space): pip install -e '.[space]'"
    )
    from eviscope.space.leaderboard import LocalResultStore
    from eviscope.space.ui import LOCAL_USER, build_demo

    store = AnnotationStore(tmp_path / "annotations")
    demo = build_demo(FakeSource(), LocalResultStore(tmp_path / "results"), store, signin=False)  # type: ignore[arg-type]
    texts = [b.value for b in demo.blocks.values() if isinstance(b, gr.Markdown) and b.value]
    (intro,) = [t for t in texts if t.startswith("Blinded double annotation")]
    assert "signed in as" not in intro and f"`{LOCAL_USER}`" in intro and "single-user" in intro


# --- A sheet cut short ------------------------------------------------------------------------------

NOTES = ["plain", "two\nlines, with a comma", 'quoted "word" and é', "emoji 😀 at the end 😀"]


@pytest.mark.parametrize("benchmark", ["forcebench", "eviscope"])
def test_a_sheet_cut_at_any_byte_loads_its_whole_lines_and_the_next_save_rewrites_it(
    tmp_path: Path, benchmark: str, caplog: pytest.LogCaptureFixture
) -> None:
    folder = tmp_path / "annotations"
    store = AnnotationStore(folder)
    rows = sample_rows() if benchmark == "forcebench" else hand_rows()
    verdict = (
        forcebench_verdict if benchmark == "forcebench" else (lambda notes: eviscope_verdict("answer", notes))
    )
    for row, notes in zip(rows, NOTES, strict=False):
        store.save(benchmark, "ann-a", row, verdict(notes=notes), rows)
    path = folder / benchmark / "ann-a.csv"
    whole = path.read_bytes()
    full = store.sheet(benchmark, "ann-a", rows)
    assert [v.notes for v in full.values()] == NOTES
    line_ends = [
        i + 2 for i in range(len(whole)) if whole[i : i + 2] == b"\r\n" and whole.count(b'"', 0, i) % 2 == 0
    ]
    assert len(line_ends) == 1 + len(NOTES)  # the header, then one line per verdict
    for cut in range(len(whole)):
        path.write_bytes(whole[:cut])
        got = store.sheet(benchmark, "ann-a", rows)  # never raises
        whole_lines = sum(end <= cut + 1 for end in line_ends[1:])  # a cut between \r and \n keeps it
        assert list(got) == list(full)[:whole_lines], cut
        assert all(got[i] == full[i] for i in got), cut
    # The last verdict's line cut short: left out with one warning, and the next save rewrites the sheet whole.
    path.write_bytes(whole[: line_ends[-1] - 5])
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="eviscope.space.annotation"):
        for _ in range(3):
            assert list(store.sheet(benchmark, "ann-a", rows)) == list(full)[:-1]
    warned = [m for m in caplog.messages if "left out" in m]
    assert len(warned) == 1 and str(tmp_path) not in warned[0]
    store.save(benchmark, "ann-a", rows[len(NOTES)], verdict(notes="after"), rows)
    again = AnnotationStore(folder).sheet(benchmark, "ann-a", rows)
    assert list(again) == [*list(full)[:-1], rows[len(NOTES)]["id"]]
    assert path.read_bytes().endswith(b"\r\n")


EDITS = {
    "invalid value": (lambda lines, field: lines[1].update({field: "maybe"}), 2, "{first}: field {field}: "),
    "unknown id": (lambda lines, field: lines[1].update(id="nope"), 2, "'nope' is not a candidate row$"),
    "repeated id": (lambda lines, field: lines[2].update(id=lines[1]["id"]), 3, "{first} appears twice$"),
}
"""A hand edit of a sheet's lines (the header is line 1), the line it breaks, and what the error says."""


@pytest.mark.parametrize("edit", list(EDITS))
@pytest.mark.parametrize("benchmark", ["forcebench", "eviscope"])
def test_a_sheet_edited_into_nonsense_is_an_error_and_is_not_overwritten(
    tmp_path: Path, benchmark: str, edit: str
) -> None:
    """Both benchmarks' sheets are read with the same checks: a valid value, a candidate id, each id
    once; the error names the sheet, the line and the id, and no save overwrites the sheet."""
    store = AnnotationStore(tmp_path)
    if benchmark == "forcebench":
        rows, verdict, field = sample_rows(), forcebench_verdict(), "annotation_decision"
    else:
        rows, verdict, field = hand_rows(), eviscope_verdict("answer"), "annotation_action"
    for row in rows[:2]:
        store.save(benchmark, "ann-a", row, verdict, rows)
    path = tmp_path / benchmark / "ann-a.csv"
    with path.open(newline="", encoding="utf-8") as handle:
        lines = [dict(line) for line in csv.DictReader(handle)]
    change, number, says = EDITS[edit]
    change([{}, *lines], field)  # indexed by line number - 1, as the header is line 1
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(lines[0]))
        writer.writeheader()
        writer.writerows(lines)
    edited = path.read_bytes()
    message = says.format(first=repr(rows[0]["id"]), field=field)
    where = f"^the {benchmark} sheet of ann-a: line {number}: id "
    with pytest.raises(EviScopeError, match=where + message):
        store.sheet(benchmark, "ann-a", rows)
    with pytest.raises(EviScopeError, match=where + message):
        store.save(benchmark, "ann-a", rows[2], verdict, rows)
    assert path.read_bytes() == edited


@pytest.mark.parametrize("benchmark", ["forcebench", "eviscope"])
def test_agreement_after_a_cut_counts_only_complete_annotations(tmp_path: Path, benchmark: str) -> None:
    store = AnnotationStore(tmp_path)
    if benchmark == "forcebench":
        rows = sample_rows()[:6]
        acc, rej, nd = DECISIONS
        a, b = [acc, acc, rej, acc, nd, acc], [acc, rej, rej, acc, acc, rej]
        labels = list(DECISIONS)
        verdict: Callable[[str], dict[str, str]] = forcebench_verdict
    else:
        rows = hand_rows()[:6]
        a = ["answer", "answer", "abstain", "flag_conflict", "answer", "abstain"]
        b = ["answer", "abstain", "abstain", "flag_conflict", "flag_conflict", "answer"]
        labels = list(ACTIONS)
        verdict = eviscope_verdict
    for row, x, y in zip(rows, a, b, strict=True):
        store.save(benchmark, "ann-a", row, verdict(x), rows)
        store.save(benchmark, "ann-b", row, verdict(y), rows)
    path = tmp_path / benchmark / "ann-a.csv"
    data = path.read_bytes()
    path.write_bytes(data[: data.rstrip(b"\r\n").rfind(b"\r\n") + 10])  # a's last line cut short
    sheet_a = store.sheet(benchmark, "ann-a", rows)
    sheet_b = store.sheet(benchmark, "ann-b", rows)
    assert list(sheet_a) == [row["id"] for row in rows[:-1]] and len(sheet_b) == len(rows)
    kappa, queue = agreement(benchmark, sheet_a, sheet_b, rows)
    expected = float(cohen_kappa_score(a[:-1], b[:-1], labels=labels))  # the five complete pairs
    assert not math.isnan(kappa) and kappa == pytest.approx(expected)
    assert expected != pytest.approx(float(cohen_kappa_score(a, b, labels=labels)))  # the cut row would count
    assert {line[0] for line in queue} <= {row["id"] for row in rows[:-1]}  # a's cut row is not adjudicated
    if benchmark == "forcebench":
        assert cohen_kappa(sheet_a, sheet_b) == pytest.approx(expected)


def test_temporary_files_of_cut_short_writes_are_swept_and_never_annotators(tmp_path: Path) -> None:
    rows = sample_rows()
    AnnotationStore(tmp_path).save("forcebench", "ann-a", rows[0], forcebench_verdict(), rows)
    left = [
        tmp_path / "forcebench" / f"{TEMP_PREFIX}0123abcd{TEMP_SUFFIX}",
        tmp_path / "forcebench" / ".ann-a.csv.x1y2.tmp",  # an earlier version's mkstemp name
    ]
    for path in left:
        path.write_bytes(b"id,annotation_decision\r\nfb-0")
    store = AnnotationStore(tmp_path)
    assert not any(path.exists() for path in left)
    assert store.annotators("forcebench") == ["ann-a"]


# --- Kill mid-write ---------------------------------------------------------------------------------

BIG = MAX_FIELD_CHARS - 8
"""A note as long as a field may hold (room left for the ``<save>:`` prefix): large sheets, slow writes."""


def state_after(k: int, rows: list[dict[str, Any]]) -> dict[str, str]:
    """The notes of each row after saves 0..k (save i writes row i % len(rows))."""
    out: dict[str, str] = {}
    for i in range(k + 1):
        out[rows[i % len(rows)]["id"]] = f"{i}:" + "x" * BIG
    return out


def test_writers_killed_mid_write_leave_whole_sheets(tmp_path: Path) -> None:
    rng = random.Random(SEED)
    rows = hand_rows()
    store = AnnotationStore(tmp_path)
    start = time.perf_counter()
    for row in rows:  # a whole sheet of long notes, as the writers soon have
        store.save("eviscope", "probe", row, eviscope_verdict("answer", "x" * BIG), rows)
    per_save = (time.perf_counter() - start) / len(rows)
    for trial in range(KILL_TRIALS):
        name = f"w{trial}"
        pid = os.fork()
        if pid == 0:  # the writer: save after save until killed
            try:
                writer = AnnotationStore(tmp_path)
                for i in range(10_000):
                    writer.save(
                        "eviscope",
                        name,
                        rows[i % len(rows)],
                        eviscope_verdict("answer", f"{i}:" + "x" * BIG),
                        rows,
                    )
            finally:
                os._exit(0)
        time.sleep(rng.uniform(2, 40) * per_save)
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        got = {i: v.notes for i, v in AnnotationStore(tmp_path).sheet("eviscope", name, rows).items()}
        assert not list(tmp_path.glob("*/.*.tmp"))  # swept by the new store
        last = max((int(notes.split(":")[0]) for notes in got.values()), default=-1)
        assert got == state_after(last, rows), trial  # one save's whole state


# --- a verdict the sheet could not keep (issue 34) ------------------------------------------------

OVERSIZED = "x" * (128 * 1024 + 1)
"""A note over the CSV reader's 128 KiB field limit: it was saved with "OK", then left out as a
"cut short" last line, or, on an earlier row, made the whole sheet unreadable."""


@pytest.mark.parametrize("benchmark", ["forcebench", "eviscope"])
@pytest.mark.parametrize("where", ["last row", "earlier row"])
def test_a_note_too_long_to_keep_is_refused_and_the_sheet_still_opens(
    tmp_path: Path, benchmark: str, where: str
) -> None:
    store = AnnotationStore(tmp_path / "annotations")
    rows = sample_rows() if benchmark == "forcebench" else hand_rows()
    verdict = (
        forcebench_verdict if benchmark == "forcebench" else (lambda notes: eviscope_verdict("answer", notes))
    )
    for row in rows[:2]:
        store.save(benchmark, "ann-a", row, verdict(notes=f"kept {row['id']}"), rows)
    path = tmp_path / "annotations" / benchmark / "ann-a.csv"
    before = path.read_bytes()
    row = rows[2] if where == "last row" else rows[0]
    for notes in (OVERSIZED, "x" * (MAX_FIELD_CHARS + 1)):
        with pytest.raises(EviScopeError) as refused:
            store.save(benchmark, "ann-a", row, verdict(notes=notes), rows)
        assert str(refused.value) == (
            f"row {row['id']}: field notes holds {len(notes):,} characters, more than the "
            f"{MAX_FIELD_CHARS:,} a field may hold; shorten it (nothing was saved)"
        )
    assert path.read_bytes() == before
    sheet = AnnotationStore(tmp_path / "annotations").sheet(benchmark, "ann-a", rows)
    assert {i: v.notes for i, v in sheet.items()} == {r["id"]: f"kept {r['id']}" for r in rows[:2]}


@pytest.mark.parametrize("benchmark", ["forcebench", "eviscope"])
def test_a_note_at_the_limit_in_four_byte_characters_is_kept_whole(tmp_path: Path, benchmark: str) -> None:
    store = AnnotationStore(tmp_path / "annotations")
    rows = sample_rows() if benchmark == "forcebench" else hand_rows()
    verdict = (
        forcebench_verdict if benchmark == "forcebench" else (lambda notes: eviscope_verdict("answer", notes))
    )
    notes = "\U0001f600" * MAX_FIELD_CHARS
    store.save(benchmark, "ann-a", rows[0], verdict(notes=notes), rows)
    store.save(benchmark, "ann-a", rows[1], verdict(notes="next"), rows)
    sheet = AnnotationStore(tmp_path / "annotations").sheet(benchmark, "ann-a", rows)
    assert [v.notes for v in sheet.values()] == [notes, "next"]


def test_a_lone_surrogate_is_a_one_line_refusal_and_nothing_is_written(tmp_path: Path) -> None:
    store = AnnotationStore(tmp_path / "annotations")
    rows = sample_rows()
    store.save("forcebench", "ann-a", rows[0], forcebench_verdict(notes="kept"), rows)
    path = tmp_path / "annotations" / "forcebench" / "ann-a.csv"
    before = path.read_bytes()
    with pytest.raises(EviScopeError) as refused:
        store.save("forcebench", "ann-a", rows[1], forcebench_verdict(notes="ab\ud800c"), rows)
    assert str(refused.value) == (
        f"row {rows[1]['id']}: field notes is not valid Unicode text (character 3 is a lone "
        "surrogate); nothing was saved"
    )
    assert path.read_bytes() == before


def test_a_sheet_line_that_would_not_read_back_is_refused_before_the_sheet_is_written(tmp_path: Path) -> None:
    """The last guard: whatever makes a line unreadable (here a row's question over the CSV reader's
    field limit, which no field check sees), the sheet is checked as it would be read, first."""
    store = AnnotationStore(tmp_path / "annotations")
    rows = hand_rows()
    store.save("eviscope", "ann-a", rows[0], eviscope_verdict("answer", "kept"), rows)
    path = tmp_path / "annotations" / "eviscope" / "ann-a.csv"
    before = path.read_bytes()
    huge = [dict(row, question="q" * (128 * 1024 + 1)) if row is rows[1] else row for row in rows]
    with pytest.raises(
        EviScopeError, match=r"would make the sheet unreadable \(field larger than field limit"
    ):
        store.save("eviscope", "ann-a", huge[1], eviscope_verdict("abstain"), huge)
    assert path.read_bytes() == before
    assert list(store.sheet("eviscope", "ann-a", rows)) == [rows[0]["id"]]
