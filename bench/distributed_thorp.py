"""Episodes per second of the Thorp study's batched MC ES on 1 and on 2 data-parallel ranks, and the all-reduce cost.

Each run starts its ranks with torch.multiprocessing (gloo over 127.0.0.1, one torch thread a rank, as
`torchrun --standalone` would), plays one untimed warm-up batch, then times `--episodes` episodes of
`trainers.thorp.distributed.train` between barriers on rank 0 (start-up excluded). The all-reduce is timed twice:
inside the training loop, what it costs there (starting it, and the wait left once the rank has dealt its
next batch, the wait for the slower rank included), and alone, `--reduce-repeats` times back to back on
the same packed int64 tensor. Rounds alternate 1 and 2 ranks; the best round of each counts (a shared
machine only ever slows a run down), and the median of each round's 2-rank over 1-rank ratio is given too
(steadier when the machine's speed drifts between rounds). `cpu_efficiency` compares episodes per
CPU-second of the ranks (gloo's threads included): near 1 when two ranks waste no work, whatever else the
machine runs. One process also measures a rank's speed at smaller shares; the figures give the time of
10^11 hands on 8 and on 64 ranks.
Usage: python bench/distributed_thorp.py [--episodes 1e7] [--batch 131072] [--rounds 3] [--json PATH]
"""

from __future__ import annotations

import argparse
import math
import os
import socket
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

import torch
import torch.multiprocessing as mp

from rltorch import parallel
from rltorch.run.options import at_most, make_parser, positive_int, writable_file
from rltorch.run.output import print_json
from trainers.thorp import distributed
from trainers.thorp.engine import STATISTICS
from trainers.thorp.learning import make_engine

HANDS = 10**11
TARGET_WORLDS = (8, 64)
MAX_ROUNDS = 1000  # rounds of a measurement, at most


