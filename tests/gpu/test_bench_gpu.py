"""The GPU section of the benchmarks (``benchmarks/gpu.py``), exercised without a GPU.

One tiny training step per row: autograd_lab on the CPU and on the fake CUDA device (the test double of
``fake_backend.py``, so the CUDA row's code runs: data and model moved to ``cuda``, ``al.cuda.synchronize``
around the timers), PyTorch on the CPU. The driver is run in-process with that runner to check the report
(JSON and Markdown), and ``--require-cuda`` must fail where the CUDA rows cannot run.
"""

from __future__ import annotations

import json

import pytest
from fake_backend import fake_cuda

import autograd_lab as al
from benchmarks import gpu

NO_CUDA = {"autograd_lab/cpu": None, "autograd_lab/cuda": "no GPU in this test", "torch/cpu": None,
           "torch/cuda": "no GPU in this test"}
FAKE_CUDA = dict(NO_CUDA, **{"autograd_lab/cuda": None})


def _in_process(spec: dict) -> dict:
    """The worker's job without a process: the ``cuda`` rows run on the test double."""
    if spec["device"] == "cuda":
        with fake_cuda():
            return gpu.run_sample(**spec)
    return gpu.run_sample(**spec)


@pytest.mark.parametrize("workload", gpu.WORKLOADS)
def test_rows_compute_the_same_numbers(workload):
    pytest.importorskip("torch")
    runs = {row: _in_process({"workload": workload, "lib": row.split("/")[0], "device": row.split("/")[1],
                              "batch": 4, "reps": 2, "warmup": 1})
            for row in ("autograd_lab/cpu", "autograd_lab/cuda", "torch/cpu")}
    for res in runs.values():
        assert len(res["times"]) == 2 and all(t > 0 for t in res["times"])
        n_params = 6  # three layers, weight and bias each
        assert len(res["check"]) == gpu.CHECK_STEPS + n_params
    assert runs["autograd_lab/cuda"]["env"]["gpu"] == "FakeCudaBackend (no GPU)"
    check = gpu.compare_checks({row: res["check"] for row, res in runs.items()})
    assert check["ok"], check
    assert check["reference"] == "autograd_lab/cpu"
    assert check["max_rel_err"]["torch/cpu"] < gpu.RTOL["cpu"]


def test_a_wrong_gradient_fails_the_check():
    base = _in_process({"workload": "mlp", "lib": "autograd_lab", "device": "cpu", "batch": 4, "reps": 1, "warmup": 0})
    wrong = list(base["check"])
    wrong[gpu.CHECK_STEPS] *= 1.01  # one parameter's gradient norm off by 1%
    assert not gpu.compare_checks({"autograd_lab/cpu": base["check"], "autograd_lab/cuda": wrong})["ok"]


def test_report_with_the_fake_cuda_row(tmp_path, capsys):
    pytest.importorskip("torch")
    rc = gpu.main(["--samples", "2", "--batch-sizes", "2", "--only", "cnn", "--reps", "2", "--warmup", "0",
                   "--out", str(tmp_path)],
                  run=_in_process, rows_found=FAKE_CUDA)
    assert rc == 0
    report = json.loads((tmp_path / "gpu.json").read_text())
    assert report["cuda"] is True and report["gpu"] == "FakeCudaBackend (no GPU)"
    assert report["skipped"] == {"torch/cuda": "no GPU in this test"}
    assert [r["name"] for r in report["results"]] == ["cnn_2"]
    for r in report["results"]:
        assert set(r["medians"]) == {"autograd_lab/cpu", "autograd_lab/cuda", "torch/cpu"}
        assert all(len(v) == 2 for v in r["samples"].values())
        assert r["ratios"]["al_cuda/al_cpu"] > 0 and r["ratios"]["al_cpu/torch_cpu"] > 0
        assert r["ratios"]["al_cuda/torch_cuda"] is None and r["ratios"]["torch_cuda/torch_cpu"] is None
        assert r["check"]["ok"] and not r["errors"]
    md = (tmp_path / "gpu.md").read_text()
    assert "GPU: **FakeCudaBackend (no GPU)**" in md
    assert "**torch/cuda not run**: no GPU in this test" in md
    assert "| cnn_2 |" in md and "need a GPU" not in md
    assert "wrote" in capsys.readouterr().out


def test_cpu_rows_only_without_cuda(tmp_path, capsys):
    rc = gpu.main(["--samples", "1", "--batch-sizes", "4,2", "--only", "cnn", "--reps", "1", "--out", str(tmp_path)],
                  run=_in_process, rows_found=dict(NO_CUDA, **{"torch/cpu": "PyTorch is not installed"}))
    assert rc == 0
    assert "the CUDA rows need a GPU" in capsys.readouterr().out
    report = json.loads((tmp_path / "gpu.json").read_text())
    assert report["cuda"] is False and report["gpu"] is None
    assert [r["name"] for r in report["results"]] == ["cnn_4", "cnn_2"]
    for result in report["results"]:
        assert list(result["medians"]) == ["autograd_lab/cpu"]
        assert all(v is None for v in result["ratios"].values())
    assert "**The CUDA rows need a GPU**" in (tmp_path / "gpu.md").read_text()
    rc = gpu.main(["--samples", "1", "--batch-sizes", "2", "--only", "mlp", "--reps", "1", "--update",
                   "--out", str(tmp_path)], run=_in_process, rows_found=dict(NO_CUDA, **{"torch/cpu": "not needed"}))
    assert rc == 0  # --update keeps the cnn cases run before
    names = [r["name"] for r in json.loads((tmp_path / "gpu.json").read_text())["results"]]
    assert names == ["cnn_4", "cnn_2", "mlp_2"]


def test_require_cuda_fails_without_cuda(tmp_path, capsys):
    ran = []
    rc = gpu.main(["--require-cuda", "--out", str(tmp_path)], run=ran.append, rows_found=NO_CUDA)
    assert rc == 1 and ran == []
    out = capsys.readouterr().out
    assert "the CUDA rows need a GPU" in out and "--require-cuda" in out
    assert not (tmp_path / "gpu.json").exists()


def test_probe_agrees_with_al_cuda():
    found = gpu.probe()
    assert (found["autograd_lab/cuda"] is None) == al.cuda.is_available()
    assert found["autograd_lab/cpu"] is None
