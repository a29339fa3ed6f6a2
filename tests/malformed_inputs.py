"""A corpus of malformed prediction inputs, each with the error it must get (issue "Hardening", item 2).

Every :class:`Case` is a predictions file for one benchmark (``eviscope``: scored against an EviScope
config, ``forcebench``: against the ForceBench rows) and the substring its one-line error must
hold. ``tests/malformed_driver.py`` runs each through three entry points, and
``tests/test_malformed_inputs.py`` asserts what it finds:

- ``cli``: ``eviscope score FILE`` (EviScope) or ``eviscope score FILE --config forcebench``;
- ``metric``: ``evaluate.load("metrics/eviscope_metric" | "metrics/forcebench").compute(...)``, given the
  file's lines parsed by Python's ``json`` (a file whose lines ``json`` cannot parse has no metric
  form unless the case gives one: ``objects``);
- ``space``: the Space's ``/submit`` callback (``score_submission`` behind it).

Files are built from the rows they are scored against (:class:`Inputs`), so that everything but the
planted fault is valid. The big ones (100 MB) are written in chunks into a temporary folder, never
committed and never held in memory whole.
"""

from __future__ import annotations

import gzip
import json
import random
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

ENTRY_POINTS = ("cli", "metric", "space")
FILE_ONLY = ("cli", "space")
"""The entry points of a case about the file itself (its bytes have no Python-object form)."""
MiB = 1 << 20


@dataclass
class Inputs:
    """The rows the corpus is scored against, and valid predictions for them."""

    eviscope_rows: list[dict[str, Any]]
    forcebench_rows: list[dict[str, Any]]

    @cached_property
    def ev(self) -> list[dict[str, Any]]:
        """One valid EviScope prediction per row: the expected action, a gold answer, the support."""
        return [
            {
                "id": row["id"],
                "action": row["expected_action"],
                "answer": row["answers"][0] if row["expected_action"] == "answer" else None,
                "citations": list(row["supporting_doc_ids"]),
                "usage": {"prompt_tokens": 500, "completion_tokens": 20, "calls": 1, "latency_s": 0.5},
            }
            for row in self.eviscope_rows
        ]

    @cached_property
    def fb(self) -> list[dict[str, Any]]:
        """One valid ForceBench prediction per row, from one evaluator, the `eval` rows first (a case
        that drops the first prediction drops one the headline scores)."""
        return [
            {"id": row["id"], "evaluator": "probe", "score_safe": 1.0, "score_raised": 0.0}
            for row in sorted(self.forcebench_rows, key=lambda row: row.get("split") != "eval")
        ]


Content = Callable[[Inputs], bytes]
Writer = Callable[[Inputs, Path], None]


@dataclass(frozen=True)
class Case:
    """One malformed input and the error every entry point must give it."""

    name: str
    benchmark: str
    """``eviscope`` or ``forcebench``: the config the file is submitted to."""
    expect: str
    """A substring of the one-line error (the CLI's stderr, the exception, the Space's message)."""
    content: Content | None = None
    writer: Writer | None = None
    """For big files: writes the file in chunks, instead of ``content``."""
    objects: Callable[[Inputs], Any] | None = None
    """The metric's ``predictions``; default: the file's lines parsed by ``json`` (if they parse)."""
    references: Callable[[Inputs, Any], Any] | None = None
    """The metric's ``references`` for the predictions; default: see :func:`default_references`."""
    expect_metric: str | None = None
    expect_space: str | None = None
    entries: tuple[str, ...] = ENTRY_POINTS
    cli_args: tuple[str, ...] = ()
    """Extra ``eviscope score`` arguments (a wrong ``--config``)."""
    big: bool = False

    def write(self, inputs: Inputs, path: Path) -> Path | None:
        """Write the file to ``path``; None for a case with no file (metric-only ``objects``)."""
        if self.writer is not None:
            self.writer(inputs, path)
        elif self.content is not None:
            path.write_bytes(self.content(inputs))
        else:
            return None
        return path

    def expected(self, entry: str) -> str:
        override = {"metric": self.expect_metric, "space": self.expect_space}.get(entry)
        return override if override is not None else self.expect

    def metric_predictions(self, inputs: Inputs) -> tuple[bool, Any]:
        """(True, the metric's predictions), or (False, None) when the case has no metric form."""
        if "metric" not in self.entries:
            return False, None
        if self.objects is not None:
            return True, self.objects(inputs)
        if self.content is None:
            return False, None
        parsed = []
        for line in self.content(inputs).split(b"\n"):  # as the library splits a file
            if not line.strip():
                continue
            try:
                parsed.append(json.loads(line.decode("utf-8")))
            except (ValueError, RecursionError):
                return False, None
        return (True, parsed) if parsed else (False, None)

    def metric_references(self, inputs: Inputs, predictions: Any) -> Any:
        if self.references is not None:
            return self.references(inputs, predictions)
        return default_references(self.benchmark, inputs, predictions)


