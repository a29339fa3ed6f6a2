"""``eviscope run --ray`` on a real local Ray cluster (2 CPUs, shared by the module) with the tiny model."""

from __future__ import annotations

import collections
import contextlib
import json
import os
import signal
import sys

import pytest
from runner_fixtures import read_jsonl

from eviscope.cli import main
from eviscope.runner.backends import backend_settings
from eviscope.runner.backends.base import SamplingConfig
from eviscope.runner.execute import RunSettings
from eviscope.runner.ray_pool import RayOptions
from eviscope.runner.session import RunRequest, run

ray = pytest.importorskip("ray", reason="ray is not installed: pip install -e '.[ray]'")
psutil = pytest.importorskip(
    "psutil", reason="psutil is not installed (it comes with ray): pip install -e '.[ray]'"
)
pytest.importorskip("transformers", reason="transformers is not installed: pip install -e '.[cpu]'")
pytestmark = pytest.mark.slow

ROWS = 12


@pytest.fixture(scope="module", autouse=True)
def cluster():
    os.environ.setdefault("RAY_AUTH_MODE", "disabled")
    ray.init(num_cpus=2, include_dashboard=False, logging_level="WARNING")
    yield
    ray.shutdown()


def _request(model, dataset, out, *, ray_options=None, batch_size=1, limit=ROWS):
    return RunRequest(
        config="eviscope-v1.1",
        out=out,
        backend=backend_settings("transformers", {"model": str(model), "structured_output": False}),
        sampling=SamplingConfig(max_tokens=8),
        dataset=dataset,
        limit=limit,
        settings=RunSettings(max_retries=0, batch_size=batch_size),
        ray=ray_options,
    )


def _without_latency(path):
    preds = read_jsonl(path)
    for p in preds:
        p["usage"].pop("latency_s")  # measured wall time, the one field two runs cannot share
    return [json.dumps(p, ensure_ascii=False) for p in preds]


def _journal_counts(out):
    return collections.Counter(r["id"] for r in read_jsonl(out / "records.jsonl"))


def _tracker(on_row):
    @contextlib.contextmanager
    def track(total):
        seen = [0]

        def advance(n):
            seen[0] += n
            on_row(seen[0])

        yield advance

    return track


def test_ray_predictions_equal_a_local_run(tiny_model, built_dataset, tmp_path):
    local = run(_request(tiny_model, built_dataset, tmp_path / "local"))
    pooled = run(_request(tiny_model, built_dataset, tmp_path / "ray", ray_options=RayOptions(workers=2)))
    assert _without_latency(pooled.predictions) == _without_latency(local.predictions)
    assert len(_without_latency(local.predictions)) == ROWS
    assert pooled.manifest["ray"]["workers"] == 2 and pooled.manifest["ray"]["ray_version"] == ray.__version__
    assert pooled.manifest["engine_calls"] == ROWS  # one call per one-row batch, summed over workers


def _workers():
    return [p for p in psutil.process_iter(["cmdline"]) if "MapWorker" in " ".join(p.info["cmdline"] or [])]


def test_a_killed_worker_loses_no_row_and_doubles_none(tiny_model, built_dataset, tmp_path):
    out = tmp_path / "run"
    killed = []

    def kill_one(done):
        if done >= 3 and not killed:
            victim = _workers()[0]
            killed.append(victim.pid)
            os.kill(victim.pid, signal.SIGKILL)

    result = run(
        _request(tiny_model, built_dataset, out, ray_options=RayOptions(workers=2)), track=_tracker(kill_one)
    )
    assert killed and not psutil.pid_exists(killed[0])
    counts = _journal_counts(out)
    assert len(counts) == ROWS and set(counts.values()) == {1}
    assert len(read_jsonl(result.predictions)) == ROWS


def test_an_interrupted_driver_resumes_asking_only_for_missing_rows(tiny_model, built_dataset, tmp_path):
    out = tmp_path / "run"
    request = _request(tiny_model, built_dataset, out, ray_options=RayOptions(workers=1))

    def interrupt(done):
        if done >= 4:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run(request, track=_tracker(interrupt))
    kept = len(_journal_counts(out))
    assert 4 <= kept < ROWS
    result = run(request)
    assert result.manifest["sessions"][-1]["rows_run"] == ROWS - kept
    counts = _journal_counts(out)
    assert len(counts) == ROWS and set(counts.values()) == {1}


def test_clear_errors(tiny_model, built_dataset, tmp_path, capsys, monkeypatch):
    base = ["run", "--backend", "transformers", "--model", str(tiny_model), "--dataset", str(built_dataset),
            "--limit", "2", "--out", str(tmp_path / "run")]  # fmt: skip
    assert main([*base, "--workers", "2"]) == 2
    assert "--workers is for runs on Ray: add --ray [ADDRESS]" in capsys.readouterr().err
    assert main([*base, "--ray", "127.0.0.1:1"]) == 2
    assert "--ray 127.0.0.1:1: no Ray cluster answers there" in capsys.readouterr().err
    vllm = ["run", "--backend", "vllm", "--model", "m", "--dataset", str(built_dataset), "--out", str(tmp_path / "v"),
            "--tensor-parallel-size", "2", "--ray", "--gpus-per-worker", "1"]  # fmt: skip
    assert main(vllm) == 2
    assert "--gpus-per-worker 1 is fewer than the 2 GPUs one vllm worker needs" in capsys.readouterr().err
    monkeypatch.setitem(sys.modules, "ray", None)
    assert main([*base, "--ray"]) == 2
    assert "install it with `pip install 'eviscope[ray]'`" in capsys.readouterr().err
