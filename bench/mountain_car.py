"""Agent steps per second on Mountain Car with tile coding: the batched engine, the per-step trainer, plain Python.

The work: Figure 10.2's, semi-gradient SARSA with 8 tilings of 8 x 8 tiles, alpha = 0.5/8, epsilon 0, gamma 1,
zero weights, no time limit. (a) The batched engine (`trainers.chapter10.engine.Lanes`) plays --runs runs of
--episodes episodes as one batch (one thread, its compilation outside the timing). (b) `rltorch`'s
`SARSATrainer` with a `LinearValueFunction` over a `TileCoder` on Gymnasium's `MountainCar-v0`
(`rltorch.run.envs.make_env`, no time limit) and (c) a plain-Python loop with a one-page tiles3-style coder
(`bench/plain_mountain_car.py`) each play --sequential-runs runs of --sequential-episodes episodes. Each is
timed in process CPU time and wall time, best of --rounds rounds; rates are agent steps (the sum of the
episode lengths) per second; printed with the engine's rate over the plain loop's (target: 50x) and over the
per-step trainer's.
Usage: python bench/mountain_car.py [--runs 100] [--episodes 500] [--json PATH]
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable

import torch
from plain_mountain_car import sarsa as plain_sarsa

from rltorch.policies import ConstantSchedule
from rltorch.run.envs import make_env
from rltorch.run.options import at_most, make_parser, non_negative_int, positive_int, writable_file
from rltorch.trainers import SARSATrainer
from rltorch.values.linear import LinearValueFunction
from trainers.chapter10.engine import ACTIONS, CODES, Lanes, Settings, book_coder

ALPHA = 0.5 / 8
TARGET = 50.0  # the engine's steps per CPU second over the plain loop's, at least
SETTINGS = Settings(CODES["sarsa"], ALPHA, 0.0, 1.0, 0.0, 1, 10_000)


def batched(runs: int, episodes: int, seed: int) -> int:
    """The engine's lanes for `runs` runs of `episodes` episodes; the agent steps."""
    return int(Lanes(seed, range(runs), book_coder(), SETTINGS).play(episodes).sum())


def per_step_trainer(runs: int, episodes: int, seed: int) -> int:
    """`SARSATrainer` with tile coding on MountainCar-v0 without a time limit, run after run; the agent steps."""
    steps = 0
    for run in range(runs):
        env = make_env("MountainCar-v0", {"max_episode_steps": 0})
        trainer = SARSATrainer(env, LinearValueFunction(book_coder(), ALPHA, ACTIONS), gamma=1.0,
                               schedule=ConstantSchedule(0.0), seed=seed + run)
        trainer.train(episodes, eval_every=0, progress=False)
        steps += trainer.steps_done
    return steps


def timed(work: Callable[[], int], rounds: int) -> dict[str, float]:
    """The best round's steps per CPU second and per wall second, and its step count."""
    best: dict[str, float] = {}
    for _ in range(rounds):
        cpu, wall = time.process_time(), time.perf_counter()
        steps = work()
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
        if not best or steps / cpu > best["steps_per_cpu_second"]:
            best = {"steps": steps, "cpu_seconds": round(cpu, 3), "wall_seconds": round(wall, 3),
                    "steps_per_cpu_second": steps / cpu, "steps_per_second": steps / wall}
    return best


def measure(args: argparse.Namespace) -> dict[str, dict[str, float]]:
    """Every contender's best round."""
    batched(2, 1, args.seed)  # compile outside the timing
    contenders = {
        "batched_engine": lambda: batched(args.runs, args.episodes, args.seed),
        "per_step_trainer": lambda: per_step_trainer(args.sequential_runs, args.sequential_episodes, args.seed),
        "plain_python": lambda: plain_sarsa(args.sequential_runs, args.sequential_episodes, ALPHA * 8, args.seed),
    }
    return {name: timed(work, args.rounds) for name, work in contenders.items()}


def build_parser() -> argparse.ArgumentParser:
    """The script's options."""
    parser = make_parser(__doc__.split("\n")[0], prog="bench/mountain_car.py")
    parser.add_argument("--runs", type=at_most(positive_int, 10_000), default=100, help="runs in the engine's batch")
    parser.add_argument("--episodes", type=at_most(positive_int, 10_000), default=500, help="episodes per run")
    parser.add_argument("--sequential-runs", type=at_most(positive_int, 1000), default=1,
                        help="runs of the per-step trainer and of the plain loop")
    parser.add_argument("--sequential-episodes", type=at_most(positive_int, 10_000), default=50,
                        help="episodes per run of the per-step trainer and of the plain loop")
    parser.add_argument("--rounds", type=at_most(positive_int, 100), default=1, help="rounds; the best counts")
    parser.add_argument("--seed", type=at_most(non_negative_int, 2**32 - 1), default=0, help="base seed")
    parser.add_argument("--json", type=writable_file, help="also write the results here")
    return parser


def main(argv: list[str] | None = None) -> None:
    """Run the contenders and print their rates, the engine's ratios and Figure 10.2's estimated times."""
    args = build_parser().parse_args(argv)
    torch.set_num_threads(1)
    results = measure(args)
    engine = results["batched_engine"]["steps_per_cpu_second"]
    for name, result in results.items():
        print(f"{name:18s} {result['steps_per_cpu_second']:>13,.0f} steps per CPU second "
              f"({result['steps']:,} steps in {result['cpu_seconds']} s CPU, {result['wall_seconds']} s wall)")
    ratios = {name: engine / result["steps_per_cpu_second"] for name, result in results.items()}
    print(f"engine / plain Python: {ratios['plain_python']:.0f}x (target {TARGET:.0f}x); "
          f"engine / per-step trainer: {ratios['per_step_trainer']:.0f}x")
    if args.json:
        args.json.write_text(json.dumps({"results": results, "ratios": ratios, "args": vars(args)}, indent=2,
                                        default=str) + "\n")


if __name__ == "__main__":
    main()