def default_references(benchmark: str, inputs: Inputs, predictions: Any) -> Any:
    """EviScope: every row of the config. ForceBench: for each prediction the row of its id, or,
    for a prediction without a known id, the row at its position."""
    if benchmark == "eviscope":
        return inputs.eviscope_rows
    rows = inputs.forcebench_rows
    by_id = {row["id"]: row for row in rows}
    refs = []
    for i, pred in enumerate(predictions if isinstance(predictions, list) else []):
        key = pred.get("id") if isinstance(pred, dict) else None
        refs.append(by_id.get(key, rows[i % len(rows)]) if isinstance(key, str) else rows[i % len(rows)])
    return refs


# --- Building files --------------------------------------------------------------------------


def jsonl(objects: Sequence[Any]) -> bytes:
    """JSON Lines, non-ASCII text as UTF-8; a lone surrogate becomes its ``\\uXXXX`` escape."""
    return "".join(json.dumps(o, ensure_ascii=False) + "\n" for o in objects).encode(
        "utf-8", "backslashreplace"
    )


def ev(change: Callable[[list[dict[str, Any]]], list[Any]]) -> Content:
    """The valid EviScope predictions, changed by ``change``, as JSONL."""
    return lambda inputs: jsonl(change([dict(p) for p in inputs.ev]))


def fb(change: Callable[[list[dict[str, Any]]], list[Any]]) -> Content:
    """The valid ForceBench predictions, changed by ``change``, as JSONL."""
    return lambda inputs: jsonl(change([dict(p) for p in inputs.fb]))


def ev_objects(change: Callable[[list[dict[str, Any]]], Any]) -> Callable[[Inputs], Any]:
    return lambda inputs: change([dict(p) for p in inputs.ev])


def fb_objects(change: Callable[[list[dict[str, Any]]], Any]) -> Callable[[Inputs], Any]:
    return lambda inputs: change([dict(p) for p in inputs.fb])


def at(index: int, **fields: Any) -> Callable[[list[dict[str, Any]]], list[Any]]:
    """Set (or, with the value ``DROP``, remove) fields of the prediction at ``index``."""

    def change(preds: list[dict[str, Any]]) -> list[Any]:
        for key, value in fields.items():
            if value is DROP:
                preds[index].pop(key, None)
            else:
                preds[index][key] = value
        return preds

    return change


DROP = object()


def renamed(index: int, field: str, typo: str) -> Callable[[list[dict[str, Any]]], list[Any]]:
    """The prediction at ``index`` with its ``field`` written as ``typo`` (issue 35: a near miss)."""

    def change(preds: list[dict[str, Any]]) -> list[Any]:
        preds[index][typo] = preds[index].pop(field)
        return preds

    return change


def raw_line(benchmark: str, index: int, make: Callable[[bytes], bytes]) -> Content:
    """The valid file of ``benchmark`` with line ``index + 1`` replaced by ``make(that line)``."""

    def content(inputs: Inputs) -> bytes:
        lines = jsonl(inputs.ev if benchmark == "eviscope" else inputs.fb).splitlines(keepends=True)
        lines[index] = make(lines[index].rstrip(b"\n")) + b"\n"
        return b"".join(lines)

    return content


def whole(benchmark: str, make: Callable[[bytes], bytes]) -> Content:
    """The valid file of ``benchmark``, transformed as a whole by ``make``."""
    return lambda inputs: make(jsonl(inputs.ev if benchmark == "eviscope" else inputs.fb))


def nested_list(depth: int) -> list[Any]:
    """``[[[…]]]``, ``depth`` levels deep, built without recursion."""
    value: list[Any] = []
    for _ in range(depth):
        value = [value]
    return value


def write_chunks(path: Path, chunks: Iterator[bytes]) -> None:
    with path.open("wb") as out:
        for chunk in chunks:
            out.write(chunk)


