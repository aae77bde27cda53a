"""Seconds that rltorch's exact solver takes on Gymnasium toy-text models, best of a few rounds.

For each env the model is built once from its `P` table; then `value_iteration(model, gamma,
tol=...)` runs `--rounds` times, both exact (value iteration to 1e-8 finished by policy
iteration with linear solves, the default) and plain (value iteration alone to `--tol`). The
table gives the best wall-clock seconds of each and the optimal expected return from the start
distribution, with and without the env's time limit.
Usage: python bench/mdp_solve_speed.py [--envs Taxi-v4 FrozenLake8x8-v1] [--rounds 3] [--json PATH]
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable

import gymnasium as gym

from rltorch.mdp import FiniteModel, from_gymnasium, value_iteration
from rltorch.run.options import at_most, make_parser, positive_float, positive_int, unit_float, writable_file

DEFAULT_ENVS = ["Taxi-v4", "FrozenLake8x8-v1"]
MAX_ROUNDS = 1000  # rounds of a measurement, at most


def best_seconds(run: Callable[[], object], rounds: int) -> float:
    """The fastest of `rounds` wall-clock timings of `run()`."""
    best = float("inf")
    for _ in range(rounds):
        start = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - start)
    return best


def start_value(model: FiniteModel, values: dict) -> float:
    """The expected value of the start distribution."""
    return sum(probability * values[state] for state, probability in model.start.items())


def measure(env_id: str, gamma: float, tol: float, rounds: int) -> dict:
    """Time the exact and the plain solve of one env, and report its optimum."""
    start = time.perf_counter()
    model = from_gymnasium(gym.make(env_id))
    build_seconds = time.perf_counter() - start
    value_iteration(model, gamma, tol=tol)  # warm up
    row = {
        "env": env_id,
        "states": len(model.states),
        "actions": max(len(actions) for actions in model.actions.values()),
        "build_seconds": build_seconds,
        "exact_seconds": best_seconds(lambda: value_iteration(model, gamma, tol=tol), rounds),
        "plain_seconds": best_seconds(lambda: value_iteration(model, gamma, tol=tol, exact=False), rounds),
        "optimum": start_value(model, value_iteration(model, gamma, tol=tol).v),
        "horizon": model.horizon,
        "optimum_within_horizon": None,
    }
    if model.horizon is not None:
        row["optimum_within_horizon"] = start_value(model, value_iteration(model, gamma, horizon=model.horizon).v)
    return row


def print_table(rows: list[dict]) -> None:
    """Print one line per env."""
    print(f"{'env':<20} {'S':>5} {'A':>3} {'exact s':>9} {'plain s':>9} {'optimum':>10} {'horizon':>8} {'within':>10}")
    for row in rows:
        within = "-" if row["optimum_within_horizon"] is None else f"{row['optimum_within_horizon']:.6f}"
        print(f"{row['env']:<20} {row['states']:>5} {row['actions']:>3} {row['exact_seconds']:>9.4f} "
              f"{row['plain_seconds']:>9.4f} {row['optimum']:>10.6f} {row['horizon'] or '-':>8} {within:>10}")


def build_parser() -> argparse.ArgumentParser:
    """The script's options."""
    parser = make_parser(__doc__)
    parser.add_argument("--envs", nargs="+", default=DEFAULT_ENVS, help="Gymnasium toy-text env ids")
    parser.add_argument("--gamma", type=unit_float, default=1.0, help="discount (default 1)")
    parser.add_argument("--tol", type=at_most(positive_float, 1.0), default=1e-10, help="value iteration tolerance")
    parser.add_argument("--rounds", type=at_most(positive_int, MAX_ROUNDS), default=3,
                        help="timed runs of each solve; the best counts")
    parser.add_argument("--json", type=writable_file, help="write the figures to this file")
    return parser


def main(argv: list[str] | None = None) -> dict:
    """Parse the options, time each env, print the table and optionally write JSON."""
    args = build_parser().parse_args(argv)
    rows = [measure(env_id, args.gamma, args.tol, args.rounds) for env_id in args.envs]
    print_table(rows)
    result = {"gamma": args.gamma, "tol": args.tol, "rounds": args.rounds, "envs": rows}
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n")
    return result


if __name__ == "__main__":
    main()
