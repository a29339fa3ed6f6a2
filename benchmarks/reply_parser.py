"""The reply parsers on hostile replies: CPU time at a size and at twice it, and their ratio.

A linear parser takes about 2× the time at twice the size; the tolerant parser of before issue 34
took about 4× (one decode per ``{``, each error locating itself from the start of the text: 25 s of
CPU for 300 kB of ``{``). Each reply is parsed by the EviScope reply parser
(:func:`~eviscope.suites.eviscope.parsing.parse_answer`), the ForceBench judge parser
(:func:`~eviscope.suites.forcebench.prompts.parse_label`) and the body reader
(:func:`~eviscope.core.untrusted_json.loads`), as the run meets them (up to the 8 MiB reply cap).

    python benchmarks/reply_parser.py [--size 4194304]
"""

from __future__ import annotations

import argparse
import contextlib
import time
from collections.abc import Callable

from eviscope.core.untrusted_json import UntrustedJSONError, loads
from eviscope.suites.eviscope.parsing import parse_answer
from eviscope.suites.forcebench.prompts import parse_label

REPLIES: dict[str, Callable[[int], str]] = {
    "braces": lambda n: "{" * n,
    "open keys": lambda n: '{"a": ' * (n // 6),
    "nested arrays": lambda n: '{"action": "answer", "citations": ' + "[" * n,
    "lone surrogates": lambda n: '{"action": "answer", "answer": "' + "\\ud800" * (n // 6) + '"}',
}


def _body(text: str) -> None:
    with contextlib.suppress(UntrustedJSONError):
        loads(text)


PARSERS: dict[str, Callable[[str], object]] = {
    "parse_answer": parse_answer,
    "parse_label": lambda text: parse_label("force_aware", text),
    "loads": _body,
}


def cpu_seconds(parse: Callable[[str], object], text: str) -> float:
    start = time.process_time()
    parse(text)
    return time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--size", type=int, default=4 << 20, help="characters of the smaller reply")
    args = parser.parse_args()
    print(f"{'reply':<16} {'parser':<13} {'CPU s at N':>11} {'at 2N':>8} {'ratio':>6}")
    for reply, make in REPLIES.items():
        small, large = make(args.size), make(2 * args.size)
        for name, parse in PARSERS.items():
            one, two = cpu_seconds(parse, small), cpu_seconds(parse, large)
            ratio = two / one if one > 0 else float("nan")
            print(f"{reply:<16} {name:<13} {one:>11.3f} {two:>8.3f} {ratio:>6.2f}")


if __name__ == "__main__":
    main()
