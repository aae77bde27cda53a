"""Sutton & Barto's Figure 9.2 (left): semi-gradient TD(0) with state aggregation on the 1000-state random walk.

Ten groups of 100 states, α = 2e-4, 300,000 episodes from zero weights, γ = 1. The book's caption calls the
values asymptotic and prints neither α nor the run's length: α is our choice, and the length is the one at which
the walk's model says the expected weights have arrived (after 100,000 episodes they are still up to 0.0071 short
of the fixed point, within 0.00006 after 300,000). The book shows one run; here --runs runs give each group's
weight a mean and a standard error, checked against the project's exact TD fixed point w_TD = A⁻¹b
(`rltorch.mdp.linear`) and against the exact mean-field weights expected after the run: each mean must lie within
--tolerance standard errors of them. TD's fixed point is farther from v_π than Monte Carlo's asymptote (Figure 9.1).
"""

from __future__ import annotations

import argparse
import sys

from rltorch.run.studies import StudyResult, run_study
from trainers.chapter9 import figure_9_1
from trainers.chapter9.figure_9_1 import EXPECTED, aggregation_study, weights_markdown

STEM = "figure_9_2_left_semi_gradient_td"
ALPHA, EPISODES = 2e-4, 300_000


def compute(args: argparse.Namespace) -> StudyResult:
    """Run semi-gradient TD(0), compare the weights with the exact TD fixed point, draw the figure."""
    return aggregation_study(args, "nstep-semi-gradient-td", 1.0, "td", "semi-gradient TD(0)", markdown)


def markdown(numbers: dict, command: str, png: str) -> str:
    """Figure 9.2 (left)'s snippet."""
    return weights_markdown("Figure 9.2 (left): semi-gradient TD(0) with state aggregation", numbers, command, png,
                            "w_td", "The book: TD's approximation lies farther from v_π than gradient MC's "
                            "(its fixed point is only within a factor of the best VE, bound 9.14).",
                            EXPECTED.format(limit="w_td", episodes=numbers["episodes"],
                                            gap=numbers["expected_gap"]))


def build_parser() -> argparse.ArgumentParser:
    """The script's options (Figure 9.1's, with α = 2e-4 and 300,000 episodes)."""
    return figure_9_1.build_parser(__doc__, ALPHA, EPISODES)


def main(argv: list[str] | None = None) -> int:
    """Parse `argv`, run the study, write its figure, numbers and snippet."""
    return run_study(STEM, __file__, argv, build_parser(), compute)


if __name__ == "__main__":
    sys.exit(main())
