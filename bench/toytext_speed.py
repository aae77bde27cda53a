"""Env steps per second: rltorch's QLearningTrainer (TensorBoard logging on) against the plain Gymnasium loop.

Both learn with tabular Q-learning (same alpha, gamma and constant epsilon) on an env made by
`gym.make(id)`, stepped through Gymnasium's wrappers: the plain loop of `plain_qlearning.py`, and
`QLearningTrainer.train` with a `TensorBoardLogger` into a temporary folder (log_every 100, no
evaluations, no progress bar). Each run is timed whole (making the env, the logger and the trainer,
training, closing the logger) in process CPU time, TensorBoard's writer thread included. The two
alternate for several rounds and the best round of each counts: the one least disturbed by the
rest of the machine. Both make the same random draws from the same seeds, so they play the same
episodes: the step counts must agree. The target: rltorch at least 1/1.3 of the plain loop's speed.
Usage: python bench/toytext_speed.py [--episodes 20000] [--rounds 3] [--json PATH]
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from dataclasses import dataclass

import gymnasium as gym
import plain_qlearning

from rltorch import QLearningTrainer, QTable
from rltorch.logger import TensorBoardLogger
from rltorch.policies import ConstantSchedule
from rltorch.run.options import at_most, make_parser, positive_int, step_size, unit_float, writable_file

ENV_IDS = ("FrozenLake-v1", "CliffWalking-v1")
TARGET_RATIO = 1 / 1.3  # rltorch's steps/s over the plain loop's, at least
MAX_ROUNDS = 1000  # rounds of a measurement, at most


@dataclass(frozen=True)
class Settings:
    """The learning settings both runs share."""

    alpha: float
    gamma: float
    epsilon: float


def plain_run(env_id: str, episodes: int, seed: int, settings: Settings) -> tuple[float, int]:
    """Steps per second of CPU time of the plain loop, and its step count."""
    start = time.process_time()
    _, steps = plain_qlearning.train(env_id, episodes, seed, settings.alpha, settings.gamma, settings.epsilon)
    return steps / (time.process_time() - start), steps


def rltorch_run(env_id: str, episodes: int, seed: int, settings: Settings, log_dir: str) -> tuple[float, int]:
    """Steps per second of CPU time of QLearningTrainer with TensorBoard logging, and its step count."""
    start = time.process_time()
    env = gym.make(env_id)
    logger = TensorBoardLogger(log_dir)
    trainer = QLearningTrainer(env, QTable(alpha=settings.alpha), gamma=settings.gamma,
                               schedule=ConstantSchedule(settings.epsilon), seed=seed, logger=logger)
    trainer.train(episodes, log_every=100, eval_every=0, progress=False)
    logger.close()
    env.close()
    return trainer.steps_done / (time.process_time() - start), trainer.steps_done


def measure(env_ids: tuple[str, ...], episodes: int, rounds: int, settings: Settings) -> dict[str, dict]:
    """Per env: every round's steps/s of each, the step counts, the best and median of each and the ratio."""
    speeds = {env_id: {"plain": [], "rltorch": []} for env_id in env_ids}
    steps: dict[str, dict[str, list[int]]] = {env_id: {"plain": [], "rltorch": []} for env_id in env_ids}
    with tempfile.TemporaryDirectory() as log_root:
        for round_index in range(rounds):
            for env_id in env_ids:
                runs = {
                    "plain": plain_run(env_id, episodes, round_index, settings),
                    "rltorch": rltorch_run(env_id, episodes, round_index, settings,
                                           f"{log_root}/{env_id}-{round_index}"),
                }
                for name, (speed, count) in runs.items():
                    speeds[env_id][name].append(speed)
                    steps[env_id][name].append(count)
                print(f"round {round_index + 1} {env_id:<16} plain {runs['plain'][0]:>10,.0f} steps/s   "
                      f"rltorch {runs['rltorch'][0]:>10,.0f} steps/s   ({runs['plain'][1]:,} / "
                      f"{runs['rltorch'][1]:,} steps)", flush=True)
    results = {}
    for env_id in env_ids:
        plain, framework = speeds[env_id]["plain"], speeds[env_id]["rltorch"]
        results[env_id] = {
            "plain_rounds": plain, "rltorch_rounds": framework,
            "plain_steps": steps[env_id]["plain"], "rltorch_steps": steps[env_id]["rltorch"],
            "same_episodes": steps[env_id]["plain"] == steps[env_id]["rltorch"],
            "plain_best": max(plain), "rltorch_best": max(framework),
            "plain_median": statistics.median(plain), "rltorch_median": statistics.median(framework),
            "ratio_best": max(framework) / max(plain),
        }
        results[env_id]["target_met"] = results[env_id]["ratio_best"] >= TARGET_RATIO
    return results


def print_table(results: dict[str, dict]) -> None:
    """The best round of each, side by side, with the ratio against the target."""
    print(f"\n{'env':<16} {'plain steps/s':>14} {'rltorch steps/s':>16} {'rltorch/plain':>14}  "
          f"target >= {TARGET_RATIO:.3f}  same episodes")
    for env_id, row in results.items():
        print(f"{env_id:<16} {row['plain_best']:>14,.0f} {row['rltorch_best']:>16,.0f} {row['ratio_best']:>14.3f}  "
              f"{'met' if row['target_met'] else 'MISSED':<17}  {'yes' if row['same_episodes'] else 'NO'}")


def build_parser() -> argparse.ArgumentParser:
    """The script's options."""
    parser = make_parser(__doc__)
    parser.add_argument("--episodes", type=at_most(positive_int, 10**8), default=20_000, help="episodes per run")
    parser.add_argument("--rounds", type=at_most(positive_int, MAX_ROUNDS), default=3,
                        help="alternating rounds of each")
    parser.add_argument("--envs", nargs="+", default=list(ENV_IDS), metavar="ID", help="Gymnasium env ids")
    parser.add_argument("--alpha", type=step_size, default=0.1, help="step size")
    parser.add_argument("--gamma", type=unit_float, default=0.99, help="discount")
    parser.add_argument("--epsilon", type=unit_float, default=0.1, help="constant exploration rate")
    parser.add_argument("--json", type=writable_file, help="write the figures to this file")
    return parser


def main(argv: list[str] | None = None) -> dict:
    """Parse the options, run the rounds, print the table (and write the JSON)."""
    args = build_parser().parse_args(argv)
    settings = Settings(args.alpha, args.gamma, args.epsilon)
    print(f"{args.episodes:,} episodes per run, {args.rounds} rounds, alpha={settings.alpha} "
          f"gamma={settings.gamma} epsilon={settings.epsilon}; CPU time, best round counts")
    results = measure(tuple(args.envs), args.episodes, args.rounds, settings)
    print_table(results)
    if args.json:
        report = {"episodes": args.episodes, "rounds": args.rounds, **vars(settings), "target_ratio": TARGET_RATIO,
                  "envs": results}
        args.json.write_text(json.dumps(report, indent=2))
    return results


if __name__ == "__main__":
    main()
