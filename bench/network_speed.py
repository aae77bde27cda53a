"""Network value-function speed: `fit` updates per second (batch 1 and a DQN minibatch) and reads.

Runs on the CPU, and on a GPU too when one is present (nothing requires one).
Usage: python bench/network_speed.py [--seconds 3] [--json PATH]
"""

from __future__ import annotations

import argparse
import json
import random
import time

import torch

from rltorch.envs.tictactoe.encoder import BoardEncoder
from rltorch.envs.tictactoe.solver import reachable_positions
from rltorch.run.options import at_most, make_parser, positive_float, positive_int, writable_file
from rltorch.values.networks import VNetwork


def rate(step, seconds: float) -> float:
    """Calls of `step` per second over about `seconds`."""
    calls, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        step()
        calls += 1
    return calls / (time.perf_counter() - start)


def measure(device: str, seconds: float) -> dict[str, float]:
    """Updates and reads per second of an afterstate VNetwork (hidden 64) on `device`."""
    torch.manual_seed(0)
    network = VNetwork(BoardEncoder(), (64,), 1e-3, device, threads=None)  # keep --threads
    rng = random.Random(0)
    boards = sorted(reachable_positions())
    batch = [rng.choice(boards) for _ in range(32)]
    targets = [rng.uniform(-1, 1) for _ in range(32)]
    return {
        "updates_per_second_batch1": rate(lambda: network.update(batch[0], 0.5), seconds),
        "updates_per_second_batch32": rate(lambda: network.fit(batch, targets), seconds),
        "reads_per_second_5_keys": rate(lambda: network.values(batch[:5]), seconds),
    }


def build_parser() -> argparse.ArgumentParser:
    """The script's options."""
    parser = make_parser(__doc__)
    parser.add_argument("--seconds", type=at_most(positive_float, 3600.0), default=3.0, help="seconds per measurement")
    parser.add_argument("--threads", type=at_most(positive_int, 256), default=1, help="torch CPU threads")
    parser.add_argument("--json", type=writable_file, help="write the figures here")
    return parser


def main(argv: list[str] | None = None) -> dict:
    """Measure on each available device and print the figures."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if not args.seconds > 0:
        parser.error(f"--seconds must be positive, got {args.seconds}")
    torch.set_num_threads(args.threads)
    devices = ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])
    results = {device: measure(device, args.seconds) for device in devices}
    for device, figures in results.items():
        print(device, ", ".join(f"{name} {value:,.0f}" for name, value in figures.items()))
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n")
    return results


if __name__ == "__main__":
    main()
