"""Sutton & Barto's Figure 6.5: maximization bias, Q-learning against Double Q-learning.

From A, right ends at 0 and left leads to B, whose actions (10, the env's default) end with a reward
drawn from N(-0.1, 1): left is worth -0.1, so an optimal epsilon-greedy agent goes left only epsilon / 2
= 5% of the time. Both methods learn with epsilon 0.1, alpha 0.1, gamma 1, Q starting at 0 (ties broken
at random, in acting and in Double Q-learning's target argmax) for --episodes episodes in each of --runs
runs (run i of both has the same seed), with rltorch's QLearningTrainer and DoubleQLearningTrainer, one
step at a time (10,000 runs: about 95 s of CPU time, under 4 minutes on a shared two-core machine). The
figure: the share of episodes that went left from A, averaged over runs; the table adds each method's mean
share over episodes 15-25 with its standard error over runs.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

import gymnasium as gym
import numpy as np
from matplotlib.figure import Figure

from rltorch.envs.max_bias.env import ENV_ID
from rltorch.policies import ConstantSchedule
from rltorch.run.many_runs import map_runs, progress, run_seeds
from rltorch.run.studies import StudyResult, run_study, study_parser, table, timing
from rltorch.trainers import DoubleQLearningTrainer, QLearningTrainer
from rltorch.values import QTable

STEM = "figure_6_5_maximization_bias"
METHODS = {"Q-learning": QLearningTrainer, "Double Q-learning": DoubleQLearningTrainer}
FINAL = 50  # the final averages are over the last this many episodes (251-300 by default)
PEAK_WITHIN = 50  # the peak is looked for in the first this many episodes
EARLY = (15, 25)  # episodes (1-based, inclusive) whose mean share is reported with its standard error


def left_choices(method: str, seed: int, args: argparse.Namespace) -> np.ndarray:
    """One run: whether each episode went left from A (left takes two steps, A to B and B to the end)."""
    trainer = METHODS[method](gym.make(ENV_ID, disable_env_checker=True), QTable(alpha=args.alpha), gamma=1.0,
                              schedule=ConstantSchedule(args.epsilon), seed=seed)
    went_left = np.empty(args.episodes, dtype=bool)
    for episode in range(args.episodes):
        steps = trainer.steps_done
        trainer.run_episode(args.epsilon)
        went_left[episode] = trainer.steps_done - steps == 2
    return went_left


def run_left_choices(seed: int, args: argparse.Namespace) -> list[np.ndarray]:
    """One run of every method on `seed`: whether each episode went left from A, per method in METHODS order."""
    return [left_choices(method, seed, args) for method in METHODS]


def left_shares(seeds: list[int], args: argparse.Namespace) -> tuple[dict[str, np.ndarray], dict[str, dict | None]]:
    """Per method: the share of runs that went left in each episode, and the `EARLY` mean (runs shared over ranks)."""
    with progress(len(METHODS) * len(seeds), "runs", args) as bar:
        runs = map_runs(lambda seed: run_left_choices(seed, args), seeds, bar, len(METHODS))
    shares, early = {}, {}
    for index, method in enumerate(METHODS):
        total = np.zeros(args.episodes)
        for run in runs:  # summed in seed order, as one process always did
            total += run[index]
        shares[method] = total / len(seeds)
        early[method] = early_mean([run[index] for run in runs])
    return shares, early


def early_mean(runs: list[np.ndarray]) -> dict | None:
    """The share of left over episodes `EARLY` and its standard error over runs (None when the runs are shorter)."""
    first, last = EARLY
    if len(runs[0]) < last:
        return None
    per_run = np.array([run[first - 1:last].mean() for run in runs])
    error = float(per_run.std(ddof=1) / np.sqrt(len(runs))) if len(runs) > 1 else None
    return {"episodes": [first, last], "mean": float(per_run.mean()), "standard_error": error}


def below_from(lower: np.ndarray, upper: np.ndarray) -> int | None:
    """The first episode (1-based) from which `lower` stays strictly below `upper` to the end, None if it never does."""
    not_below = np.flatnonzero(lower >= upper)
    if not_below.size == 0:
        return 1
    return int(not_below[-1]) + 2 if not_below[-1] + 1 < len(lower) else None


def summary(shares: dict[str, np.ndarray], early: dict[str, dict | None], args: argparse.Namespace) -> dict[str, Any]:
    """Per method: the peak in the first episodes and where, the early and final means; where Double Q is below."""
    final, within = min(FINAL, args.episodes), min(PEAK_WITHIN, args.episodes)
    methods = {method: {"peak": float(share[:within].max()), "peak_episode": int(share[:within].argmax()) + 1,
                        "final_mean": float(share[-final:].mean()), "first_episode": float(share[0]),
                        "mean_episodes_2_to_20": float(share[1:20].mean()) if args.episodes > 1 else None,
                        "early": early[method]}
               for method, share in shares.items()}
    double, single = shares["Double Q-learning"], shares["Q-learning"]
    return {"runs": args.runs, "episodes": args.episodes, "alpha": args.alpha, "epsilon": args.epsilon, "gamma": 1.0,
            "seed": args.seed, "b_actions": gym.make(ENV_ID, disable_env_checker=True).unwrapped.b_actions,
            "optimal_share": args.epsilon / 2, "final_episodes": [args.episodes - final + 1, args.episodes],
            "peak_within_episodes": within, "methods": methods,
            "double_below_q_from_episode": below_from(double, single),
            "double_max_after_first_episode": float(double[1:].max()) if args.episodes > 1 else None,
            "left_share": {method: [round(float(value), 4) for value in share] for method, share in shares.items()}}


def draw(shares: dict[str, np.ndarray], args: argparse.Namespace) -> Figure:
    """The book's figure: % left actions from A against episodes, with the optimal 5% line."""
    figure = Figure(figsize=(7.5, 4.5), layout="constrained")
    axis = figure.subplots()
    episodes = np.arange(1, args.episodes + 1)
    for method, share in shares.items():
        axis.plot(episodes, 100 * share, label=method)
    axis.axhline(100 * args.epsilon / 2, color="black", linestyle="--", linewidth=1, label="optimal (epsilon / 2)")
    axis.set_ylim(0, 100)
    axis.set_xlabel("episodes")
    axis.set_ylabel(f"% left actions from A (mean of {args.runs:,} runs)")
    axis.legend()
    figure.suptitle(f"Figure 6.5: maximization bias, epsilon {args.epsilon:g}, alpha {args.alpha:g}")
    return figure


