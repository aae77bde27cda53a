"""Agent steps per second on cliff walking: the batched engine against the per-step trainer and a plain-Python loop.

The work: SARSA (alpha 0.5, epsilon 0.1, gamma 1) on Gymnasium's CliffWalking-v1, every run starting
from zero values. (a) `rltorch.engines.BatchedEngine` runs --runs runs of --episodes episodes as one
batch (one numba loop per run, one thread), for --algo (default sarsa; every algorithm with a fast
form when --algo all). (b) `rltorch.trainers.SARSATrainer` with a QTable on
`gym.make("CliffWalking-v1")` and (c) a plain loop written the way the book's companion code is (a
numpy Q array, `np.random` choices, a step function for the cliff) each run --sequential-runs runs
of the same length, one after another. Each is timed in process CPU time and in wall time, best of
--rounds rounds, the engine's compilation outside the timing; the rates are agent steps (all runs'
episode lengths) per second. Target: the batched engine at least 50 times the per-step trainer's
steps per CPU second.
Usage: python bench/batched_cliff.py [--runs 3000] [--episodes 100] [--algo sarsa|...|all] [--json PATH]
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable

import gymnasium as gym
import numpy as np
import torch

from rltorch.engines import ALGORITHMS, BatchedEngine
from rltorch.mdp import from_gymnasium
from rltorch.policies import ConstantSchedule
from rltorch.run.options import at_most, make_parser, non_negative_int, positive_int, writable_file
from rltorch.trainers import SARSATrainer
from rltorch.values import QTable

ALPHA, EPSILON, GAMMA = 0.5, 0.1, 1.0
TARGET = 50.0  # the batched engine's steps per CPU second over the per-step trainer's, at least
ROWS, COLUMNS, START, GOAL = 4, 12, 36, 47
MOVES = ((-1, 0), (0, 1), (1, 0), (0, -1))  # up, right, down, left: CliffWalking's action order
MAX_ROUNDS = 1000  # rounds of a measurement, at most


def cliff_step(state: int, action: int) -> tuple[int, float, bool]:
    """The book's cliff: -1 a step, -100 and back to the start for stepping into the cliff, the goal ends it."""
    row, column = divmod(state, COLUMNS)
    row = min(max(row + MOVES[action][0], 0), ROWS - 1)
    column = min(max(column + MOVES[action][1], 0), COLUMNS - 1)
    if row == ROWS - 1 and 0 < column < COLUMNS - 1:
        return START, -100.0, False
    state = row * COLUMNS + column
    return state, -1.0, state == GOAL


def plain_sarsa(runs: int, episodes: int, seed: int) -> int:
    """SARSA as the companion code writes it (np.random, a Q array); returns the agent steps taken."""
    np.random.seed(seed)
    steps = 0
    for _ in range(runs):
        q = np.zeros((ROWS * COLUMNS, 4))

        def choose(state: int, q: np.ndarray = q) -> int:
            if np.random.binomial(1, EPSILON) == 1:
                return int(np.random.choice(4))
            values = q[state]
            return int(np.random.choice([a for a, v in enumerate(values) if v == np.max(values)]))

        for _ in range(episodes):
            state, action, done = START, choose(START), False
            while not done:
                next_state, reward, done = cliff_step(state, action)
                next_action = choose(next_state)
                following = 0.0 if done else q[next_state, next_action]
                q[state, action] += ALPHA * (reward + GAMMA * following - q[state, action])
                state, action = next_state, next_action
                steps += 1
    return steps


def per_step_trainer(runs: int, episodes: int, seed: int) -> int:
    """`SARSATrainer` on `gym.make("CliffWalking-v1")` with a QTable, run after run; returns the agent steps."""
    steps = 0
    for run in range(runs):
        env = gym.make("CliffWalking-v1")
        trainer = SARSATrainer(env, QTable(alpha=ALPHA), gamma=GAMMA, schedule=ConstantSchedule(EPSILON),
                               seed=seed + run)
        trainer.train(episodes, eval_every=0, progress=False)
        steps += trainer.steps_done
    return steps


