"""Data-parallel Thorp MC ES on loopback gloo ranks: same table everywhere, one-process equality, lost ranks, resume."""

import copy
import json
import signal
import sys
import time
from pathlib import Path

import numpy as np
import pytest
import torch

from rltorch import parallel
from rltorch.logger import NullLogger
from tests.helpers import launch, stop_all
from trainers.thorp import distributed
from trainers.thorp import study as script
from trainers.thorp.engine import STATISTICS
from trainers.thorp.learning import make_engine

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "trainers" / "thorp" / "study.py"

EPISODES, BATCH, RESUMED = 50_000, 20_001, 80_000  # an odd batch: the ranks' shares differ by one
# Each rank runs the study's main (its report stubbed), keeps the engine train_batched returned, saves its table.
WORKER = """
import os, sys, torch
from trainers.thorp import study as script
held, original = {}, script.train_batched
def capture(*args, **kwargs):
    held["engine"], seconds = original(*args, **kwargs)
    return held["engine"], seconds
script.train_batched = capture
# The report's exact-play comparison and figures cost seconds of CPU and are tested in one process elsewhere.
script.log_policy = lambda *args: None
script.learning.agreement = lambda *args: {"clear_disagreements": []}
script.draw_figures = lambda *args: {}
script.report_markdown = lambda *args: "report"
status = script.main(sys.argv[2:])
e = held["engine"]
torch.save({"sums": e.sums, "counts": e.counts, "episodes": e.episodes, "peeked": e.peeked_naturals,
            "status": status}, os.path.join(sys.argv[1], "rank%s.pt" % os.environ["RANK"]))
sys.exit(status)
"""


pytestmark = pytest.mark.usefixtures("one_thread")


