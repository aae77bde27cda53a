"""Moves per second of TD-afterstate learning on 4x4 2048 with an n-tuple network, three ways side by side:
a plain-Python loop (bench/plain_2048.py), rltorch's per-step QLearningTrainer over (afterstate, reward) keys,
and the compiled loop (rltorch.engines.afterstate2048). Each learns from a fresh network, seed 0, timed in
process CPU time after a warm-up game (numba's compilation is cached apart from it); the compiled loop plays
more games, so its games are longer on average (moves per second still compares).
Usage: python bench/game2048_speed.py [--games 30] [--compiled-games 2000] [--json PATH]
"""

from __future__ import annotations

import argparse
import json
import time

import gymnasium as gym
import plain_2048

import rltorch.envs  # noqa: F401
from rltorch.engines.afterstate2048 import CompiledAfterstateLearner
from rltorch.envs.game2048.env import afterstate
from rltorch.keys import AfterstateKeys
from rltorch.policies import ConstantSchedule
from rltorch.run.options import at_most, make_parser, positive_int, writable_file
from rltorch.trainers import QLearningTrainer
from rltorch.values import NTupleNetwork


def per_step(games: int) -> tuple[int, float]:
    """Moves and CPU seconds of rltorch's per-step trainer."""
    env = gym.make("rltorch/2048-v0", size=4, disable_env_checker=True)
    trainer = QLearningTrainer(env, NTupleNetwork(4), keys=AfterstateKeys(afterstate), gamma=1.0,
                               schedule=ConstantSchedule(0.0), seed=0)
    trainer.run_episode(0.0)
    steps, start = trainer.steps_done, time.process_time()
    for _ in range(games):
        trainer.run_episode(0.0)
    return trainer.steps_done - steps, time.process_time() - start


def compiled(games: int) -> tuple[int, float]:
    """Moves and CPU seconds of the compiled loop."""
    learner = CompiledAfterstateLearner(NTupleNetwork(4), seed=0)
    learner.run(1)
    start = time.process_time()
    moves = int(learner.run(games)[:, 2].sum())
    return moves, time.process_time() - start


def build_parser() -> argparse.ArgumentParser:
    """The script's options."""
    parser = make_parser(__doc__)
    parser.add_argument("--games", type=at_most(positive_int, 10**6), default=30,
                        help="games of the plain loop and of the per-step trainer")
    parser.add_argument("--compiled-games", type=at_most(positive_int, 10**8), default=2000,
                        help="games of the compiled loop")
    parser.add_argument("--json", type=writable_file, help="write the figures to this JSON file")
    return parser


def main(argv: list[str] | None = None) -> int:
    """Time the three forms and print a table."""
    args = build_parser().parse_args(argv)
    rows = {"plain Python loop": plain_2048.train(args.games), "rltorch per-step trainer": per_step(args.games),
            "compiled loop (numba)": compiled(args.compiled_games)}
    base = rows["plain Python loop"][0] / rows["plain Python loop"][1]
    figures = {}
    print("| form | moves | CPU s | moves/s | vs plain |\n| --- | --- | --- | --- | --- |")
    for name, (moves, seconds) in rows.items():
        speed = moves / seconds
        figures[name] = {"moves": moves, "cpu_seconds": seconds, "moves_per_second": speed}
        print(f"| {name} | {moves:,} | {seconds:.1f} | {speed:,.0f} | {speed / base:.1f}x |")
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
