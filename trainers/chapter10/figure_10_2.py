"""Sutton & Barto's Figure 10.2: semi-gradient SARSA on Mountain Car, steps per episode for three step sizes.

The book's settings: 8 tilings of 8 x 8 tiles, alpha = 0.1/8, 0.2/8 and 0.5/8, epsilon 0, gamma 1, weights
starting at 0, 500 episodes, 100 runs, steps per episode on a log scale. The runs play on the batched
engine (`trainers.chapter10.engine`), lane for lane `rltorch train --algo sarsa --value-fn tiles`; see
`trainers.chapter10.runs` for the episode cap.
"""

from __future__ import annotations

import argparse
import sys

from rltorch.run.studies import StudyResult, run_study
from trainers.chapter10.runs import (
    alphas_option,
    curves_snippet,
    curves_summary,
    draw_curves,
    mountain_car_parser,
    play,
    settings_of,
)

STEM = "figure_10_2_mountain_car_alphas"
ALPHAS = (0.1, 0.2, 0.5)  # alpha x 8, the book's


def compute(args: argparse.Namespace) -> StudyResult:
    """Play every step size over the same runs; the mean steps per episode and their standard errors."""
    lengths = play(args, [settings_of("sarsa", alpha, args) for alpha in args.alphas], args.episodes)
    numbers = curves_summary(lengths, [f"alpha = {alpha:g}/{args.tilings}" for alpha in args.alphas], args)
    episodes = range(1, args.episodes + 1)
    curves = {f"steps_per_episode/alpha_{alpha:g}_over_{args.tilings}": (episodes, line["mean"])
              for alpha, line in zip(args.alphas, numbers["lines"].values(), strict=True)}
    figure = draw_curves(numbers, "Figure 10.2: semi-gradient SARSA on Mountain Car, tile coding")
    return StudyResult(figure, numbers, markdown, curves)


def markdown(numbers: dict, command: str, png: str) -> str:
    """The README snippet: the command, the numbers beside the book's curve, and what matches."""
    lines = numbers["lines"]
    by_speed = sorted(lines, key=lambda label: lines[label]["mean_episodes_1_to_50"])
    return curves_snippet("Figure 10.2: semi-gradient SARSA, three step sizes", "Figure 10.2", numbers, command,
                          png) + f"""
The book: the larger step sizes learn faster early on, alpha = 0.5/8 the fastest, and all three curves fall
to between about 100 and 200 steps by episode 500. Here, fewest steps over the first 50 episodes first:
{', '.join(by_speed)}.
"""


def build_parser() -> argparse.ArgumentParser:
    """The script's options."""
    return mountain_car_parser(__doc__, alphas_option(ALPHAS), runs=100, episodes=500)


def main(argv: list[str] | None = None) -> int:
    """Parse `argv`, run the study, write its figure, numbers and snippet."""
    return run_study(STEM, __file__, argv, build_parser(), compute)


if __name__ == "__main__":
    sys.exit(main())
