"""Learning curves of gradient MC on the 1000-state walk for several feature sets (Figures 9.5 and 9.10).

Each curve is √VE after every episode (VE exact, from the walk's model and μ), averaged over the runs with its
standard error; every feature set sees the same walks.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

import numpy as np
from matplotlib.figure import Figure

from rltorch.features.base import Features
from rltorch.run.studies import StudyResult
from trainers.chapter9.lanes import Markdown, mean_and_se, run_settings, yardsticks

LAST = 100  # the episodes averaged for a curve's end


def learning_curves(methods: Sequence[tuple[str, Features, float]], args: argparse.Namespace,
                    title: str, markdown: Markdown) -> StudyResult:
    """Run every (label, features, α) with gradient MC; the figure, the numbers and the curves."""
    curves, numbers = {}, {"runs": args.runs, "episodes": args.episodes, "seed": args.seed, "gamma": 1.0,
                           "algorithm": "gradient-mc", "methods": {}}
    for label, features, alpha in methods:
        lanes = run_settings("1000", features, "gradient-mc", [(alpha, 0.0)], args.episodes, args, label=label)
        root = np.sqrt(np.maximum(lanes.errors[:, 0], 0.0))  # [runs, episodes]
        mean, se = mean_and_se(root)
        end_mean, end_se = mean_and_se(root[:, -min(LAST, args.episodes):].mean(axis=1))
        average, average_se = mean_and_se(root.mean(axis=1))
        curves[label] = (mean, se)
        numbers["methods"][label] = {
            "features": features.config(), "alpha": alpha, "size": features.size,
            "root_ve": {"mean": mean.tolist(), "se": se.tolist()},
            "root_ve_end": {"mean": float(end_mean), "se": float(end_se)},
            "root_ve_average": {"mean": float(average), "se": float(average_se)},
            "root_ve_best_limit": float(np.sqrt(yardsticks("1000", features).ve(yardsticks("1000", features).w_mc)))}
    tags = {f"root_ve/{label}": (list(range(1, args.episodes + 1)), mean.tolist()) for label, (mean, _) in
            curves.items()}
    return StudyResult(draw(curves, args, title), numbers, markdown, tags)


def draw(curves: dict[str, tuple[np.ndarray, np.ndarray]], args: argparse.Namespace, title: str) -> Figure:
    """√VE against episodes, one line per method with a ± 2 standard-error band."""
    figure = Figure(figsize=(7.5, 5), layout="constrained")
    axis = figure.subplots()
    episodes = np.arange(1, args.episodes + 1)
    for label, (mean, se) in curves.items():
        line = axis.plot(episodes, mean, label=label, linewidth=1)[0]
        axis.fill_between(episodes, mean - 2 * se, mean + 2 * se, color=line.get_color(), alpha=0.2)
    axis.set_xlabel("episodes")
    axis.set_ylabel(f"√VE, averaged over {args.runs} runs")
    axis.set_ylim(0, 0.5)
    axis.legend(fontsize=8)
    figure.suptitle(title)
    return figure


def end_rows(numbers: dict) -> list[list[str]]:
    """One table row per method: α, features, √VE at the end and on average, and the exact best √VE."""
    rows = []
    for label, method in numbers["methods"].items():
        end, average = method["root_ve_end"], method["root_ve_average"]
        rows.append([label, f"{method['alpha']:g}", method["size"], f"{end['mean']:.4f} ± {end['se']:.4f}",
                     f"{average['mean']:.4f} ± {average['se']:.4f}", f"{method['root_ve_best_limit']:.4f}"])
    return rows


HEADER = ["method", "α", "features", f"√VE, last {LAST} episodes (± SE)", "√VE, all episodes (± SE)",
          "exact √VE of the MC limit"]


if __name__ == "__main__":
    print("curves.py is a module of figure_9_5.py"
          "; run python trainers/chapter9/figure_9_5.py --help", file=sys.stderr)
    sys.exit(2)
