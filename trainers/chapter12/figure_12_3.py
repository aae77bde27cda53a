"""Sutton & Barto's Figure 12.3: the offline λ-return algorithm on the 19-state random walk, for λ × α.

`OfflineLambdaReturn`'s fast form (`rltorch.engines.linear_prediction`), lane for lane the per-step trainer. Settings,
measure and checks: `trainers.chapter12.lambda_walk`.
"""

from __future__ import annotations

import argparse
import sys

from trainers.chapter12 import lambda_walk
from trainers.chapter12.lambda_walk import run_figure

STEM = "figure_12_3_offline_lambda_return"
BOOK = ('The book: intermediate λ learns best (λ near 0.8, its lowest curve dipping to about 0.25-0.3); at λ '
        '= 1 it is Monte Carlo, at λ = 0 one-step TD.')
ALGORITHM = "offline-lambda-return"
TITLE = "Figure 12.3: the offline λ-return algorithm on the 19-state random walk"


def build_parser() -> argparse.ArgumentParser:
    """The script's options (the λ × α grid's)."""
    return lambda_walk.build_parser(__doc__)


def main(argv: list[str] | None = None) -> int:
    """Parse `argv`, run the study, write its figure, numbers and snippet."""
    return run_figure(STEM, __file__, build_parser(), ALGORITHM, TITLE, BOOK, argv)


if __name__ == "__main__":
    sys.exit(main())
