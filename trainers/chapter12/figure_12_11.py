"""Sutton & Barto's Figure 12.11: true online SARSA(λ) against SARSA(λ) with three kinds of trace.

Mountain Car, λ = 0.9, reward per episode (minus the steps) averaged over the first 20 episodes and 100
runs, against the step size alpha x 8 (8 tilings of 8 x 8 tiles, epsilon 0, gamma 1, weights starting at 0).
The book's figure does not print its λ; 0.9 is our choice. Its fourth method, replacing traces that also set to
0 the traces of the state's actions not taken, is `--trace clearing`. The book: true online SARSA(λ) does
best, accumulating traces worst and only at small step sizes. Runs on the batched engine (`trainers.chapter10`),
lane for lane `rltorch train --algo true-online-sarsa-lambda` and `--algo sarsa-lambda`; see
`trainers.chapter10.runs` for the episode cap.
"""

from __future__ import annotations

import argparse
import sys

from rltorch.run.options import unit_float
from rltorch.run.studies import StudyResult, run_study, timing
from trainers.chapter10.runs import alphas_option, mountain_car_parser, option, sweep_study, sweep_table

STEM = "figure_12_11_mountain_car_true_online"
ALPHAS = (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0)  # alpha x 8
LINES = {"true online SARSA(lambda)": "true-online-sarsa-lambda",
         "SARSA(lambda), replacing traces": "sarsa-lambda-replacing",
         "SARSA(lambda), replacing and clearing": "sarsa-lambda-clearing",
         "SARSA(lambda), accumulating traces": "sarsa-lambda-accumulating"}


def compute(args: argparse.Namespace) -> StudyResult:
    """Every (method, alpha) over the same runs: mean reward per episode over the first --episodes episodes."""
    result = sweep_study(args, {label: (code, 1, args.lam) for label, code in LINES.items()}, markdown,
                         ("mean_reward_by_1000_alpha_x_tilings", list(LINES.values())),
                         f"Figure 12.11: SARSA(lambda) methods on Mountain Car, lambda = {args.lam:g}",
                         f"reward per episode, mean of the first {args.episodes} episodes and {args.runs} runs",
                         (-550, -150), sign=-1.0)
    result.numbers["lambda"] = args.lam
    return result


def markdown(numbers: dict, command: str, png: str) -> str:
    """The README snippet: the command, each method's best alpha, and what matches the book."""
    best = numbers["best"]
    by_line = best["by_line"]
    online, *others, accumulating = (by_line[label] for label in LINES)
    lines = list(numbers["lines"].values())
    comparisons = [compared(online, other, name, lines[0]["mean"], line["mean"])
                   for other, name, line in zip(others, ("replacing traces", "replacing and clearing"), lines[1:3],
                                                strict=True)]
    worst = accumulating["mean_steps"] > max(b["mean_steps"] for b in (online, *others))
    verdict = (f"true online SARSA(λ) is {comparisons[0]}; it is {comparisons[1]}. Accumulating traces are "
               f"{'the worst' if worst else 'not the worst'} ({-accumulating['mean_steps']:.1f} at alpha = "
               f"{accumulating['alpha_times_tilings']:g}/8).")
    return f"""### Figure 12.11: true online SARSA(λ) against SARSA(λ)

```bash
{command}
```

![Figure 12.11]({png})

{numbers['runs']} runs, λ = {numbers['lambda']:g}, reward per episode over the first {numbers['first_episodes']}
episodes, error bars of one standard error ({timing(numbers)}).

{sweep_table(numbers, "method", "mean reward", sign=-1.0)}

The book: true online SARSA(λ) is best, ahead of replacing traces (with and without clearing), and
accumulating traces worst, good only at small step sizes. Here {verdict}
"""


def compared(online: dict, other: dict, name: str, online_means: list[float], other_means: list[float]) -> str:
    """How true online SARSA(λ) stands against another method: at the best alphas, and how many alphas it wins."""
    gap = other["mean_steps"] - online["mean_steps"]
    noise = (online["standard_error"] ** 2 + other["standard_error"] ** 2) ** 0.5
    ahead = "ahead of" if gap > 2 * noise else "tied with" if gap > -2 * noise else "behind"
    wins = sum(o < r for o, r in zip(online_means, other_means, strict=True))
    return (f"{ahead} {name} at their best alphas ({-online['mean_steps']:.1f} against {-other['mean_steps']:.1f}, "
            f"a gap of {gap:.1f} against two standard errors of {2 * noise:.1f}) and ahead at {wins} of the "
            f"{len(online_means)} step sizes")


def build_parser() -> argparse.ArgumentParser:
    """The script's options."""
    lam = option("--lambda", dest="lam", type=unit_float, default=0.9, help="the trace decay")
    return mountain_car_parser(__doc__, lam, alphas_option(ALPHAS), runs=100, episodes=20)


def main(argv: list[str] | None = None) -> int:
    """Parse `argv`, run the study, write its figure, numbers and snippet."""
    return run_study(STEM, __file__, argv, build_parser(), compute)


if __name__ == "__main__":
    sys.exit(main())
