"""Figure 6.3's picture, its TensorBoard curves, and the book's orderings checked on its numbers."""

from __future__ import annotations

from typing import Any

from matplotlib.figure import Figure

from rltorch.logger import TensorBoardLogger
from rltorch.run.output import refuse_to_run
from trainers.chapter6.figure_6_3_curves import LABELS, METHODS, SliceCurves

FLOOR = -160.0  # the book's axis; lower points are drawn on it, with their value written beside
COLOURS = {"sarsa": "tab:blue", "expected-sarsa": "tab:red", "qlearning": "black"}
STYLES = {"interim": ("--", "v"), "asymptotic": ("-", "o")}


def draw(results: dict[str, SliceCurves], alphas: list[float]) -> Figure:
    """Sum of rewards per episode against alpha: interim (dashed) and asymptotic (solid) for each method."""
    figure = Figure(figsize=(6.4, 4.6))
    axis = figure.subplots()
    for phase, sums in results.items():
        mean = sums.finish()["mean"]
        line, marker = STYLES[phase]
        for index, method in enumerate(METHODS):
            shown = [max(value, FLOOR) for value in mean[index]]
            axis.plot(alphas, shown, line, marker=marker, markersize=4, color=COLOURS[method],
                      label=f"{phase.capitalize()} {LABELS[method]}")
            for alpha, value in zip(alphas, mean[index], strict=True):
                if value < FLOOR:
                    axis.annotate(f"{value:.0f}", (alpha, FLOOR), xytext=(-4, 6), textcoords="offset points",
                                  fontsize=7, color=COLOURS[method], ha="right")
    axis.set_xlabel("alpha (step size)")
    axis.set_ylabel("Sum of rewards per episode")
    runs = {phase: sums.runs for phase, sums in results.items()}
    episodes = {phase: sums.episodes for phase, sums in results.items()}
    axis.set_title(f"Figure 6.3, cliff walking (epsilon 0.1): interim {runs['interim']:,} runs x "
                   f"{episodes['interim']:,} episodes,\nasymptotic {runs['asymptotic']:,} runs x "
                   f"{episodes['asymptotic']:,} episodes", fontsize=9)
    axis.set_ylim(FLOOR - 5, 0.0)
    axis.set_xticks(alphas)
    axis.grid(alpha=0.3)
    axis.legend(fontsize=7, loc="lower center", ncol=2)
    figure.tight_layout()
    return figure


def log_curves(logger: TensorBoardLogger, results: dict[str, SliceCurves], alphas: list[float]) -> None:
    """The figure's points (step: 100 alpha) and every (method, alpha)'s learning curve (step: episodes)."""
    for phase, sums in results.items():
        finished = sums.finish()
        for j, alpha in enumerate(alphas):
            logger.scalars({f"figure_{phase}/{m}": float(finished["mean"][i, j]) for i, m in enumerate(METHODS)},
                           round(100 * alpha))
        blocks = finished["blocks"]
        for point in range(blocks.shape[-1]):
            logger.scalars({f"{phase}_curve/{m}/alpha_{alpha:g}": float(blocks[i, j, point])
                            for i, m in enumerate(METHODS) for j, alpha in enumerate(alphas)},
                           (point + 1) * sums.block)


def book_checks(report: dict[str, Any], alphas: list[float]) -> dict[str, bool]:
    """The orderings the book's figure shows, where this run's step sizes allow them to be read."""
    interim, asymptotic = report["interim"], report["asymptotic"]
    largest = alphas.index(max(alphas))
    checks = {
        f"interim: Expected Sarsa >= Sarsa at alpha {alphas[largest]:g}":
            interim["Expected Sarsa"][largest] >= interim["Sarsa"][largest],
        "asymptotic: Expected Sarsa >= Q-learning at every alpha":
            all(e >= q for e, q in zip(asymptotic["Expected Sarsa"], asymptotic["Q-learning"], strict=True)),
    }
    if 0.5 in alphas:
        half = alphas.index(0.5)
        checks["interim: Q-learning < Sarsa at alpha 0.5 (online return)"] = \
            interim["Q-learning"][half] < interim["Sarsa"][half]
    if 0.1 in alphas:
        tenth = alphas.index(0.1)
        checks["asymptotic: Q-learning < Sarsa at alpha 0.1 (online return)"] = \
            asymptotic["Q-learning"][tenth] < asymptotic["Sarsa"][tenth]
    return checks


if __name__ == "__main__":
    refuse_to_run(__file__, "figure_6_3.py", "trainers/chapter6/figure_6_3.py")