def batched(algorithm: str, runs: int, episodes: int, seed: int) -> int:
    """`BatchedEngine.run` of `runs` runs of `algorithm` as one batch (n = 3 for n-step SARSA); the agent steps."""
    engine = BatchedEngine(from_gymnasium(gym.make("CliffWalking-v1")))
    return engine.run(algorithm, [ALPHA] * runs, episodes, epsilon=EPSILON, gamma=GAMMA, n=3, seed=seed,
                      keep_values=False).steps


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
    seed, episodes = args.seed, args.episodes
    algorithms = list(ALGORITHMS) if args.algo == "all" else [args.algo]
    contenders: dict[str, Callable[[], int]] = {}
    for algorithm in algorithms:
        batched(algorithm, 3, 2, seed)  # compile outside the timing
        contenders[f"batched_{algorithm}"] = lambda algorithm=algorithm: batched(algorithm, args.runs, episodes, seed)
    contenders["per_step_trainer"] = lambda: per_step_trainer(args.sequential_runs, episodes, seed)
    contenders["plain_python"] = lambda: plain_sarsa(args.sequential_runs, episodes, seed)
    results = {}
    for name, work in contenders.items():
        results[name] = timed(work, args.rounds)
        print(f"{name:<26} {results[name]['steps_per_cpu_second']:>14,.0f} steps/CPU s "
              f"{results[name]['steps_per_second']:>14,.0f} steps/s  ({results[name]['steps']:,} steps)", flush=True)
    return results


def build_parser() -> argparse.ArgumentParser:
    """The script's options."""
    parser = make_parser(__doc__)
    parser.add_argument("--runs", type=at_most(positive_int, 10**6), default=3000, help="runs in the batch")
    parser.add_argument("--episodes", type=at_most(positive_int, 10**6), default=100, help="episodes per run")
    parser.add_argument("--sequential-runs", type=at_most(positive_int, 10**4), default=10,
                        help="runs of the per-step trainer and of the plain loop")
    parser.add_argument("--rounds", type=at_most(positive_int, MAX_ROUNDS), default=2,
                        help="rounds of each; the best counts")
    parser.add_argument("--algo", default="sarsa", choices=(*ALGORITHMS, "all"), help="the engine's algorithm")
    parser.add_argument("--seed", type=at_most(non_negative_int, 2**32 - 1), default=0, help="seed of every contender")
    parser.add_argument("--json", type=writable_file, help="write the figures to this file")
    return parser


def main(argv: list[str] | None = None) -> dict:
    """Parse the options, measure, print the ratios (and write the JSON)."""
    args = build_parser().parse_args(argv)
    torch.set_num_threads(1)
    print(f"CliffWalking-v1, alpha={ALPHA} epsilon={EPSILON} gamma={GAMMA}: {args.runs:,} batched runs of {args.algo}, "
          f"{args.sequential_runs} sequential SARSA runs, {args.episodes} episodes each; best of {args.rounds} rounds")
    results = measure(args)
    trainer = results["per_step_trainer"]["steps_per_cpu_second"]
    ratios = {name: row["steps_per_cpu_second"] / trainer for name, row in results.items()}
    best = max(ratios[name] for name in ratios if name.startswith("batched"))
    for name, ratio in ratios.items():
        print(f"{name:<26} {ratio:>8.1f} x the per-step trainer (SARSA)")
    print(f"batched engine: {best:.1f} x the per-step SARSA trainer (target >= {TARGET:.0f}): "
          f"{'met' if best >= TARGET else 'MISSED'}")
    report = {"alpha": ALPHA, "epsilon": EPSILON, "gamma": GAMMA, "runs": args.runs, "episodes": args.episodes,
              "sequential_runs": args.sequential_runs, "rounds": args.rounds, "algo": args.algo,
              "results": results, "ratio_to_per_step_trainer": ratios, "target": TARGET, "target_met": best >= TARGET}
    if args.json:
        args.json.write_text(json.dumps(report, indent=2) + "\n")
    return report


if __name__ == "__main__":
    main()
