"""Sutton & Barto's Figure 9.2 (right): n-step semi-gradient TD with 20 groups on the 1000-state random walk.

Twenty groups of 50 states, weights from zero, γ = 1, n = 1, 2, 4, ..., 512 and α in [0, 1]. The measure, as
in the book's Figure 7.2, is the root-mean-square error over the 1000 states (unweighted, against the exact
v_π) after each episode, averaged over the first --episodes episodes and over --runs runs; every (n, α) sees
the same walks. The numbers give each point's mean and standard error over the runs.
"""

from __future__ import annotations

import argparse
import sys

import numpy as np
from matplotlib.figure import Figure

from rltorch.features import StateAggregation
from rltorch.run.studies import StudyResult, run_study, study_parser, table, timing
from trainers.chapter7.nstep_random_walk import numbers_list
from trainers.chapter9.lanes import draw_alpha_grid, finite, finite_curve, mean_and_se, run_settings

STEM = "figure_9_2_right_nstep_td"
NS = tuple(2**k for k in range(10))
ALPHAS = (0.0, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
GROUPS = 20


def compute(args: argparse.Namespace) -> StudyResult:
    """Every (n, α) over the runs: RMS error per episode, averaged over the episodes."""
    settings = [(alpha, float(n)) for n in args.ns for alpha in args.alphas]
    lanes = run_settings("1000", StateAggregation(GROUPS, 1, 1001), "nstep-semi-gradient-td", settings,
                         args.episodes, args, mean_square=True)
    per_run = np.sqrt(np.maximum(lanes.errors, 0.0)).mean(axis=2)  # [runs, settings]
    mean, se = (part.reshape(len(args.ns), len(args.alphas)) for part in mean_and_se(per_run))
    best = {n: int(np.nanargmin(np.where(np.isfinite(mean[i]), mean[i], np.nan))) for i, n in enumerate(args.ns)}
    numbers = {"runs": args.runs, "episodes": args.episodes, "seed": args.seed, "groups": GROUPS, "gamma": 1.0,
               "alphas": list(args.alphas), "ns": list(args.ns),
               "rms_error": {str(n): {"mean": finite(mean[i]), "se": finite(se[i])} for i, n in enumerate(args.ns)},
               "best_alpha_by_n": {str(n): {"alpha": args.alphas[k], "rms_error": float(mean[i, k]),
                                            "se": float(se[i, k])} for i, (n, k) in enumerate(best.items())}}
    curves = {f"rms_error_by_1000_alpha/n_{n}": finite_curve([round(1000 * a) for a in args.alphas], mean[i])
              for i, n in enumerate(args.ns)}
    return StudyResult(draw(mean, se, args), numbers, markdown, curves)


def draw(mean: np.ndarray, se: np.ndarray, args: argparse.Namespace) -> Figure:
    """Average RMS error against α, one line per n (± 2 standard errors), on the book's axes."""
    return draw_alpha_grid(mean, se, args.alphas, [f"n={n}" for n in args.ns],
                           f"average RMS error over 1000 states and first {args.episodes} episodes",
                           f"mean of {args.runs} runs, {GROUPS} groups (bands: ± 2 standard errors)",
                           "Figure 9.2 (right): n-step semi-gradient TD on the 1000-state walk")


def markdown(numbers: dict, command: str, png: str) -> str:
    """The README snippet."""
    by_n = numbers["best_alpha_by_n"]
    rows = [[n, f"{b['alpha']:g}", f"{b['rms_error']:.3f} ± {b['se']:.3f}"] for n, b in by_n.items()]
    best_n = min(by_n, key=lambda n: by_n[n]["rms_error"])
    ok = int(best_n) in (2, 4, 8, 16)
    return f"""### Figure 9.2 (right): n-step semi-gradient TD with state aggregation

```bash
{command}
```

![Figure 9.2 (right)]({png})

{numbers['runs']} runs, {numbers['groups']} groups, RMS error over the 1000 states averaged over the first
{numbers['episodes']} episodes, weights from 0, γ = 1 ({timing(numbers)}). The book: as in Figure 7.2, an
intermediate n learns best (its lowest curves, n = 4 and 8, dip to about 0.3).

{table(["n", "best α", "its average RMS error (± SE)"], rows)}

{'Matches' if ok else 'Does not match'}: the best n is {best_n}, at α = {by_n[best_n]['alpha']:g}
({by_n[best_n]['rms_error']:.3f}).
"""


def build_parser() -> argparse.ArgumentParser:
    """The script's options."""
    parser = study_parser(__doc__, runs=100, episodes=10)
    parser.add_argument("--ns", type=numbers_list(int, "n from 1"), default=NS, help="the values of n")
    parser.add_argument("--alphas", type=numbers_list(float, "step sizes in [0, 1]"), default=ALPHAS,
                        help="the step sizes")
    return parser


def main(argv: list[str] | None = None) -> int:
    """Parse `argv`, run the study, write its figure, numbers and snippet."""
    return run_study(STEM, __file__, argv, build_parser(), compute)


if __name__ == "__main__":
    sys.exit(main())
