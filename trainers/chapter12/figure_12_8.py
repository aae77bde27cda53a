"""Sutton & Barto's Figure 12.8: true online TD(λ) on the 19-state random walk, for λ × α.

`TrueOnlineTDLambda`'s fast form (`rltorch.engines.linear_prediction`), lane for lane the per-step trainer. Settings,
measure and checks: `trainers.chapter12.lambda_walk`.
"""

from __future__ import annotations

import argparse
import sys

from rltorch.run.studies import StudyResult, run_study
from trainers.chapter12 import lambda_walk
from trainers.chapter12.lambda_walk import compute_grid, grid_markdown

STEM = "figure_12_8_true_online_td_lambda"
BOOK = ("The book: true online TD(λ) follows the offline λ-return algorithm's curves (Figure 12.3) closely, "
        "best near λ = 0.8, without TD(λ)'s instability at large α.")
TITLE = "Figure 12.8: true online TD(λ) on the 19-state random walk"


def compute(args: argparse.Namespace) -> StudyResult:
    """The λ × α grid."""
    return compute_grid(args, "true-online-td-lambda", TITLE, markdown)


def markdown(numbers: dict, command: str, png: str) -> str:
    """The README snippet."""
    return grid_markdown(TITLE, BOOK, numbers, command, png)


def build_parser() -> argparse.ArgumentParser:
    """The script's options (the λ × α grid's)."""
    return lambda_walk.build_parser(__doc__)


def main(argv: list[str] | None = None) -> int:
    """Parse `argv`, run the study, write its figure, numbers and snippet."""
    return run_study(STEM, __file__, argv, build_parser(), compute)


if __name__ == "__main__":
    sys.exit(main())
