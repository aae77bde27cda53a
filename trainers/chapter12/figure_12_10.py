"""Sutton & Barto's Figure 12.10: SARSA(λ) with replacing traces on Mountain Car, early performance against alpha and λ.

The mean steps per episode over the first 50 episodes, over 100 runs, for λ = 0, 0.68, 0.84, 0.92, 0.96,
0.98, 0.99 and a grid of step sizes alpha x 8 (8 tilings of 8 x 8 tiles, epsilon 0, gamma 1, weights starting
at 0). The book: intermediate λ work best, and SARSA(λ) does better than n-step SARSA at its best (Figure
10.4, whose study this one's numbers can be set beside). Runs on the batched engine (`trainers.chapter10`),
lane for lane `rltorch train --algo sarsa-lambda --trace replacing --value-fn tiles`; see
`trainers.chapter10.runs` for the episode cap.
"""

from __future__ import annotations

import argparse
import sys

from rltorch.run.studies import StudyResult, run_study
from trainers.chapter7.nstep_random_walk import numbers_list
from trainers.chapter10.runs import alphas_option, mountain_car_parser, option, sweep_snippet, sweep_study

STEM = "figure_12_10_mountain_car_sarsa_lambda"
LAMBDAS = (0.0, 0.68, 0.84, 0.92, 0.96, 0.98, 0.99)
ALPHAS = (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8)  # alpha x 8


def compute(args: argparse.Namespace) -> StudyResult:
    """Every (λ, alpha) over the same runs: mean steps per episode over the first --episodes episodes."""
    lines = {f"lambda = {lam:g}": ("sarsa-lambda-replacing", 1, lam) for lam in args.lambdas}
    keys = [f"lambda_{lam:g}" for lam in args.lambdas]
    return sweep_study(args, lines, markdown, ("mean_steps_by_1000_alpha_x_tilings", keys),
                       "Figure 12.10: SARSA(lambda), replacing traces, on Mountain Car",
                       f"steps per episode, mean of the first {args.episodes} episodes and {args.runs} runs",
                       (170, 300))


def markdown(numbers: dict, command: str, png: str) -> str:
    """The README snippet: the command, each λ's best alpha, and what matches the book."""
    best = numbers["best"]
    by_line = best["by_line"]
    ends = [by_line[label]["mean_steps"] for label in (next(iter(by_line)), next(reversed(by_line)))]
    top = by_line[best["best_line"]]
    ok = top["mean_steps"] < min(ends)
    return sweep_snippet("Figure 12.10: SARSA(λ) with replacing traces", "Figure 12.10", numbers, command, png,
                         "λ") + f"""
The book: an intermediate λ is best (its curves bottom out near 180-200 steps for λ around 0.9), below
λ = 0 and λ = 0.99. {'Matches' if ok else 'Does not match'}: the best here is {best['best_line']} at
alpha = {top['alpha_times_tilings']:g}/8 with {top['mean_steps']:.1f} steps.
"""


def build_parser() -> argparse.ArgumentParser:
    """The script's options."""
    lambdas = option("--lambdas", type=numbers_list(float, "lambdas in [0, 1]"), default=LAMBDAS,
                     help="the values of lambda")
    return mountain_car_parser(__doc__, lambdas, alphas_option(ALPHAS), runs=100, episodes=50)


def main(argv: list[str] | None = None) -> int:
    """Parse `argv`, run the study, write its figure, numbers and snippet."""
    return run_study(STEM, __file__, argv, build_parser(), compute)


if __name__ == "__main__":
    sys.exit(main())
