"""Figure 6.3 shared out over 2 gloo ranks gives the one-process sums to the last bit; `map_sharded` alone."""

import json
import sys

import numpy as np
import pytest
import torch

from rltorch import parallel
from rltorch.engines import BatchedEngine
from tests.helpers import launch, stop_all
from trainers.chapter6 import figure_6_3
from trainers.chapter6.figure_6_3_curves import cliff_model

# 45 interim runs in 45 one-run chunks over 2 ranks (23 + 22); 3 asymptotic runs with 20-episode curve points.
ARGV = ["--runs-interim", "45", "--episodes-interim", "7", "--runs-asymptotic", "3", "--episodes-asymptotic", "2000",
        "--alphas", "0.3", "1.0", "--device", "cpu", "--threads", "1", "--no-progress", "--dpi", "20",
        "--log-dir", "runs", "--run-name", "f", "--json", "f.json", "--dist-timeout", "30"]
FIELDS = ("mean_sums", "square_sums", "block_sums")
# Each rank runs the script's main, keeps the sums run_phases returned and saves them at full precision.
WORKER = """
import os, sys, numpy as np
from trainers.chapter6 import figure_6_3
held, original = {}, figure_6_3.run_phases
def capture(args, engine):
    held["results"], seconds = original(args, engine)
    return held["results"], seconds
figure_6_3.run_phases = capture
status = figure_6_3.main(sys.argv[2:])
arrays = {f"{phase}.{field}": getattr(sums, field) for phase, sums in held["results"].items()
          for field in ("mean_sums", "square_sums", "block_sums")}
arrays.update({f"{phase}.counts": np.array([sums.runs, sums.steps]) for phase, sums in held["results"].items()})
np.savez(os.path.join(sys.argv[1], "rank%s.npz" % os.environ["RANK"]), **arrays)
sys.exit(status)
"""

pytestmark = pytest.mark.usefixtures("one_thread")


def one_process_sums() -> dict[str, np.ndarray]:
    """The same figure computed here, in one process, as the arrays the worker saves."""
    args = figure_6_3.build_parser().parse_args(ARGV)
    results, _ = figure_6_3.run_phases(args, BatchedEngine(cliff_model(), threads=1))
    arrays = {f"{phase}.{field}": getattr(sums, field) for phase, sums in results.items() for field in FIELDS}
    arrays.update({f"{phase}.counts": np.array([sums.runs, sums.steps]) for phase, sums in results.items()})
    return arrays


def test_two_ranks_give_the_one_process_figure_to_the_last_bit(tmp_path):
    # Mutants: a rank folding only its own chunks (no all-gather), or chunks cut by the number of ranks, fail.
    ranks = launch([sys.executable, "-c", WORKER, str(tmp_path), *ARGV], 2, tmp_path, "fig")
    try:
        statuses = [process.wait(timeout=120) for process in ranks]
    finally:
        stop_all(ranks)
    assert statuses == [0, 0], [(tmp_path / f"fig.{rank}.err").read_text() for rank in range(2)]
    alone = one_process_sums()
    for rank in range(2):
        held = np.load(tmp_path / f"rank{rank}.npz")
        assert set(held.files) == set(alone)
        for name, expected in alone.items():
            assert np.array_equal(held[name], expected), (rank, name)
    assert alone["interim.counts"][0] == 45 and alone["asymptotic.counts"][0] == 3
    assert alone["asymptotic.block_sums"].shape == (3, 2, 100)
    report = json.loads((tmp_path / "f.json").read_text())
    assert report["ranks"] == 2 and report["runs_interim"] == 45
    assert [path.name for path in (tmp_path / "runs").iterdir()] == ["f"]  # rank 0 alone wrote


def test_map_sharded_in_one_process_keeps_the_order_and_reports_each_round():
    rounds = []
    squares = parallel.map_sharded(lambda items: [item * item for item in items], list(range(7)), rounds=3,
                                   progress=lambda items: rounds.append(list(items)))
    assert squares == [0, 1, 4, 9, 16, 25, 36]
    assert rounds == [[0, 1, 2], [3, 4, 5], [6]]
    with pytest.raises(ValueError, match="2 results for 3 items"):
        parallel.map_sharded(lambda items: items[:2], list(range(3)), rounds=1)


def test_ranks_on_gpus_take_their_local_gpu_and_nccl(monkeypatch):
    # Mutant: local_device ignoring LOCAL_RANK (every rank on cuda:0) fails.
    import torch.distributed as dist

    monkeypatch.setenv("WORLD_SIZE", "4")
    monkeypatch.setenv("LOCAL_RANK", "1")
    monkeypatch.setenv("LOCAL_WORLD_SIZE", "2")
    assert parallel.local_device("cuda") == torch.device("cuda", 1)
    assert parallel.local_device("cuda:0") == torch.device("cuda", 0) and parallel.local_device("cpu").type == "cpu"
    assert parallel.resolve_backend("auto", "cuda") == ("nccl" if dist.is_nccl_available() else "gloo")
    assert parallel.resolve_backend("auto", "cpu") == "gloo" and parallel.local_world() == 2


def test_figure_on_a_missing_gpu_is_one_line_and_no_file(tmp_path, capsys):
    if torch.cuda.is_available():
        pytest.skip("this machine has a GPU")
    status = figure_6_3.main(["--device", "cuda", "--log-dir", str(tmp_path / "runs"), "--no-progress"])
    assert status == 1 and "cuda" in capsys.readouterr().err and not (tmp_path / "runs").exists()