def compute(args: argparse.Namespace) -> StudyResult:
    """Run both methods over the same seeds; draw the left shares."""
    shares, early = left_shares(run_seeds(args.seed, args.runs), args)
    episodes = range(1, args.episodes + 1)
    curves = {f"left_share/{method.replace(' ', '_')}": (episodes, share.tolist()) for method, share in shares.items()}
    return StudyResult(draw(shares, args), summary(shares, early, args), markdown, curves)


def verdict(numbers: dict) -> str:
    """One sentence on the acceptance: Q-learning's early peak, Double Q below it and under 8% at the end."""
    single, double = numbers["methods"]["Q-learning"], numbers["methods"]["Double Q-learning"]
    start = numbers["double_below_q_from_episode"]
    ok = single["peak"] > 0.3 and start is not None and start <= 5 and double["final_mean"] < 0.08
    first, last = numbers["final_episodes"]
    return (f"{'Matches' if ok else 'Does not match'}: Q-learning's left share peaks at {single['peak']:.0%} "
            f"(episode {single['peak_episode']}), Double Q-learning's stays below it from episode {start} on "
            f"(both start at the coin flip of equal values, {double['first_episode']:.0%} and "
            f"{single['first_episode']:.0%}, in episode 1) and averages {double['final_mean']:.1%} over episodes "
            f"{first}-{last} against Q-learning's {single['final_mean']:.1%}; the optimum is "
            f"{numbers['optimal_share']:.0%}, and Q-learning stays above it because its max over B's "
            f"{numbers['b_actions']} noisy estimates is still biased upward after {numbers['episodes']} episodes")


def markdown(numbers: dict, command: str, png: str) -> str:
    """The README snippet: command, numbers beside the book's description, and what matches."""
    first, last = numbers["final_episodes"]
    book = {"Q-learning": "initially takes left much more often than right, and always significantly more often "
                          "than the 5% minimum",
            "Double Q-learning": "essentially unaffected by maximization bias"}
    rows = [[method, f"{m['first_episode']:.1%}", f"{m['peak']:.1%} (episode {m['peak_episode']})",
             early_cell(m.get("early")), f"{m['final_mean']:.1%}", book[method]]
            for method, m in numbers["methods"].items()]
    return f"""### Figure 6.5: maximization bias, Q-learning vs Double Q-learning

```bash
{command}
```

![Figure 6.5]({png})

{numbers['runs']:,} runs of {numbers['episodes']} episodes, epsilon {numbers['epsilon']}, alpha {numbers['alpha']},
gamma 1, {numbers['b_actions']} actions in B with rewards from N(-0.1, 1), rltorch's per-step trainers
({timing(numbers)}).

{table(["method", "left share, episode 1", f"peak in the first {numbers['peak_within_episodes']} episodes",
        "mean, episodes {}-{} (± s.e.)".format(*EARLY), f"mean, episodes {first}-{last}", "the book"], rows)}

{verdict(numbers)}.
"""


def early_cell(early: dict | None) -> str:
    """The `EARLY` mean share as a table cell (a share of 0.123 ± 0.004 reads 12.3% ± 0.4%), or a dash."""
    if early is None:
        return "-"
    error = early["standard_error"]
    return f"{early['mean']:.1%}" + ("" if error is None else f" ± {error:.1%}")


def build_parser() -> argparse.ArgumentParser:
    """The script's options."""
    parser = study_parser(__doc__, runs=10_000, episodes=300, alpha=0.1, epsilon=0.1)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Parse `argv`, run the study, write its figure, numbers and snippet."""
    return run_study(STEM, __file__, argv, build_parser(), compute)


if __name__ == "__main__":
    sys.exit(main())
