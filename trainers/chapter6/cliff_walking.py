"""Sutton & Barto's Example 6.6: SARSA against Q-learning on Gymnasium's CliffWalking-v1.

Both learn with epsilon 0.1, alpha 0.5, gamma 1, Q starting at 0 (ties broken at random) for --episodes
episodes in each of --runs runs (run i of both has the same seed). Left: the sum of rewards per episode,
averaged over runs and smoothed over --smooth episodes, as in the book. Right: each method's most common
greedy path after training, drawn on the grid: SARSA's safe path, Q-learning's optimal path along the cliff.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from typing import Any

import gymnasium as gym
import numpy as np
from matplotlib.figure import Figure

from rltorch.policies import ConstantSchedule
from rltorch.run.many_runs import map_runs, progress, run_seeds
from rltorch.run.options import at_most, positive_int
from rltorch.run.studies import MAX_EPISODES, StudyResult, run_study, study_parser, table, timing
from rltorch.trainers import QLearningTrainer, SARSATrainer
from rltorch.values import QTable
from trainers.chapter6.grid_paths import draw_paths, greedy_path, layout_of

STEM = "example_6_6_cliff_walking"
ENV_ID = "CliffWalking-v1"
METHODS = {"SARSA": SARSATrainer, "Q-learning": QLearningTrainer}
OPTIMAL_LENGTH = 13  # right along the cliff: up, 11 steps right, down
LAST = 100  # the book's comparison window: the online return over the last this many episodes
PATH_CAP = 100
NEVER = PATH_CAP + 1  # sorts a greedy path that never reaches the goal (it loops) after every real length


def make_env() -> gym.Env:
    """A fresh cliff-walking grid."""
    return gym.make(ENV_ID, disable_env_checker=True)


def train(method: str, seed: int, args: argparse.Namespace) -> tuple[np.ndarray, Any]:
    """One run of `method`: the sum of rewards of every episode, and the trainer."""
    trainer = METHODS[method](make_env(), QTable(alpha=args.alpha), gamma=1.0,
                              schedule=ConstantSchedule(args.epsilon), seed=seed)
    returns = np.array([trainer.run_episode(args.epsilon) for _ in range(args.episodes)])
    return returns, trainer


def run_methods(seed: int, args: argparse.Namespace) -> list[tuple[np.ndarray, tuple | None]]:
    """One run of every method on `seed`: its returns per episode and the greedy path it ends with (None: loops)."""
    runs = []
    for method in METHODS:
        returns, trainer = train(method, seed, args)
        path, finished = greedy_path(make_env(), trainer.agent(), PATH_CAP)
        runs.append((returns, tuple(path) if finished else None))
    return runs


def smooth(values: np.ndarray, window: int) -> np.ndarray:
    """The moving average over `window` episodes (shorter at the start)."""
    sums = np.cumsum(np.insert(values, 0, 0.0))
    starts = np.maximum(np.arange(1, len(values) + 1) - window, 0)
    return (sums[1:] - sums[starts]) / (np.arange(1, len(values) + 1) - starts)


def compute(args: argparse.Namespace) -> StudyResult:
    """Run both methods over the same seeds; draw the returns and the greedy paths."""
    seeds = run_seeds(args.seed, args.runs)
    with progress(len(METHODS) * args.runs, "runs", args) as bar:
        runs = map_runs(lambda seed: run_methods(seed, args), seeds, bar, len(METHODS))
    results = {method: {"returns": np.array([run[index][0] for run in runs]),
                        "paths": [run[index][1] for run in runs]}
               for index, method in enumerate(METHODS)}
    numbers = summary(results, args)
    episodes = range(1, args.episodes + 1)
    curves = {f"return/{method}": (episodes, result["returns"].mean(axis=0).tolist())
              for method, result in results.items()}
    return StudyResult(draw(results, args), numbers, markdown, curves)


def path_report(paths: list[tuple | None]) -> dict[str, Any]:
    """How long the runs' greedy paths are, and the most common one."""
    counts = Counter(len(path) - 1 if path else NEVER for path in paths)
    common = Counter(path for path in paths if path).most_common(1)
    lengths = {"never ends" if length == NEVER else str(length): count for length, count in sorted(counts.items())}
    return {"lengths": lengths,
            "most_common": [int(state) for state in common[0][0]] if common else None,
            "most_common_runs": common[0][1] if common else 0}


def summary(results: dict[str, dict], args: argparse.Namespace) -> dict:
    """The numbers: online returns (last window, whole run, smoothed minimum) and the greedy paths."""
    last = min(LAST, args.episodes)
    methods = {}
    for method, result in results.items():
        mean = result["returns"].mean(axis=0)
        methods[method] = {
            "mean_return_last_episodes": float(mean[-last:].mean()),
            "mean_return_all_episodes": float(mean.mean()),
            "greedy_paths": path_report(result["paths"]),
        }
    return {"runs": args.runs, "episodes": args.episodes, "alpha": args.alpha, "epsilon": args.epsilon,
            "gamma": 1.0, "seed": args.seed, "smooth": args.smooth, "last_episodes": last,
            "optimal_length": OPTIMAL_LENGTH, "methods": methods}


