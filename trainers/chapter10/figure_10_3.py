"""Sutton & Barto's Figure 10.3: one-step against 8-step semi-gradient SARSA on Mountain Car.

The book's settings: n = 1 with alpha = 0.5/8 and n = 8 with alpha = 0.3/8 (its best step sizes), 8 tilings
of 8 x 8 tiles, epsilon 0, gamma 1, weights starting at 0, 500 episodes, 100 runs, steps per episode on a log
scale. Runs on the batched engine, lane for lane `rltorch train --algo nstep-sarsa --value-fn tiles`; see
`trainers.chapter10.runs` for the episode cap.
"""

from __future__ import annotations

import argparse
import sys

from rltorch.run.studies import StudyResult, run_study
from trainers.chapter10.runs import curves_snippet, curves_summary, draw_curves, mountain_car_parser, play, settings_of

STEM = "figure_10_3_mountain_car_nstep"
LINES = ((1, 0.5), (8, 0.3))  # (n, alpha x 8), the book's


def compute(args: argparse.Namespace) -> StudyResult:
    """Play both methods over the same runs; the mean steps per episode and their standard errors."""
    settings = [settings_of("nstep-sarsa", alpha, args, n=n) for n, alpha in LINES]
    labels = [f"n = {n}, alpha = {alpha:g}/{args.tilings}" for n, alpha in LINES]
    numbers = curves_summary(play(args, settings, args.episodes), labels, args)
    episodes = range(1, args.episodes + 1)
    curves = {f"steps_per_episode/n_{n}": (episodes, line["mean"])
              for (n, _), line in zip(LINES, numbers["lines"].values(), strict=True)}
    figure = draw_curves(numbers, "Figure 10.3: one-step and 8-step semi-gradient SARSA on Mountain Car")
    return StudyResult(figure, numbers, markdown, curves)


def markdown(numbers: dict, command: str, png: str) -> str:
    """The README snippet: the command, the numbers beside the book's statement, and what matches."""
    one, eight = numbers["lines"].values()
    better = eight["mean_episodes_1_to_50"] < one["mean_episodes_1_to_50"]
    return curves_snippet("Figure 10.3: one-step against 8-step SARSA", "Figure 10.3", numbers, command,
                          png) + f"""
The book: n = 8 learns faster than n = 1 and ends lower. {'Matches' if better else 'Does not match'} over the
first 50 episodes ({eight["mean_episodes_1_to_50"]:.0f} against {one["mean_episodes_1_to_50"]:.0f} steps an
episode); over the last 100, {eight['mean_last_100']:.0f} against {one['mean_last_100']:.0f}.
"""


def build_parser() -> argparse.ArgumentParser:
    """The script's options."""
    return mountain_car_parser(__doc__, runs=100, episodes=500)


def main(argv: list[str] | None = None) -> int:
    """Parse `argv`, run the study, write its figure, numbers and snippet."""
    return run_study(STEM, __file__, argv, build_parser(), compute)


if __name__ == "__main__":
    sys.exit(main())