def random_binary(size: int) -> Writer:
    """``size`` bytes of seeded random data (a 1 MiB block, varied per MiB), streamed to disk."""

    def writer(inputs: Inputs, path: Path) -> None:
        block = bytearray(random.Random(7).randbytes(MiB))

        def chunks() -> Iterator[bytes]:
            for k in range(size // MiB):
                block[0] = k % 256
                yield bytes(block)

        write_chunks(path, chunks())

    return writer


def one_huge_line(size: int) -> Writer:
    """A single truncated JSON line whose ``answer`` string runs on for ``size`` bytes."""

    def writer(inputs: Inputs, path: Path) -> None:
        head = json.dumps({"id": inputs.ev[0]["id"], "action": "answer"})[:-1] + ', "answer": "'
        write_chunks(path, iter([head.encode(), *(b"x" * MiB for _ in range(size // MiB))]))

    return writer


def repeated_valid_lines(size: int) -> Writer:
    """Valid EviScope lines, the whole set repeated until the file is over ``size`` bytes."""

    def writer(inputs: Inputs, path: Path) -> None:
        block = jsonl(inputs.ev)
        write_chunks(path, iter([block] * (size // len(block) + 1)))

    return writer


def _gzip(data: bytes) -> bytes:
    return gzip.compress(data, mtime=0)


# --- The corpus --------------------------------------------------------------------------------

ARRAY_HINT = "JSON Lines"

EVISCOPE: list[Case] = [
    # Empty and structurally broken files.
    Case("empty-file", "eviscope", "the file is empty", lambda _: b"", entries=FILE_ONLY),
    Case("blank-lines-only", "eviscope", "the file is empty", lambda _: b"\n  \n\t\n\r\n", entries=FILE_ONLY),
    Case(
        "truncated-last-line",
        "eviscope",
        "line 160: not valid JSON: EOF",
        whole("eviscope", lambda data: data[: data.rstrip(b"\n").rfind(b"\n") + 30]),
        entries=FILE_ONLY,
    ),
    Case(
        "truncated-mid-file",
        "eviscope",
        "line 37: not valid JSON",
        raw_line("eviscope", 36, lambda b: b[:-5]),
        entries=FILE_ONLY,
    ),
    Case(
        "truncated-in-a-string",
        "eviscope",
        "line 1: not valid JSON: EOF while parsing a string",
        raw_line("eviscope", 0, lambda b: b[: b.index(b'"action": "') + 13]),
        entries=FILE_ONLY,
    ),
    Case(
        "missing-closing-brace",
        "eviscope",
        "line 3: not valid JSON",
        raw_line("eviscope", 2, lambda b: b[:-1]),
        entries=FILE_ONLY,
    ),
    Case(
        "trailing-comma",
        "eviscope",
        "line 4: not valid JSON",
        raw_line("eviscope", 3, lambda b: b[:-1] + b",}"),
        entries=FILE_ONLY,
    ),
    Case(
        "python-dict-repr",
        "eviscope",
        "line 1: not valid JSON",
        raw_line("eviscope", 0, lambda b: repr(json.loads(b)).encode()),
        entries=FILE_ONLY,
    ),
    Case(
        "python-literals",
        "eviscope",
        "line 2: not valid JSON",
        raw_line(
            "eviscope", 1, lambda b: b.replace(b"null", b"None").replace(b'"usage"', b'"ok": True, "usage"')
        ),
        entries=FILE_ONLY,
    ),
    Case(
        "json-comment",
        "eviscope",
        "line 1: not valid JSON",
        raw_line("eviscope", 0, lambda b: b + b"  // oracle"),
        entries=FILE_ONLY,
    ),
    Case(
        "two-objects-on-one-line",
        "eviscope",
        "line 5: not valid JSON: trailing characters",
        raw_line("eviscope", 4, lambda b: b + b),
        entries=FILE_ONLY,
    ),
    Case(
        "comma-separated-objects",
        "eviscope",
        "line 1: not valid JSON: trailing characters",
        whole("eviscope", lambda data: b", ".join(data.splitlines()) + b"\n"),
        entries=FILE_ONLY,
    ),
    Case(
        "json-array-one-line",
        "eviscope",
        ARRAY_HINT,
        lambda inputs: json.dumps(inputs.ev).encode() + b"\n",
        expect_metric="is an array",
    ),
    Case(
        "json-array-pretty",
        "eviscope",
        "line 1: not valid JSON: EOF while parsing a list (column 1); it looks like a JSON array",
        lambda inputs: json.dumps(inputs.ev, indent=2).encode(),
        entries=FILE_ONLY,
    ),
    Case(
        "pretty-printed-objects",
        "eviscope",
        "line 1: not valid JSON: EOF while parsing an object (column 1); each line must hold one whole",
        lambda inputs: "\n".join(json.dumps(p, indent=2) for p in inputs.ev).encode(),
        entries=FILE_ONLY,
    ),
    Case(
        "cr-line-endings",
        "eviscope",
        "line 1: not valid JSON: trailing characters",
        whole("eviscope", lambda data: data.replace(b"\n", b"\r")),
        entries=FILE_ONLY,
    ),
    Case(
        "csv-file",
        "eviscope",
        "line 1: not valid JSON",
        lambda i: b"id,action\n" + b"".join(f"{r['id']},abstain\n".encode() for r in i.eviscope_rows),
        entries=FILE_ONLY,
    ),
    # Lines that are JSON but not a prediction object.
    Case(
        "number-line",
        "eviscope",
        "line 7: expected one prediction object, got 42",
        raw_line("eviscope", 6, lambda b: b"42"),
        expect_metric="prediction 7: expected one prediction object, got 42",
    ),
    Case(
        "null-line",
        "eviscope",
        "expected one prediction object, got null",
        raw_line("eviscope", 0, lambda b: b"null"),
    ),
    Case(
        "string-line",
        "eviscope",
        'expected one prediction object, got "',
        raw_line("eviscope", 0, lambda b: json.dumps(b.decode()).encode()),
    ),
    Case(
        "array-line",
        "eviscope",
        ARRAY_HINT,
        raw_line("eviscope", 8, lambda b: b"[" + b + b"]"),
        expect_metric="is an array",
    ),
    # Wrong, missing and wrongly typed fields.
    Case("missing-action", "eviscope", "field `action`: Field required", ev(at(5, action=DROP))),
    # A near miss of a known field the line lacks: scoring would read the field as absent (issue 35:
    # `citation` scored joint success 0.544 -> 0.281, silently).
    *(
        Case(
            f"near-miss-{typo.replace('.', '-')}",
            "eviscope",
            f"line 1 (id q01-sufficient): unknown field '{typo}' — did you mean '{known}'?",
            ev(change),
            expect_metric=f"prediction 1 (id q01-sufficient): unknown field '{typo}' — did you mean '{known}'?",
        )
        for typo, known, change in (
            ("citation", "citations", renamed(0, "citations", "citation")),
            ("actions", "action", renamed(0, "action", "actions")),
            ("anwser", "answer", renamed(0, "answer", "anwser")),
            ("quote", "quotes", at(0, quote=[{"doc_id": "d", "text": "t"}])),
            ("usage.prompt_token", "usage.prompt_tokens", at(0, usage={"prompt_token": 500, "calls": 1})),
            ("quotes.0.txt", "quotes.0.text", at(0, quotes=[{"doc_id": "d", "txt": "t"}])),
        )
    ),
    Case(
        "missing-id",
        "eviscope",
        "line 6: field `id`: Field required",
        ev(at(5, id=DROP)),
        expect_metric="prediction 6: field `id`: Field required",
    ),
    Case("null-id", "eviscope", "field `id`: Input should be a valid string, got null", ev(at(0, id=None))),
    Case("numeric-id", "eviscope", "field `id`: Input should be a valid string, got 7", ev(at(0, id=7))),
    Case(
        "uppercase-keys",
        "eviscope",
        "field `id`: Field required",
        ev(lambda ps: [{k.upper(): v for k, v in p.items()} for p in ps]),
    ),
    Case(
        "action-unknown",
        "eviscope",
        'field `action`: must be answer, abstain, flag_conflict, or null for an unparsable output, got "guess"',
        ev(at(3, action="guess")),
    ),
    Case(
        "action-wrong-case",
        "eviscope",
        'field `action`: must be answer, abstain, flag_conflict, or null for an unparsable output, got "Answer"',
        ev(at(0, action="Answer")),
    ),
    Case("action-number", "eviscope", "field `action`: must be answer", ev(at(0, action=1))),
    Case("action-list", "eviscope", 'got ["answer"]', ev(at(0, action=["answer"]))),
    Case(
        "answer-number",
        "eviscope",
        "field `answer`: Input should be a valid string, got 2010",
        ev(at(0, answer=2010)),
    ),
    Case(
        "answer-object",
        "eviscope",
        "field `answer`: Input should be a valid string",
        ev(at(0, answer={"text": "11"})),
    ),
    Case(
        "citations-string",
        "eviscope",
        "field `citations`: Input should be a valid",
        ev(at(0, citations="doc-1")),
    ),
    Case(
        "citations-numbers",
        "eviscope",
        "field `citations.0`: Input should be a valid string, got 1",
        ev(at(0, citations=[1, 2])),
    ),
    Case(
        "quotes-missing-text",
        "eviscope",
        "field `quotes.0.text`: Field required",
        ev(at(0, quotes=[{"doc_id": "d"}])),
    ),
    Case(
        "quotes-strings",
        "eviscope",
        "field `quotes.0`: Input should be",
        ev(at(0, quotes=["a quote"])),
    ),
    Case("usage-list", "eviscope", "field `usage`: Input should be", ev(at(0, usage=[1, 2]))),
    Case(
        "usage-negative",
        "eviscope",
        "field `usage.calls`: Input should be greater than or equal to 0",
        ev(at(0, usage={"calls": -1})),
    ),
    Case(
        "usage-words",
        "eviscope",
        "field `usage.prompt_tokens`: Input should be a valid integer",
        ev(at(0, usage={"prompt_tokens": "lots"})),
    ),
    Case(
        "usage-nan",
        "eviscope",
        "field `usage.latency_s`: Input should be a finite number, got NaN",
        ev(at(2, usage={"latency_s": float("nan")})),
    ),
    Case(
        "usage-infinity",
        "eviscope",
        "field `usage.cost_usd`: Input should be a finite number, got Infinity",
        ev(at(2, usage={"cost_usd": float("inf")})),
    ),
    Case(
        "usage-too-large",
        "eviscope",
        "field `usage.calls`: Input should be less than or equal to 1000000000000",
        ev(at(2, usage={"calls": 10**30})),
    ),
    Case(
        "usage-5000-digit-number",
        "eviscope",
        "line 1: not valid JSON: number out of range",
        raw_line("eviscope", 0, lambda b: b[:-1] + b', "usage": {"calls": 1' + b"0" * 5000 + b"}}"),
        objects=ev_objects(at(0, usage={"calls": 10**5000})),
        expect_metric="field `usage.calls`: Input should be less than or equal to",
    ),
    Case(
        "deep-nesting-in-a-field",
        "eviscope",
        "line 1: not valid JSON: recursion limit exceeded",
        raw_line("eviscope", 0, lambda b: b[:-1] + b', "quotes": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"),
        objects=ev_objects(at(0, quotes=nested_list(100_000))),
        expect_metric="field `quotes.0`: Input should be",
    ),
    Case(
        "deep-nesting-whole-line",
        "eviscope",
        "line 1: not valid JSON: recursion limit exceeded",
        raw_line("eviscope", 0, lambda b: b"[" * 100_000 + b"]" * 100_000),
        objects=ev_objects(lambda ps: [nested_list(100_000), *ps[1:]]),
        expect_metric="is an array",
    ),
    Case(
        "nested-garbage",
        "eviscope",
        "field `id`: Input should be a valid string, got {",
        ev(at(0, id={"id": {"id": {"id": {"id": ["q"]}}}})),
    ),
    # Huge fields.
    Case(
        "huge-id-1mb",
        "eviscope",
        "1 unknown ids (xxxxx",
        ev(at(0, id="x" * MiB)),
        expect_space="1 unknown ids (xxxxx",
    ),
    Case("huge-action-1mb", "eviscope", "field `action`: must be answer", ev(at(0, action="y" * MiB))),
    Case(
        "huge-citation-list-wrong-type",
        "eviscope",
        "field `citations.0`: Input should be a valid string",
        ev(at(0, citations=list(range(200_000)))),
    ),
    # Ids that do not match the rows.
    Case("unknown-id", "eviscope", "1 unknown ids (q99-unknown); 1 missing ids", ev(at(0, id="q99-unknown"))),
    Case(
        "missing-id-line", "eviscope", "ids do not match the 160 rows: 1 missing ids (", ev(lambda ps: ps[1:])
    ),
    Case(
        "duplicate-id",
        "eviscope",
        "line 161: duplicate id q05-noisy (first on line 18)",
        ev(lambda ps: [*ps, ps[17]]),
        expect_metric="ids do not match the 160 rows: 1 duplicate ids (",
    ),
    Case("only-ten-predictions", "eviscope", "150 missing ids (", ev(lambda ps: ps[:10])),
    Case(
        "ids-upper-cased",
        "eviscope",
        "160 unknown ids (",
        ev(lambda ps: [{**p, "id": p["id"].upper()} for p in ps]),
    ),
    Case(
        "id-trailing-space",
        "eviscope",
        "1 unknown ids (",
        ev(lambda ps: [{**ps[0], "id": ps[0]["id"] + " "}, *ps[1:]]),
    ),
    # The other benchmark's predictions, or the other benchmark's config.
    Case(
        "forcebench-predictions",
        "eviscope",
        "field `action`: Field required",
        lambda inputs: jsonl(inputs.fb),
    ),
    Case(
        "config-forcebench",
        "eviscope",
        "field 'evaluator': Field required; this looks like an EviScope prediction",
        lambda inputs: jsonl(inputs.ev),
        entries=("cli",),
        cli_args=("--config", "forcebench"),
    ),
    Case(
        "config-unknown",
        "eviscope",
        "unknown config 'eviscope-v9'; known: eviscope-v1",
        lambda inputs: jsonl(inputs.ev),
        entries=("cli",),
        cli_args=("--config", "eviscope-v9"),
    ),
    Case(
        "forcebench-rows-as-references",
        "eviscope",
        "not an EviScope row (contract §2): field `quartet_id`: Field required",
        lambda inputs: jsonl(inputs.ev),
        references=lambda inputs, preds: inputs.forcebench_rows[: len(preds)],
        entries=("metric",),
    ),
    Case(
        "predictions-as-a-path",
        "eviscope",
        "expected a list of predictions (one dict per row), got str",
        objects=lambda _: "predictions.jsonl",
        entries=("metric",),
    ),
    # Unicode edge cases.
    Case(
        "lone-surrogate-escape",
        "eviscope",
        "\\ud800 is a lone surrogate escape, not a Unicode character",
        ev(at(4, answer="\ud800")),
        expect_metric="field `answer`: not valid Unicode text (it holds a lone surrogate)",
    ),
    Case(
        "lone-low-surrogate-in-id",
        "eviscope",
        "\\udc00 is a lone surrogate escape",
        ev(at(4, id="\udc00" + "q")),
        expect_metric="field `id`: not valid Unicode text",
    ),
    Case(
        "nul-byte-in-a-string",
        "eviscope",
        "line 1: not valid JSON: control character",
        raw_line("eviscope", 0, lambda b: b.replace(b'"id": "', b'"id": "\x00')),
        entries=FILE_ONLY,
    ),
    Case("nul-escape-in-id", "eviscope", "1 unknown ids (\\x00", ev(at(0, id="\x00" + "q01"))),
    Case(
        "nul-bytes-after-object",
        "eviscope",
        "it holds NUL bytes",
        raw_line("eviscope", 0, lambda b: b + b"\x00\x00"),
        entries=FILE_ONLY,
    ),
    Case("newline-escape-in-id", "eviscope", "1 unknown ids (q\\nx)", ev(at(0, id="q\nx"))),
    Case("rtl-override-in-action", "eviscope", 'got "answer\\u202e"', ev(at(0, action="answer\u202e"))),
    Case("rtl-mark-in-id", "eviscope", "1 unknown ids (\\u200f", ev(at(0, id="\u200f" + "q01"))),
    Case(
        "bom-on-a-later-line",
        "eviscope",
        "line 2: not valid JSON: expected value (column 1); it starts with a byte order mark",
        raw_line("eviscope", 1, lambda b: b"\xef\xbb\xbf" + b),
        entries=FILE_ONLY,
    ),
    Case(
        "bom-then-bad-field",
        "eviscope",
        "line 1 (id ",
        whole(
            "eviscope", lambda d: b"\xef\xbb\xbf" + d.replace(b'"action": "answer"', b'"action": "yes"', 1)
        ),
        entries=FILE_ONLY,
    ),
    Case(
        "latin-1-byte",
        "eviscope",
        "line 1: not UTF-8 text (byte 0xe9 at column",
        raw_line("eviscope", 0, lambda b: b.replace(b'"usage"', b'"note": "caf\xe9", "usage"')),
        entries=FILE_ONLY,
    ),
    Case(
        "cesu-8-surrogate-bytes",
        "eviscope",
        "not UTF-8 text (byte 0xed",
        raw_line("eviscope", 0, lambda b: b.replace(b'"usage"', b'"note": "\xed\xa0\x80", "usage"')),
        entries=FILE_ONLY,
    ),
    Case(
        "utf-16-with-bom",
        "eviscope",
        "the file is UTF-16 or UTF-32 text",
        lambda inputs: jsonl(inputs.ev).decode().encode("utf-16"),
        entries=FILE_ONLY,
    ),
    Case(
        "utf-16-without-bom",
        "eviscope",
        "line 1: not valid JSON",
        lambda inputs: jsonl(inputs.ev).decode().encode("utf-16-le"),
        entries=FILE_ONLY,
    ),
    # Not text at all.
    Case(
        "binary-4kb",
        "eviscope",
        "line 1: not UTF-8 text (byte 0xcd at column 1)",
        lambda _: random.Random(0).randbytes(4096),
        entries=FILE_ONLY,
    ),
    Case(
        "gzip-compressed",
        "eviscope",
        "the file is gzip-compressed",
        lambda inputs: _gzip(jsonl(inputs.ev)),
        entries=FILE_ONLY,
    ),
    Case(
        "parquet-file",
        "eviscope",
        "the file is a Parquet file",
        lambda _: b"PAR1\x15\x04\x15\x10" + bytes(64) + b"PAR1",
        entries=FILE_ONLY,
    ),
    Case(
        "pdf-file",
        "eviscope",
        "line 1: not valid JSON",
        lambda _: b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<< >>\nendobj\n",
        entries=FILE_ONLY,
    ),
    # Big files: streamed to disk; the Space refuses them unread.
    Case(
        "binary-100mb",
        "eviscope",
        "line 1: not UTF-8 text",
        writer=random_binary(100 * MiB),
        expect_space="MiB is over the 20 MiB limit",
        big=True,
        entries=FILE_ONLY,
    ),
    Case(
        "one-line-100mb-truncated",
        "eviscope",
        "line 1: longer than 16 MiB (the most one line may hold)",
        writer=one_huge_line(100 * MiB),
        expect_space="MiB is over the 20 MiB limit",
        big=True,
        entries=FILE_ONLY,
    ),
    Case(
        "valid-lines-repeated-21mb",
        "eviscope",
        "line 161: duplicate id q01-sufficient (first on line 1)",
        writer=repeated_valid_lines(21 * MiB),
        expect_space="MiB is over the 20 MiB limit",
        big=True,
        entries=FILE_ONLY,
    ),
]

FORCEBENCH: list[Case] = [
    Case("fb-empty-file", "forcebench", "the file is empty", lambda _: b"", entries=FILE_ONLY),
    Case(
        "fb-truncated-line",
        "forcebench",
        ":12: not valid JSON: EOF",
        raw_line("forcebench", 11, lambda b: b[:-10]),
        entries=FILE_ONLY,
    ),
    Case(
        "fb-json-array",
        "forcebench",
        "it looks like a JSON array",
        lambda inputs: json.dumps(inputs.fb, indent=1).encode(),
        entries=("cli", "space"),
    ),
    Case(
        "fb-array-line",
        "forcebench",
        ":1: not a JSON object but an array",
        raw_line("forcebench", 0, lambda b: b"[" + b + b"]"),
        expect_metric="prediction 1: not a JSON object but an array",
    ),
    Case(
        "fb-number-line",
        "forcebench",
        ":1: not a JSON object, got 3",
        raw_line("forcebench", 0, lambda b: b"3"),
        expect_metric="prediction 1: not a JSON object, got 3",
    ),
    Case(
        "fb-eviscope-predictions",
        "forcebench",
        "field 'evaluator': Field required; this looks like an EviScope prediction",
        lambda inputs: jsonl(inputs.ev),
    ),
    Case(
        "fb-missing-evaluator", "forcebench", "field 'evaluator': Field required", fb(at(3, evaluator=DROP))
    ),
    Case(
        "fb-empty-id", "forcebench", "field 'id': String should have at least 1 character", fb(at(3, id=""))
    ),
    Case(
        "fb-unknown-prompt",
        "forcebench",
        "field 'prompt': Input should be 'generic', 'axis_free', 'force_aware' or 'dummy_axis', got \"chatty\"",
        fb(at(0, prompt="chatty")),
    ),
    *(
        Case(
            f"fb-near-miss-{typo}",
            "forcebench",
            f":1: unknown field '{typo}' — did you mean '{known}'?",
            fb(renamed(0, known, typo)),
            expect_metric=f"prediction 1: unknown field '{typo}' — did you mean '{known}'?",
        )
        for typo, known in (("score_raise", "score_raised"), ("evaluators", "evaluator"))
    ),
    Case(
        "fb-score-words",
        "forcebench",
        "field 'score_safe': Input should be a valid number",
        fb(at(0, score_safe="high")),
    ),
    Case(
        "fb-score-nan",
        "forcebench",
        "field 'score_safe': Value error, must be a finite number",
        fb(at(0, score_safe=float("nan"))),
    ),
    Case(
        "fb-score-infinity",
        "forcebench",
        "field 'score_raised': Value error, must be a finite number",
        fb(at(0, score_raised=float("-inf"))),
    ),
    Case(
        "fb-score-1e300",
        "forcebench",
        "field 'score_raised': Value error, must be a finite number between",
        fb(at(0, score_raised=1e300)),
    ),
    Case(
        "fb-label-disagrees-with-score",
        "forcebench",
        "score_safe=0.0 disagrees with label_safe='force_calibrated'",
        fb(at(0, prompt="force_aware", label_safe="force_calibrated", score_safe=0.0)),
    ),
    Case("fb-duplicate-unit", "forcebench", "duplicate prediction for id 'fb-", fb(lambda ps: [*ps, ps[4]])),
    Case(
        "fb-unknown-id",
        "forcebench",
        "predictions name ids that are not ForceBench rows: fb-nope",
        fb(at(0, id="fb-nope")),
        expect_metric="id 'fb-nope' is paired with reference id",
    ),
    Case(
        "fb-missing-row",
        "forcebench",
        "has no prediction for ids",
        fb(lambda ps: ps[1:]),
        entries=("cli", "space"),
    ),
    Case(
        "fb-second-evaluator-short",
        "forcebench",
        "evaluator 'second' has no prediction for ids",
        fb(lambda ps: [*ps, *({**p, "evaluator": "second"} for p in ps[1:])]),
    ),
    Case(
        "fb-huge-id-1mb",
        "forcebench",
        "not ForceBench rows: zzzzz",
        fb(at(0, id="z" * MiB)),
        expect_metric="is paired with reference id",
    ),
    Case(
        "fb-lone-surrogate",
        "forcebench",
        "\\udfff is a lone surrogate escape",
        fb(at(0, evaluator="\udfff")),
        expect_metric="field 'evaluator': Input should be a valid string, unable to parse raw data as a unicode string",
    ),
    Case(
        "fb-latin-1-byte",
        "forcebench",
        ":1: not UTF-8 text (byte 0xe9",
        raw_line("forcebench", 0, lambda b: b.replace(b'"probe"', b'"pr\xe9be"')),
        entries=FILE_ONLY,
    ),
    Case(
        "fb-utf-16",
        "forcebench",
        "the file is UTF-16 or UTF-32 text",
        lambda inputs: jsonl(inputs.fb).decode().encode("utf-16"),
        entries=FILE_ONLY,
    ),
    Case(
        "fb-deep-nesting",
        "forcebench",
        ":1: not valid JSON: recursion limit exceeded",
        raw_line(
            "forcebench", 0, lambda b: b[:-1] + b', "label_safe": ' + b"[" * 50_000 + b"]" * 50_000 + b"}"
        ),
        objects=fb_objects(at(0, label_safe=nested_list(50_000))),
        expect_metric="field 'label_safe': Input should be a valid string",
    ),
    Case(
        "fb-binary-4kb",
        "forcebench",
        ":1: not UTF-8 text",
        lambda _: random.Random(0).randbytes(4096),
        entries=FILE_ONLY,
    ),
    Case(
        "fb-binary-100mb",
        "forcebench",
        ":1: not UTF-8 text",
        writer=random_binary(100 * MiB),
        expect_space="MiB is over the 20 MiB limit",
        big=True,
        entries=FILE_ONLY,
    ),
    Case(
        "fb-eviscope-rows-as-references",
        "forcebench",
        "not a ForceBench row (contract §5): field 'axis' missing",
        lambda inputs: jsonl(inputs.fb[:3]),
        references=lambda inputs, preds: inputs.eviscope_rows[: len(preds)],
        entries=("metric",),
    ),
    Case(
        "fb-predictions-as-a-dict",
        "forcebench",
        "expected a list of predictions",
        objects=lambda inputs: inputs.fb[0],
        references=lambda inputs, preds: inputs.forcebench_rows[:1],
        entries=("metric",),
    ),
]

CORPUS: list[Case] = EVISCOPE + FORCEBENCH
"""Every case, EviScope first."""

assert len({case.name for case in CORPUS}) == len(CORPUS), "case names must be unique"


def cases_for(entry: str) -> list[Case]:
    """The cases that ``entry`` runs (the metric also needs a metric form: see :class:`Case`)."""
    return [case for case in CORPUS if entry in case.entries]


def by_name() -> Mapping[str, Case]:
    return {case.name: case for case in CORPUS}
