"""Sutton & Barto's Figure 9.1: gradient Monte Carlo with state aggregation on the 1000-state random walk.

Ten groups of 100 states, one weight each, α = 2e-5, 100,000 episodes from zero weights, γ = 1 (the book's
settings). The book shows one run; here --runs independent runs give each group's weight a mean and a standard
error, checked against the project's exact asymptote of gradient MC, the μ-weighted projection of v_π on the
groups (`rltorch.mdp.linear`): each mean must lie within --tolerance standard errors of it. The figure draws
v_π, the learned step function and the on-policy distribution μ, all exact but the learned weights.
"""

from __future__ import annotations

import argparse
import sys

import numpy as np
from matplotlib.figure import Figure

from rltorch.features import StateAggregation
from rltorch.mdp.linear import LinearYardsticks
from rltorch.run.options import at_most, positive_float
from rltorch.run.studies import StudyResult, run_study, study_parser, table, timing
from trainers.chapter9.lanes import Lanes, Markdown, mean_and_se, run_settings, yardsticks

STEM = "figure_9_1_gradient_mc_aggregation"
GROUPS, ALPHA = 10, 2e-5
EXPECTED = ("Expected after the run: the mean-field weights w* − (I − αA)^T w* after the run's expected T steps from "
            "0 (each step's expected update is α(b − Aw); exact from the walk's model); after {episodes:,} episodes "
            "they still differ from {limit} by up to {gap:.4f} where the groups are visited least or the values must "
            "travel farthest. Distances are in standard errors of the mean over the runs.")


def compute(args: argparse.Namespace) -> StudyResult:
    """Run gradient MC, compare the weights with the exact asymptote, draw the figure."""
    return aggregation_study(args, "gradient-mc", 0.0, "mc", "gradient MC", markdown_9_1)


def aggregation_study(args: argparse.Namespace, algorithm: str, param: float, kind: str, method: str,
                      markdown: Markdown) -> StudyResult:
    """Run `algorithm` (`param`, --alpha) with GROUPS groups on the 1000-state walk; `weights_result` vs w_`kind`."""
    features = StateAggregation(GROUPS, 1, 1001)
    sticks = yardsticks("1000", features)
    lanes = run_settings("1000", features, algorithm, [(args.alpha, param)], args.episodes, args)
    return weights_result(args, sticks, lanes, f"w_{kind}", method, markdown,
                          sticks.expected_weights(kind, args.alpha, args.episodes * sticks.steps))


def weights_result(args: argparse.Namespace, sticks: LinearYardsticks, lanes: Lanes, limit_name: str, method: str,
                   markdown: Markdown, expected: np.ndarray) -> StudyResult:
    """Figure 9.1 and Figure 9.2 (left): the learned weights against their exact limit `limit_name` and against
    `expected`, the mean-field weights expected after the run's steps (`LinearYardsticks.expected_weights`)."""
    weights, limit = lanes.weights[:, 0], getattr(sticks, limit_name)
    mean, se = mean_and_se(weights)
    ve_mean, ve_se = mean_and_se(lanes.errors[:, 0, -1])
    gap = np.abs(mean - expected) / np.where(se > 0, se, np.inf)
    raw_gap = np.abs(mean - limit) / np.where(se > 0, se, np.inf)
    spread = se * np.sqrt(len(weights))  # one run's standard error: the runs' standard deviation
    run_gap = (np.abs(weights - limit) / np.where(spread > 0, spread, np.inf)).max(axis=0)
    numbers = {
        "runs": args.runs, "episodes": args.episodes, "alpha": args.alpha, "groups": GROUPS, "seed": args.seed,
        "gamma": 1.0, "true_values": sticks.v.tolist(), "mu": sticks.mu.tolist(),
        "weights": {"mean": mean.tolist(), "se": se.tolist(), "by_run": weights.tolist(), "run_sd": spread.tolist()},
        limit_name: limit.tolist(), "largest_run_distance_to_limit_in_run_sd": run_gap.tolist(),
        "expected_after_run": expected.tolist(), "expected_gap": float(np.abs(expected - limit).max()),
        "distance_in_se": gap.tolist(),
        "distance_to_limit_in_se": raw_gap.tolist(), "tolerance_in_se": args.tolerance,
        "agrees": bool((gap <= args.tolerance).all()), "agrees_with_limit": bool((raw_gap <= args.tolerance).all()),
        "runs_agree_with_limit": bool((run_gap <= args.tolerance).all()),
        "ve_final": {"mean": float(ve_mean), "se": float(ve_se)}, "ve_of_limit": sticks.ve(limit)}
    curves = {"weights/mean": (list(range(GROUPS)), mean.tolist()), f"weights/{limit_name}":
              (list(range(GROUPS)), limit.tolist())}
    return StudyResult(draw(sticks, mean, se, limit, limit_name, method, args), numbers, markdown, curves)


