"""Sutton & Barto's Figure 10.4: n-step semi-gradient SARSA on Mountain Car, early performance against alpha and n.

The mean steps per episode over the first 50 episodes, over 100 runs, for n = 1, 2, 4, 8, 16 and a grid of
step sizes alpha x 8 (8 tilings of 8 x 8 tiles, epsilon 0, gamma 1, weights starting at 0). The book: an
intermediate n works best, n = 4 at about 240 steps. Runs on the batched engine, lane for lane
`rltorch train --algo nstep-sarsa --value-fn tiles`; see `trainers.chapter10.runs` for the episode cap.
"""

from __future__ import annotations

import argparse
import sys

from rltorch.run.studies import StudyResult, run_study
from trainers.chapter7.nstep_random_walk import numbers_list
from trainers.chapter10.runs import alphas_option, mountain_car_parser, option, sweep_snippet, sweep_study

STEM = "figure_10_4_mountain_car_n_alpha"
NS = (1, 2, 4, 8, 16)
ALPHAS = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 1.0, 1.2, 1.4, 1.6)  # alpha x 8


def compute(args: argparse.Namespace) -> StudyResult:
    """Every (n, alpha) over the same runs: mean steps per episode over the first --episodes episodes."""
    lines = {f"n = {n}": ("nstep-sarsa", n, 0.0) for n in args.ns}
    return sweep_study(args, lines, markdown, ("mean_steps_by_1000_alpha_x_tilings", [f"n_{n}" for n in args.ns]),
                       "Figure 10.4: n-step SARSA on Mountain Car, early performance",
                       f"steps per episode, mean of the first {args.episodes} episodes and {args.runs} runs",
                       (220, 300))


def markdown(numbers: dict, command: str, png: str) -> str:
    """The README snippet: the command, each n's best alpha beside the book's, and what matches."""
    best = numbers["best"]
    top = best["by_line"][best["best_line"]]
    others = [b["mean_steps"] for label, b in best["by_line"].items() if label != best["best_line"]]
    verdict = (f"{'Holds' if best['best_line'] == 'n = 4' else 'Does not hold'}: the best here is {best['best_line']} "
               f"at alpha = {top['alpha_times_tilings']:g}/8 with {top['mean_steps']:.1f} ± "
               f"{top['standard_error']:.1f} steps (the other n at their best: {min(others):.1f} to "
               f"{max(others):.1f}); its level is "
               f"{top['mean_steps'] - 240:+.0f} steps from the book's 240.")
    return sweep_snippet("Figure 10.4: n-step SARSA, n against alpha", "Figure 10.4", numbers, command, png,
                         "n") + f"""
The book: n = 4 is best, near 240 steps. {verdict}
"""


def build_parser() -> argparse.ArgumentParser:
    """The script's options."""
    return mountain_car_parser(__doc__, option("--ns", type=numbers_list(int, "n from 1 up"), default=NS,
                                               help="the values of n"), alphas_option(ALPHAS), runs=100, episodes=50)


def main(argv: list[str] | None = None) -> int:
    """Parse `argv`, run the study, write its figure, numbers and snippet."""
    return run_study(STEM, __file__, argv, build_parser(), compute)


if __name__ == "__main__":
    sys.exit(main())
