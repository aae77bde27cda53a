"""Sutton & Barto's Figure 9.5: polynomial against Fourier bases for gradient MC on the 1000-state random walk.

Orders 5, 10 and 20 of each basis (n + 1 features of the state scaled to [0, 1]: (s − 1) / 999), gradient
Monte Carlo for 5,000 episodes from zero weights, γ = 1, with the book's step sizes α = 1e-4 (polynomial) and
α = 5e-5 (Fourier); √VE after every episode, exact, averaged over --runs runs (the book: 30).
"""

from __future__ import annotations

import argparse
import sys

from rltorch.features import FourierBasis, PolynomialBasis
from rltorch.run.studies import StudyResult, run_study, study_parser, table, timing
from trainers.chapter9.curves import HEADER, end_rows, learning_curves

STEM = "figure_9_5_polynomial_fourier"
ORDERS = (5, 10, 20)
POLYNOMIAL_ALPHA, FOURIER_ALPHA = 1e-4, 5e-5


def compute(args: argparse.Namespace) -> StudyResult:
    """Every basis and order."""
    methods = [(f"polynomial, order {n}", PolynomialBasis(n, 1, 1000), POLYNOMIAL_ALPHA) for n in ORDERS]
    methods += [(f"Fourier, order {n}", FourierBasis(n, 1, 1000), FOURIER_ALPHA) for n in ORDERS]
    return learning_curves(methods, args, "Figure 9.5: polynomial vs Fourier bases, gradient MC, 1000-state walk",
                           markdown)


def markdown(numbers: dict, command: str, png: str) -> str:
    """The README snippet: Fourier below polynomial at every order?"""
    methods = numbers["methods"]
    below = {n: methods[f"Fourier, order {n}"]["root_ve_end"]["mean"] < methods[f"polynomial, order {n}"][
        "root_ve_end"]["mean"] for n in ORDERS}
    ok = all(below.values())
    return f"""### Figure 9.5: polynomial against Fourier bases

```bash
{command}
```

![Figure 9.5]({png})

{numbers['runs']} runs of {numbers['episodes']:,} episodes of gradient MC, weights from 0, γ = 1, states scaled to
[0, 1] ({timing(numbers)}). The book: the Fourier basis learns better than the polynomials at every order (and
the book advises against polynomials for online learning).

{table(HEADER, end_rows(numbers))}

{'Matches' if ok else 'Does not match'}: Fourier ends below polynomial at order
{', '.join(f"{n} ({'yes' if b else 'no'})" for n, b in below.items())}.
"""


def build_parser() -> argparse.ArgumentParser:
    """The script's options."""
    return study_parser(__doc__, runs=30, episodes=5000)


def main(argv: list[str] | None = None) -> int:
    """Parse `argv`, run the study, write its figure, numbers and snippet."""
    return run_study(STEM, __file__, argv, build_parser(), compute)


if __name__ == "__main__":
    sys.exit(main())
