"""``eviscope confquestions ablation``: retrieval P@1 on ConfQuestions without and with evidence context."""

from __future__ import annotations

import argparse
import json
import shlex

from rich.table import Table

from eviscope.commands import add_group, add_json_argument, add_subcommand, console

_FORMS = {
    "completed_q_en": "completed English",
    "q_en": "original English",
    "completed_q_de": "completed German",
    "q_de": "original German",
}


def register(subparsers: argparse._SubParsersAction) -> None:
    actions = add_group(
        subparsers,
        "confquestions",
        help="ConfQuestions (RAGONITE) from your own copy: the contextualization ablation",
        description="Work with your own copy of ConfQuestions (CC BY-NC-ND: never redistributed).",
    )
    ablation = add_subcommand(
        actions,
        "ablation",
        help="retrieval P@1 without and with evidence context",
        description=(
            "Retrieval P@1 (the top unit is from a gold page, joined by page id) for BM25, MiniLM dense\n"
            "retrieval and their reciprocal rank fusion, over the units' own text and with the page\n"
            "title and previous heading prepended, for completed and original questions in English and\n"
            "German. Embeddings are cached in $EVISCOPE_CACHE (else ~/.cache/eviscope); the first run\n"
            "embeds every unit, which takes minutes on a few CPU cores."
        ),
    )
    ablation.add_argument(
        "--confquestions", metavar="PATH", help="your ConfQuestions folder (default: $EVISCOPE_CONFQUESTIONS)"
    )
    ablation.add_argument(
        "--retrievers",
        default="bm25,dense,rrf",
        help="comma-separated, from bm25, dense, rrf (default: all three; bm25 alone needs no model)",
    )
    ablation.add_argument(
        "--neighbours",
        action="store_true",
        help="also measure with the neighbouring units prepended to title and heading",
    )
    add_json_argument(ablation)
    ablation.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from eviscope.ragonite.ablation import PAPER_P_AT_1, run_ablation
    from eviscope.ragonite.confquestions import CONFQUESTIONS, load_confquestions
    from eviscope.ragonite.retrieval import Embedder

    ref = CONFQUESTIONS.resolve(args.confquestions)
    corpus = load_confquestions(ref.location, via=ref.via)
    retrievers = [r.strip() for r in args.retrievers.split(",") if r.strip()]
    settings = ["raw", "context", *(["neighbours"] if args.neighbours else [])]
    embed = Embedder(show_progress=True) if {"dense", "rrf"} & set(retrievers) else None
    results = run_ablation(corpus.units, corpus.turns, retrievers=retrievers, settings=settings, embed=embed)
    command = ["eviscope", "confquestions", "ablation", "--retrievers", ",".join(retrievers)]
    command += ["--neighbours"] * args.neighbours + ["--json"] * args.json
    command_line = shlex.join(command) + f"  # ConfQuestions from {ref.location} (via {ref.via})"
    if args.json:
        payload = {
            "command": command_line,
            "units": len(corpus.units),
            "turns": len(corpus.turns),
            "paper": PAPER_P_AT_1,
            "results": [r.to_dict() for r in results],
        }
        print(json.dumps(payload, indent=2))
        return 0
    by_key = {(r.questions, r.retriever, r.setting): r.p_at_1 for r in results}
    table = Table(
        title=f"ConfQuestions retrieval P@1: {len(corpus.turns)} turns, {len(corpus.units)} units",
        title_justify="left",
        caption=(
            f"the paper, its own RAGONITE pipeline: {PAPER_P_AT_1['raw']:.3f} → {PAPER_P_AT_1['context']:.3f}\n"
            f"measured with: {command_line}"
        ),
        caption_justify="left",
    )
    for column in ("questions", "retriever", *settings, "context − raw"):
        table.add_column(column, justify="left" if column in ("questions", "retriever") else "right")
    for form, label in _FORMS.items():
        for retriever in retrievers:
            values = [by_key[(form, retriever, s)] for s in settings]
            change = by_key[(form, retriever, "context")] - by_key[(form, retriever, "raw")]
            table.add_row(label, retriever, *(f"{v:.3f}" for v in values), f"{change:+.3f}")
    console().print(table)
    return 0
