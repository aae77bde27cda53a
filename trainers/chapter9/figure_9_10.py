"""Sutton & Barto's Figure 9.10: one tiling against 50 tilings for gradient MC on the 1000-state random walk.

The states are one continuous dimension covered by tiles 200 states wide (`TileCoder` over [1, 1001] with 5
tiles), either one tiling or 50 tilings offset from each other by 4 states; α = 1e-4 for one tiling and
1e-4 / 50 for 50 tilings, so that the initial learning rate is the same (the book's settings). Gradient MC for
5,000 episodes from zero weights, γ = 1; √VE after every episode, exact, averaged over --runs runs (the book: 30).
"""

from __future__ import annotations

import argparse
import sys

from rltorch.features import TileCoder
from rltorch.run.studies import StudyResult, run_study, study_parser, table, timing
from trainers.chapter9.curves import HEADER, end_rows, learning_curves

STEM = "figure_9_10_tilings"
ALPHA = 1e-4


def compute(args: argparse.Namespace) -> StudyResult:
    """One tiling and 50 tilings."""
    methods = [(f"{n} tiling{'s' if n > 1 else ''}", TileCoder(1, 1001, tilings=n, tiles=5), ALPHA / n)
               for n in (1, 50)]
    return learning_curves(methods, args, "Figure 9.10: one tiling vs 50 tilings, gradient MC, 1000-state walk",
                           markdown)


def markdown(numbers: dict, command: str, png: str) -> str:
    """The README snippet: 50 tilings below one tiling?"""
    one, many = numbers["methods"]["1 tiling"], numbers["methods"]["50 tilings"]
    ok = all(many[key]["mean"] < one[key]["mean"] for key in ("root_ve_end", "root_ve_average"))
    return f"""### Figure 9.10: one tiling against 50 tilings

```bash
{command}
```

![Figure 9.10]({png})

{numbers['runs']} runs of {numbers['episodes']:,} episodes of gradient MC, tiles 200 states wide, 50 tilings 4
states apart, weights from 0, γ = 1 ({timing(numbers)}). The book: multiple tilings learn faster and better
than one tiling at the same initial learning rate.

{table(HEADER, end_rows(numbers))}

{'Matches' if ok else 'Does not match'}: 50 tilings lie below one tiling both over all episodes and at the end.
"""


def build_parser() -> argparse.ArgumentParser:
    """The script's options."""
    return study_parser(__doc__, runs=30, episodes=5000)


def main(argv: list[str] | None = None) -> int:
    """Parse `argv`, run the study, write its figure, numbers and snippet."""
    return run_study(STEM, __file__, argv, build_parser(), compute)


if __name__ == "__main__":
    sys.exit(main())