def draw(results: dict[str, dict], args: argparse.Namespace) -> Figure:
    """Smoothed sum of rewards per episode (left) and each method's most common greedy path (right)."""
    figure = Figure(figsize=(13, 4.2), layout="constrained")
    curve_axis, grid_axis = figure.subplots(1, 2, width_ratios=(1, 1.15))
    episodes = np.arange(1, args.episodes + 1)
    for method, result in results.items():
        curve_axis.plot(episodes, smooth(result["returns"].mean(axis=0), args.smooth), label=method)
    curve_axis.set_ylim(-100, 0)
    curve_axis.set_xlabel("episodes")
    curve_axis.set_ylabel("sum of rewards during episode")
    curve_axis.set_title(f"mean of {args.runs} runs, moving average over {args.smooth} episodes")
    curve_axis.legend()
    paths = {}
    for method, result in results.items():
        report = path_report(result["paths"])
        if report["most_common"]:
            paths[f"{method}: {len(report['most_common']) - 1} steps ({report['most_common_runs']} of "
                  f"{args.runs} runs)"] = report["most_common"]
    draw_paths(grid_axis, layout_of(make_env()), paths, "most common greedy path after training")
    figure.suptitle(f"Example 6.6: cliff walking, epsilon {args.epsilon:g}, alpha {args.alpha:g}")
    return figure


def markdown(numbers: dict, command: str, png: str) -> str:
    """The README snippet: command, numbers beside the book's description, and what matches."""
    sarsa, q = numbers["methods"]["SARSA"], numbers["methods"]["Q-learning"]
    book = {"SARSA": "about -25; the safe path through the upper part of the grid",
            "Q-learning": "about -50; the optimal path along the cliff (13 steps), falling off now and then"}
    rows = [[method, f"{m['mean_return_last_episodes']:.1f}", f"{m['mean_return_all_episodes']:.1f}",
             ", ".join(f"{length}: {count}" for length, count in m["greedy_paths"]["lengths"].items()), book[method]]
            for method, m in numbers["methods"].items()]
    q_optimal = q["greedy_paths"]["lengths"].get(str(OPTIMAL_LENGTH), 0)
    sarsa_longer = sum(count for length, count in sarsa["greedy_paths"]["lengths"].items()
                       if length.isdigit() and int(length) > OPTIMAL_LENGTH)
    returns_ok = -35 <= sarsa["mean_return_last_episodes"] <= -15 and -65 <= q["mean_return_last_episodes"] <= -35
    verdict = ("Matches: SARSA earns more online than Q-learning" if returns_ok and
               sarsa["mean_return_last_episodes"] > q["mean_return_last_episodes"] else
               "Partly off the book: online returns")
    verdict += (f" ({sarsa['mean_return_last_episodes']:.1f} against {q['mean_return_last_episodes']:.1f} over the "
                f"last {numbers['last_episodes']} episodes, the book's about -25 and -50), Q-learning's greedy path is "
                f"the optimal {OPTIMAL_LENGTH} steps in {q_optimal} of {numbers['runs']} runs and SARSA's is longer in "
                f"{sarsa_longer}: Q-learning learns q* but its epsilon-greedy steps beside the cliff cost -100 now and "
                "then, while SARSA's values include that risk, so its greedy path keeps away from the edge")
    looping = sarsa["greedy_paths"]["lengths"].get("never ends", 0)
    if looping:
        verdict += (f"; in {looping} runs SARSA's greedy policy loops at the end, since with alpha 0.5 its values "
                    "keep moving with every exploratory step and a greedy snapshot can catch them mid-change")
    return f"""### Example 6.6: cliff walking, SARSA vs Q-learning

```bash
{command}
```

![Example 6.6]({png})

{numbers['runs']} runs of {numbers['episodes']} episodes each on Gymnasium's `CliffWalking-v1`, epsilon
{numbers['epsilon']}, alpha {numbers['alpha']}, gamma 1, Q initialised to 0 ({timing(numbers)}). The figure's
curves are smoothed over {numbers['smooth']} episodes; the table's returns are not.

{table(["method", f"online return, episodes {numbers['episodes'] - numbers['last_episodes'] + 1}-"
        f"{numbers['episodes']}", "online return, all episodes", "greedy path length: runs", "the book"], rows)}

{verdict}.
"""


def build_parser() -> argparse.ArgumentParser:
    """The script's options."""
    parser = study_parser(__doc__, runs=50, episodes=500, alpha=0.5, epsilon=0.1)
    parser.add_argument("--smooth", type=at_most(positive_int, MAX_EPISODES), default=10,
                        help="moving-average window of the figure")
    return parser


def main(argv: list[str] | None = None) -> int:
    """Parse `argv`, run the study, write its figure, numbers and snippet."""
    return run_study(STEM, __file__, argv, build_parser(), compute)


if __name__ == "__main__":
    sys.exit(main())