def emulate(world: int, episodes: int, batch: int, engine=None, seed: int = 0):
    """One process playing rank r's share of every batch with rank r's documented stream, for r = 0, 1, ..."""
    engine = engine or make_engine(seed)
    start = engine.episodes
    seeds = [seed if (world, start) == (1, 0) else
             int(np.random.SeedSequence(seed, spawn_key=(world, start, rank)).generate_state(1, np.uint64)[0])
             for rank in range(world)]
    streams = [torch.Generator().manual_seed(s) for s in seeds]
    done = 0
    while done < episodes:
        size = min(batch, episodes - done)
        total = torch.zeros(STATISTICS, dtype=torch.int64)
        for rank, stream in enumerate(streams):
            engine.generator = stream
            engine.play_batch(size // world + (rank < size % world), out=total)
        engine.add_statistics(total)
        done += size
    return engine


@pytest.fixture(scope="module")
def two_ranks(tmp_path_factory):
    """The study script run as 2 gloo ranks: each rank's final table, rank 0's checkpoint and JSON."""
    folder = tmp_path_factory.mktemp("two_ranks")
    argv = ["--episodes", EPISODES, "--batch", BATCH, "--soft18-episodes", 0, "--no-progress", "--log-every", "1e9",
            "--out", "out", "--log-dir", "runs", "--run-name", "r", "--checkpoint", "c.pt", "--json", "m.json",
            "--dpi", 20, "--dist-timeout", 30]
    ranks = launch([sys.executable, "-c", WORKER, str(folder), *map(str, argv)], 2, folder, "run")
    try:
        statuses = [process.wait(timeout=120) for process in ranks]
    finally:
        stop_all(ranks)
    errors = [(folder / f"run.{rank}.err").read_text() for rank in range(2)]
    assert statuses == [0, 0], errors
    return folder


def test_shard_and_rank_seed_are_deterministic_slices_and_streams():
    assert [parallel.shard(10, r, 3) for r in range(3)] == [range(0, 4), range(4, 7), range(7, 10)]
    assert [len(parallel.shard(2, r, 4)) for r in range(4)] == [1, 1, 0, 0]
    with pytest.raises(ValueError):
        parallel.shard(5, 2, 2)
    assert parallel.rank_seed(3, 1, 2, 7) == parallel.rank_seed(3, 1, 2, 7) != parallel.rank_seed(3, 0, 2, 7)
    assert parallel.rank_seed(3, 1, 2, 7) != parallel.rank_seed(3, 1, 4, 7)
    assert parallel.init_from_env() == (0, 1) and parallel.world_size() == 1 and parallel.is_rank0()
    tensor = torch.arange(3)
    assert parallel.all_reduce_sum(tensor) is tensor and parallel.gather_to_rank0("x") == ["x"]
    assert parallel.broadcast_from_rank0(5) == 5


def test_a_stop_or_a_save_between_batches_continues_as_the_straight_run():
    # Mutant: the stream not put back before the callback and the stop (the next deal already drawn) fails.
    saved = []
    straight = make_engine(0)
    distributed.start_streams(straight)
    distributed.train(straight, 30_000, 10_000,
                            callback=lambda engine, size: saved.append(copy.deepcopy(engine.state_dict())))
    resumed = make_engine(0)
    resumed.load_state_dict(saved[0])
    distributed.train(resumed, 20_000, 10_000)
    stopped = make_engine(0)
    distributed.start_streams(stopped)
    assert distributed.train(stopped, 30_000, 10_000, stop=lambda: signal.SIGTERM) == signal.SIGTERM
    assert stopped.episodes == 10_000
    distributed.train(stopped, 20_000, 10_000)
    for engine in (resumed, stopped):
        assert torch.equal(engine.sums, straight.sums) and torch.equal(engine.counts, straight.counts)
        assert torch.equal(engine.generator.get_state(), straight.generator.get_state())


def test_two_ranks_hold_the_same_table(two_ranks):
    first, second = (torch.load(two_ranks / f"rank{rank}.pt", weights_only=True) for rank in range(2))
    assert first["episodes"] == second["episodes"] == EPISODES and first["status"] == second["status"] == 0
    assert torch.equal(first["sums"], second["sums"]) and torch.equal(first["counts"], second["counts"])
    assert first["peeked"] == second["peeked"] > 0 and int(first["counts"].sum()) > EPISODES
    metrics = json.loads((two_ranks / "m.json").read_text())
    assert metrics["ranks"] == 2 and metrics["episodes"] == EPISODES
    assert {path.name for path in two_ranks.iterdir()} >= {"c.pt", "m.json", "out", "runs"}


def test_two_ranks_equal_one_process_playing_both_shares(two_ranks):
    held = torch.load(two_ranks / "rank0.pt", weights_only=True)
    alone = emulate(2, EPISODES, BATCH)
    assert torch.equal(alone.sums, held["sums"]) and torch.equal(alone.counts, held["counts"])
    assert alone.peeked_naturals == held["peeked"]
    one_rank = make_engine(0).train(EPISODES, batch=BATCH)
    assert not torch.equal(one_rank.sums, held["sums"])  # the result depends on the number of ranks


def test_resume_with_another_number_of_ranks(two_ranks):
    saved = torch.load(two_ranks / "c.pt", weights_only=True)["engine"]
    held = torch.load(two_ranks / "rank0.pt", weights_only=True)
    assert saved["world"] == 2 and len(saved["generators"]) == 2 and saved["episodes"] == EPISODES
    assert torch.equal(saved["sums"], held["sums"]) and torch.equal(saved["counts"], held["counts"])
    args = script.build_parser().parse_args(["--episodes", str(RESUMED), "--batch", str(BATCH), "--resume",
                                             str(two_ranks / "c.pt"), "--no-progress"])
    resumed, _ = script.train_batched(args, NullLogger())  # one process: world 1
    expected = emulate(1, RESUMED - EPISODES, BATCH, engine=emulate(2, EPISODES, BATCH))
    assert resumed.episodes == RESUMED
    assert torch.equal(resumed.sums, expected.sums) and torch.equal(resumed.counts, expected.counts)
    assert bool((resumed.counts >= saved["counts"]).all()) and not torch.equal(resumed.counts, saved["counts"])


SCENARIOS = {"kill-1": (signal.SIGKILL, 1, 30), "hang-0": (signal.SIGSTOP, 0, 4)}  # (signal, victim, --dist-timeout)


def test_a_lost_rank_makes_the_other_exit_with_one_line_within_20_s(tmp_path):
    """Two 2-rank runs at once; once both train, one loses rank 1 (killed), the other rank 0 (stopped: a hang).

    Rank 0 saves every 20,000 episodes (--checkpoint-every): the saved state is what a new run resumes from.
    """
    runs = {}
    for name, (_, _, timeout_s) in SCENARIOS.items():
        argv = ["--episodes", "1e10", "--batch", "1e4", "--soft18-episodes", 0, "--no-progress", "--log-dir", name,
                "--run-name", "k", "--checkpoint", f"{name}.pt", "--checkpoint-every", "2e4",
                "--dist-timeout", timeout_s]
        runs[name] = launch([sys.executable, str(SCRIPT), *map(str, argv)], 2, tmp_path, name)
    outcome = {}
    try:
        deadline = time.monotonic() + 90
        while not all((tmp_path / f"{name}.pt").exists() for name in runs):  # saved after 20,000: both ranks train
            assert time.monotonic() < deadline, "the ranks never started"
            assert all(p.poll() is None for ranks in runs.values() for p in ranks), "a rank ended early"
            time.sleep(0.05)
        lost_at = time.monotonic()
        for name, (sig, victim, _) in SCENARIOS.items():
            runs[name][victim].send_signal(sig)
        for name, (_, victim, _) in SCENARIOS.items():
            status = runs[name][1 - victim].wait(timeout=max(1.0, lost_at + 20 - time.monotonic()))
            outcome[name] = status, time.monotonic() - lost_at
    finally:
        for ranks in runs.values():
            stop_all(ranks)
    for name, (sig, victim, timeout_s) in SCENARIOS.items():
        status, seconds = outcome[name]
        err = (tmp_path / f"{name}.{1 - victim}.err").read_text()
        assert status == 1 and seconds < 20, (name, status, seconds, err)
        assert err.startswith(f"rank {1 - victim}: lost contact with the other ranks (") and err.count("\n") == 1, err
        if sig == signal.SIGSTOP:
            assert "Timed out" in err and seconds >= timeout_s - 1, err
    saved = torch.load(tmp_path / "kill-1.pt", weights_only=True)["engine"]  # rank 0's last --checkpoint-every save
    assert saved["world"] == 2 and len(saved["generators"]) == 2 and saved["episodes"] % 20_000 == 0
    assert int(saved["counts"].sum()) > 0
