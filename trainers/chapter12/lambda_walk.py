"""The 19-state random walk studies of chapter 12 (Figures 12.3, 12.6, 12.8): one method over a λ × α grid.

The walk of chapter 7 (rewards -1 and +1 at the ends, γ = 1), tabular features (one weight per state:
`StateAggregation` with 19 groups), weights from 0. The measure is the book's: the RMS error over the 19 states
(against the exact v_π) at the end of each episode, averaged over the first --episodes episodes and over --runs
runs, with its standard error over the runs; every (λ, α) sees the same walks. A run that diverges (large α and
λ for TD(λ)) has an infinite error, shown off the axes and written as null.
"""

from __future__ import annotations

import argparse
import sys

import numpy as np
from matplotlib.figure import Figure

from rltorch.features import StateAggregation
from rltorch.run.studies import StudyResult, run_study, study_parser, table, timing
from trainers.chapter7.nstep_random_walk import numbers_list
from trainers.chapter9.lanes import Markdown, draw_alpha_grid, finite, finite_curve, mean_and_se, run_settings

LAMBDAS = (0.0, 0.4, 0.8, 0.9, 0.95, 0.975, 0.99, 1.0)
ALPHAS = (0.0, 0.01, 0.025, 0.05, 0.075, 0.1, 0.125, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7,
          0.75, 0.8, 0.85, 0.9, 0.95, 1.0)


def compute_grid(args: argparse.Namespace, algorithm: str, title: str, markdown: Markdown) -> StudyResult:
    """Every (λ, α) of `algorithm`: the average RMS error with its standard error, the best α of each λ."""
    settings = [(alpha, lam) for lam in args.lambdas for alpha in args.alphas]
    with np.errstate(over="ignore", invalid="ignore"):
        lanes = run_settings("19", StateAggregation(19, 1, 20), algorithm, settings, args.episodes, args,
                             mean_square=True)
        per_run = np.sqrt(np.maximum(lanes.errors, 0.0)).mean(axis=2)  # [runs, settings]
        per_run[~np.isfinite(per_run)] = np.inf
        mean, se = (part.reshape(len(args.lambdas), len(args.alphas)) for part in mean_and_se(per_run))
    best = {}
    for i, lam in enumerate(args.lambdas):
        k = int(np.argmin(np.where(np.isfinite(mean[i]), mean[i], np.inf)))
        best[str(lam)] = {"alpha": args.alphas[k], "rms_error": float(mean[i, k]), "se": float(se[i, k])}
    best_lambda = min(best, key=lambda lam: best[lam]["rms_error"])
    numbers = {"algorithm": algorithm, "runs": args.runs, "episodes": args.episodes, "seed": args.seed,
               "gamma": 1.0, "features": "tabular (19 groups)", "lambdas": list(args.lambdas),
               "alphas": list(args.alphas),
               "rms_error": {str(lam): {"mean": finite(mean[i]), "se": finite(se[i])}
                             for i, lam in enumerate(args.lambdas)},
               "best_alpha_by_lambda": best, "best": {"lambda": float(best_lambda), **best[best_lambda]}}
    curves = {f"rms_error_by_1000_alpha/lambda_{lam}": finite_curve([round(1000 * a) for a in args.alphas], mean[i])
              for i, lam in enumerate(args.lambdas)}
    return StudyResult(draw(mean, se, args, title), numbers, markdown, curves)


def draw(mean: np.ndarray, se: np.ndarray, args: argparse.Namespace, title: str) -> Figure:
    """Average RMS error against α, one line per λ (± 2 standard errors), on the book's axes."""
    return draw_alpha_grid(mean, se, args.alphas, [f"λ={lam:g}" for lam in args.lambdas],
                           f"RMS error over 19 states, averaged over the first {args.episodes} episodes",
                           f"mean of {args.runs} runs (bands: ± 2 standard errors)", title)


def grid_markdown(title: str, book: str, numbers: dict, command: str, png: str) -> str:
    """The README snippet of one λ × α figure: each λ's best α, and whether the best λ is near 0.8."""
    rows = [[f"{float(lam):g}", f"{b['alpha']:g}", f"{b['rms_error']:.3f} ± {b['se']:.3f}"]
            for lam, b in numbers["best_alpha_by_lambda"].items()]
    best = numbers["best"]
    ok = best["lambda"] in (0.8, 0.9)
    return f"""### {title}

```bash
{command}
```

![{title}]({png})

{numbers['runs']} runs, RMS error over the 19 states at the end of each episode averaged over the first
{numbers['episodes']} episodes, tabular weights from 0, γ = 1 ({timing(numbers)}). {book}

{table(["λ", "best α", "its average RMS error (± SE)"], rows)}

{'Matches' if ok else 'Does not match'}: the best pair is λ = {best['lambda']:g}, α = {best['alpha']:g}
({best['rms_error']:.3f} ± {best['se']:.3f}).
"""


def build_parser(description: str) -> argparse.ArgumentParser:
    """The options of a λ × α study."""
    parser = study_parser(description, runs=100, episodes=10)
    parser.add_argument("--lambdas", type=numbers_list(float, "λ values in [0, 1]"), default=LAMBDAS,
                        help="the values of λ")
    parser.add_argument("--alphas", type=numbers_list(float, "step sizes in [0, 1]"), default=ALPHAS,
                        help="the step sizes")
    return parser


def run_figure(stem: str, script: str, parser: argparse.ArgumentParser, algorithm: str, title: str, book: str,
               argv: list[str] | None) -> int:
    """Run one λ × α figure script: parse `argv`, compute `algorithm`'s grid, write its figure, numbers, snippet."""
    def compute(args: argparse.Namespace) -> StudyResult:
        return compute_grid(args, algorithm, title, markdown)

    def markdown(numbers: dict, command: str, png: str) -> str:
        return grid_markdown(title, book, numbers, command, png)

    return run_study(stem, script, argv, parser, compute)


if __name__ == "__main__":
    print("lambda_walk.py is a module of figure_12_3.py"
          "; run python trainers/chapter12/figure_12_3.py --help", file=sys.stderr)
    sys.exit(2)
