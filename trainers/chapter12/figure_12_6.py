"""Sutton & Barto's Figure 12.6: TD(λ) with accumulating traces on the 19-state random walk, for λ × α.

`TDLambda`'s fast form (`rltorch.engines.linear_prediction`), lane for lane the per-step trainer. Settings,
measure and checks: `trainers.chapter12.lambda_walk`.
"""

from __future__ import annotations

import argparse
import sys

from trainers.chapter12 import lambda_walk
from trainers.chapter12.lambda_walk import run_figure

STEM = "figure_12_6_td_lambda"
BOOK = ('The book: TD(λ) does about as well as the offline λ-return at small α and its best λ is again '
        'intermediate (near 0.8), but at large α and large λ it does much worse and can diverge.')
ALGORITHM = "td-lambda"
TITLE = "Figure 12.6: TD(λ) with accumulating traces on the 19-state random walk"


def build_parser() -> argparse.ArgumentParser:
    """The script's options (the λ × α grid's)."""
    return lambda_walk.build_parser(__doc__)


def main(argv: list[str] | None = None) -> int:
    """Parse `argv`, run the study, write its figure, numbers and snippet."""
    return run_figure(STEM, __file__, build_parser(), ALGORITHM, TITLE, BOOK, argv)


if __name__ == "__main__":
    sys.exit(main())