def free_port() -> int:
    """A TCP port on 127.0.0.1 that is free now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def worker(rank: int, world: int, port: int, episodes: int, batch: int, repeats: int, results: Any) -> None:
    """One rank: warm up, time training (and the all-reduces inside it), then time the all-reduce alone."""
    os.environ.update(RANK=str(rank), WORLD_SIZE=str(world), LOCAL_RANK=str(rank), MASTER_ADDR="127.0.0.1",
                      MASTER_PORT=str(port))
    torch.set_num_threads(1)
    parallel.init_from_env(timeout_s=300)
    engine = make_engine(0)
    distributed.start_streams(engine)
    distributed.train(engine, batch, batch)  # warm-up batch
    start_reduce, in_loop = parallel.start_all_reduce_sum, []

    def timed_reduce(tensor: torch.Tensor) -> Callable[[], torch.Tensor]:
        """The all-reduce with its exposed cost timed: starting it, and the wait left after the deal ahead."""
        started = time.perf_counter()
        wait = start_reduce(tensor)
        launched = time.perf_counter() - started

        def timed_wait() -> torch.Tensor:
            waited = time.perf_counter()
            wait()
            in_loop.append(launched + time.perf_counter() - waited)
            return tensor

        return timed_wait

    parallel.start_all_reduce_sum = timed_reduce
    parallel.barrier()
    start, cpu_start = time.perf_counter(), time.process_time()
    distributed.train(engine, episodes, batch)
    cpu_seconds = time.process_time() - cpu_start
    parallel.barrier()
    seconds = time.perf_counter() - start
    parallel.start_all_reduce_sum = start_reduce
    packed = torch.zeros(STATISTICS + distributed.STOP_SLOTS, dtype=torch.int64)
    parallel.barrier()
    alone_start = time.perf_counter()
    for _ in range(repeats):
        parallel.all_reduce_sum(packed)
    alone = (time.perf_counter() - alone_start) / repeats
    playing = seconds - sum(in_loop)
    share = math.ceil(batch / world)
    numbers = {"rank": rank, "seconds": seconds, "cpu_seconds": cpu_seconds,
               "in_loop_reduce_s": sum(in_loop) / len(in_loop), "alone_reduce_s": alone, "share": share,
               "rank_episodes_per_s": episodes / world / playing}
    gathered = parallel.gather_to_rank0(numbers)
    if gathered is not None:
        results.put(gathered)
    parallel.shutdown()


def run_world(world: int, episodes: int, batch: int, repeats: int) -> dict[str, Any]:
    """Start `world` ranks, time them; rank 0's wall time and the ranks' mean all-reduce and playing speed."""
    context = mp.get_context("spawn")
    results = context.SimpleQueue()
    mp.start_processes(worker, args=(world, free_port(), episodes, batch, repeats, results), nprocs=world,
                       start_method="spawn")
    ranks = results.get()
    seconds = ranks[0]["seconds"]
    return {"ranks": world, "episodes": episodes, "seconds": round(seconds, 3),
            "episodes_per_s": round(episodes / seconds),
            "rank_episodes_per_s": round(sum(r["rank_episodes_per_s"] for r in ranks) / world),
            "share": ranks[0]["share"],
            "episodes_per_cpu_s": round(episodes / sum(r["cpu_seconds"] for r in ranks)),
            "rank_episodes_per_cpu_s": round(sum(episodes / world / r["cpu_seconds"] for r in ranks) / world),
            "reduce_in_loop_ms": round(1e3 * sum(r["in_loop_reduce_s"] for r in ranks) / world, 4),
            "reduce_alone_ms": round(1e3 * sum(r["alone_reduce_s"] for r in ranks) / world, 4)}


def share_speeds(shares: list[int], episodes: int) -> dict[int, float]:
    """Episodes per CPU-second of one process playing batches of each size (how a rank's speed varies with share)."""
    torch.set_num_threads(1)
    speeds = {}
    for share in shares:
        engine = make_engine(0).train(share, batch=share)
        count = max(share, episodes // share * share)
        start = time.process_time()
        engine.train(count, batch=share)
        speeds[share] = round(count / (time.process_time() - start))
    return speeds


def estimate(world: int, share: int, rank_speed: float, reduce_s: float, basis: str) -> dict[str, Any]:
    """Hours for 10^11 hands on `world` ranks, each playing `share` a batch at `rank_speed`, reducing in `reduce_s`."""
    reduce_world = reduce_s * math.log2(world)  # measured on 2 ranks (log2 2 = 1), grown like a tree
    batch_seconds = share / rank_speed + reduce_world
    batches = HANDS / (share * world)
    return {"ranks": world, "batch": share * world, "share": share, "speed": basis,
            "rank_episodes_per_s": round(rank_speed),
            "reduce_ms": round(1e3 * reduce_world, 3), "batches": round(batches),
            "hours": round(batches * batch_seconds / 3600, 2),
            "reduce_share": round(reduce_world / batch_seconds, 4)}


def measure(episodes: int, batch: int, rounds: int, repeats: int) -> dict[str, Any]:
    """Alternate 1- and 2-rank rounds, keep the best of each, measure shares, estimate 10^11 hands."""
    load_before = os.getloadavg()
    best: dict[int, dict[str, Any]] = {}
    every: dict[int, list[int]] = {1: [], 2: []}
    for _ in range(rounds):
        for world in (1, 2):
            result = run_world(world, episodes, batch, repeats)
            every[world].append(result["episodes_per_s"])
            if world not in best or result["episodes_per_s"] > best[world]["episodes_per_s"]:
                best[world] = result
    two = best[2]
    paired = [round(b / a, 3) for a, b in zip(every[1], every[2], strict=True)]  # each round's 2 ranks over its 1
    shares = sorted({two["share"], *(math.ceil(batch / world) for world in TARGET_WORLDS)})
    speeds = share_speeds(shares, min(episodes, 4_000_000))
    reduce_s = min(two["reduce_alone_ms"], two["reduce_in_loop_ms"]) / 1e3
    bases = {"wall clock, as measured here": two["rank_episodes_per_s"],
             "CPU time: a core to itself": two["rank_episodes_per_cpu_s"]}
    rows = [estimate(world, share, speed * speeds[share] / speeds[two["share"]], reduce_s, basis)
            for basis, speed in bases.items() for world in TARGET_WORLDS
            for share in (two["share"], math.ceil(batch / world))]
    return {
        "machine": {"cpus": os.cpu_count(), "torch": torch.__version__, "load_before": load_before,
                    "load_after": os.getloadavg()},
        "batch": batch, "one_rank": best[1], "two_ranks": two, "every_round_episodes_per_s": every,
        "speed_up": round(two["episodes_per_s"] / best[1]["episodes_per_s"], 3),
        "paired_speed_ups": paired, "median_paired_speed_up": round(statistics.median(paired), 3),
        "cpu_efficiency": round(two["episodes_per_cpu_s"] / best[1]["episodes_per_cpu_s"], 3),
        "share_speeds_one_process": speeds,
        "estimate_1e11": {
            "assumptions": ("each rank plays as fast as a rank of the measured 2-rank run (by wall clock, or by its "
                            "CPU time: a core to itself), scaled by the one-process speed at its share; one thread "
                            "a rank; each rank plays the measured share (batch grows with the ranks) or the batch "
                            "stays as measured (shares shrink); the all-reduce costs the 2-rank measurement alone "
                            "times log2(ranks); nothing else (start-up, logging, checkpoints)"),
            "rows": rows},
    }


def build_parser() -> argparse.ArgumentParser:
    """The script's options."""
    parser = make_parser(__doc__)
    parser.add_argument("--episodes", type=at_most(positive_int, 10**12), default=10_000_000,
                        help="episodes timed in each run")
    parser.add_argument("--batch", type=at_most(positive_int, 1 << 24), default=1 << 17,
                        help="episodes per batch, over all ranks")
    parser.add_argument("--rounds", type=at_most(positive_int, MAX_ROUNDS), default=3,
                        help="rounds of (1 rank, 2 ranks); best counts")
    parser.add_argument("--reduce-repeats", type=at_most(positive_int, 10**6), default=500,
                        help="all-reduces timed alone")
    parser.add_argument("--json", type=writable_file, help="also write the results to this JSON file")
    return parser


def main(argv: list[str] | None = None) -> int:
    """Parse the options, measure, print (and save) the JSON."""
    args = build_parser().parse_args(argv)
    print_json(measure(args.episodes, args.batch, args.rounds, args.reduce_repeats), args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