def draw(sticks: LinearYardsticks, mean: np.ndarray, se: np.ndarray, limit: np.ndarray, limit_name: str, method: str,
         args: argparse.Namespace) -> Figure:
    """v_π, the learned groups (mean ± standard error), their exact limit, and μ on a second axis."""
    figure = Figure(figsize=(8, 5), layout="constrained")
    axis = figure.subplots()
    states = np.arange(1, 1001)
    group = (states - 1) // (1000 // GROUPS)
    axis.plot(states, sticks.v, color="tab:red", label="true value v_π")
    axis.step(states, mean[group], where="mid", color="tab:blue", label=f"{method}: v̂ (mean of {args.runs} runs)")
    axis.fill_between(states, (mean - 2 * se)[group], (mean + 2 * se)[group], color="tab:blue", alpha=0.3, step="mid")
    axis.step(states, limit[group], where="mid", color="black", linestyle=":", label=f"exact limit ({limit_name})")
    axis.set_xlabel("state")
    axis.set_ylabel("value scale")
    axis.legend(loc="upper left", fontsize=8)
    share = axis.twinx()
    share.fill_between(states, sticks.mu, step="mid", color="tab:gray", alpha=0.4)
    share.set_ylim(0, 1.05 * float(sticks.mu.max()))
    share.set_ylabel("distribution scale (μ, exact)")
    figure.suptitle(f"{method}, {GROUPS} groups, α = {args.alpha:g}, {args.episodes:,} episodes on the 1000-state walk")
    return figure


def weights_markdown(title: str, numbers: dict, command: str, png: str, limit_name: str, book: str,
                     expected: str) -> str:
    """The README snippet of Figures 9.1 and 9.2 (left)."""
    rows = [[g + 1, f"{m:.4f}", f"{s:.4f}", f"{w:.4f}", f"{r:.1f}", f"{e:.4f}", f"{d:.1f}"]
            for g, (m, s, w, r, e, d) in enumerate(zip(
                numbers["weights"]["mean"], numbers["weights"]["se"], numbers[limit_name],
                numbers["distance_to_limit_in_se"], numbers["expected_after_run"], numbers["distance_in_se"],
                strict=True))]
    verdict = "Holds" if numbers["agrees"] else "Does not hold"
    farthest, run_farthest = max(numbers["distance_to_limit_in_se"]), max(
        numbers["largest_run_distance_to_limit_in_run_sd"])
    against_limit = (f"{'within' if numbers['agrees_with_limit'] else 'not within'} them of the exact limit "
                     f"{limit_name} itself (the farthest group at {farthest:.1f}); each run's own weights, whose "
                     f"standard error is the runs' standard deviation, lie "
                     f"{'within' if numbers['runs_agree_with_limit'] else 'not within'} {numbers['tolerance_in_se']:g} "
                     f"of those of {limit_name} (the farthest at {run_farthest:.1f})")
    return f"""### {title}

```bash
{command}
```

![{title}]({png})

{numbers['runs']} runs of {numbers['episodes']:,} episodes, α = {numbers['alpha']:g}, {numbers['groups']} groups,
weights from 0, γ = 1 ({timing(numbers)}). {book}

{table(["group", "mean weight", "standard error", f"exact {limit_name}", "distance (SE)",
        "expected after the run", "distance (SE)"], rows)}

{expected}

{verdict}: every group's mean weight lies within {numbers['tolerance_in_se']:g} standard errors of the weight
expected after the run, and {against_limit} (VE at the end {numbers['ve_final']['mean']:.5f} ±
{numbers['ve_final']['se']:.5f}; VE of the exact limit {numbers['ve_of_limit']:.5f}).
"""


def markdown_9_1(numbers: dict, command: str, png: str) -> str:
    """Figure 9.1's snippet."""
    return weights_markdown("Figure 9.1: gradient Monte Carlo with state aggregation", numbers, command, png, "w_mc",
                            "The book: the learned values are a staircase close to the μ-weighted average of v_π "
                            "in each group, pulled toward the states μ visits most.",
                            EXPECTED.format(limit="w_mc", episodes=numbers["episodes"],
                                            gap=numbers["expected_gap"]))


def build_parser(description: str | None = __doc__, alpha: float = ALPHA,
                 episodes: int = 100_000) -> argparse.ArgumentParser:
    """The options of Figures 9.1 and 9.2 (left)."""
    parser = study_parser(description, runs=10, episodes=episodes, alpha=alpha, max_episodes=1_000_000)
    parser.add_argument("--tolerance", type=at_most(positive_float, 1000.0), default=4.0,
                        help="how many standard errors a mean weight may lie from its exact limit")
    return parser


def main(argv: list[str] | None = None) -> int:
    """Parse `argv`, run the study, write its figure, numbers and snippet."""
    return run_study(STEM, __file__, argv, build_parser(), compute)


if __name__ == "__main__":
    sys.exit(main())
