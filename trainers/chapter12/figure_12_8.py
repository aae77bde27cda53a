"""Sutton & Barto's Figure 12.8: true online TD(λ) on the 19-state random walk, for λ × α.

`TrueOnlineTDLambda`'s fast form (`rltorch.engines.linear_prediction`), lane for lane the per-step trainer. Settings,
measure and checks: `trainers.chapter12.lambda_walk`.
"""

from __future__ import annotations

import argparse
import sys

from trainers.chapter12 import lambda_walk
from trainers.chapter12.lambda_walk import run_figure

STEM = "figure_12_8_true_online_td_lambda"
BOOK = ("The book: true online TD(λ) follows the offline λ-return algorithm's curves (Figure 12.3) closely, "
        "best near λ = 0.8, without TD(λ)'s instability at large α.")
ALGORITHM = "true-online-td-lambda"
TITLE = "Figure 12.8: true online TD(λ) on the 19-state random walk"


def build_parser() -> argparse.ArgumentParser:
    """The script's options (the λ × α grid's)."""
    return lambda_walk.build_parser(__doc__)


def main(argv: list[str] | None = None) -> int:
    """Parse `argv`, run the study, write its figure, numbers and snippet."""
    return run_figure(STEM, __file__, build_parser(), ALGORITHM, TITLE, BOOK, argv)


if __name__ == "__main__":
    sys.exit(main())
