"""What the Mountain Car studies (Figures 10.1-10.4, 12.10, 12.11) share: their options, runs on the engine, averages.

Every study plays the book's Mountain Car (Gymnasium's dynamics, no time limit, gamma 1, epsilon 0, weights
starting at 0) with the book's tile coding: 8 tilings of 8 x 8 tiles over position [-1.2, 0.5] and velocity
[-0.07, 0.07], step sizes given as the book gives them, alpha x 8 (alpha per weight = that / tilings).
Run i of every setting draws from the same stream (`rltorch.engines.draws`), so settings are compared on
the same start positions and tie-breaks. With epsilon 0 and zero initial weights, a few runs in a thousand
get trapped for an unbounded episode (a run of ours ran past 10 million steps): every episode is cut at
`--episode-cap` steps (10,000 by default, above the longest untrapped episode we saw, about 7,200 at
alpha = 0.1/8), as a time limit cuts it (the last step bootstraps), and the cut episodes are counted in the
JSON and the README.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Sequence
from typing import Any

import numpy as np
from matplotlib.figure import Figure

from rltorch.run.many_runs import map_run_batches, progress
from rltorch.run.options import at_most, positive_float, positive_int
from rltorch.run.studies import StudyResult, study_parser, table, timing
from trainers.chapter9.lanes import Markdown
from trainers.chapter10.engine import CODES, Lanes, Settings, book_coder

EPISODE_CAP = 10_000
MAX_CAP = 10**8
RUNS_PER_BATCH = 10  # runs a rank plays at once (progress in steps of this many runs)
Option = tuple[tuple[str, ...], dict[str, Any]]  # add_argument's flags and keywords


def add_mountain_car_options(parser: argparse.ArgumentParser) -> None:
    """The episode cap and the tile coder's size."""
    parser.add_argument("--episode-cap", type=at_most(positive_int, MAX_CAP), default=EPISODE_CAP,
                        help="cut an episode after this many steps (counted in the outputs)")
    parser.add_argument("--tilings", type=at_most(positive_int, 64), default=8, help="tilings of the tile coder")


def option(*flags: str, **keywords: Any) -> Option:
    """One option of a script: `parser.add_argument(*flags, **keywords)` later."""
    return flags, keywords


def alphas_option(default: Sequence[float]) -> Option:
    """The --alphas option: step sizes alpha x tilings."""
    return option("--alphas", type=alpha_list, default=default, help="step sizes alpha x tilings")


def mountain_car_parser(description: str | None, *options: Option, **defaults: Any) -> argparse.ArgumentParser:
    """`study_parser(description, **defaults)`, then the script's `options` in order, then the Mountain Car ones."""
    parser = study_parser(description, **defaults)
    for flags, keywords in options:
        parser.add_argument(*flags, **keywords)
    add_mountain_car_options(parser)
    return parser


def settings_of(algorithm: str, alpha_times_tilings: float, args: argparse.Namespace, n: int = 1,
                lam: float = 0.0) -> Settings:
    """The engine's settings: step size alpha_times_tilings / tilings per weight, epsilon 0, gamma 1."""
    return Settings(CODES[algorithm], alpha_times_tilings / args.tilings, 0.0, 1.0, lam, n, args.episode_cap)


def play(args: argparse.Namespace, settings: Sequence[Settings], episodes: int) -> np.ndarray:
    """Every setting over runs 0 .. --runs - 1: the episode lengths, int64 [settings, runs, episodes]."""
    coder = book_coder(args.tilings)

    def batch(runs: list[int]) -> list[np.ndarray]:
        """Each of these runs' lengths under every setting, one [settings, episodes] array per run."""
        lengths = np.stack([Lanes(args.seed, runs, coder, each).play(episodes) for each in settings])
        return [lengths[:, index] for index in range(len(runs))]

    with progress(args.runs, f"runs of {len(settings)} setting(s)", args) as bar:
        runs = map_run_batches(batch, list(range(args.runs)), bar, min_batch=RUNS_PER_BATCH,
                               rounds=math.ceil(args.runs / RUNS_PER_BATCH))
    return np.stack(runs, axis=1)


def mean_and_error(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The mean over axis 0 (the runs) and its standard error (sample standard deviation / sqrt(runs))."""
    runs = values.shape[0]
    error = values.std(axis=0, ddof=1) / math.sqrt(runs) if runs > 1 else np.zeros(values.shape[1:])
    return values.mean(axis=0), error


def capped(lengths: np.ndarray, args: argparse.Namespace) -> int:
    """How many episodes the cap cut."""
    return int((lengths >= args.episode_cap).sum())


def alpha_list(text: str) -> tuple[float, ...]:
    """Parse comma-separated step sizes alpha x tilings, such as 0.1,0.2,0.5."""
    try:
        values = tuple(positive_float(part) for part in text.split(","))
    except (argparse.ArgumentTypeError, ValueError):
        raise argparse.ArgumentTypeError(f"must be positive numbers such as 0.1,0.2,0.5, got {text!r}") from None
    if any(value > 8.0 for value in values):
        raise argparse.ArgumentTypeError(f"alpha x tilings must be at most 8, got {text!r}")
    return values


def sweep(args: argparse.Namespace, lines: dict[str, tuple[str, int, float]], episodes: int) -> dict[str, Any]:
    """Mean steps per episode over the first `episodes` episodes for every line and every --alphas value.

    `lines` maps a label to (algorithm, n, lambda); returns per label the means, their standard errors over
    the runs and the episodes the cap cut, in --alphas order.
    """
    settings = [settings_of(algorithm, alpha, args, n, lam) for algorithm, n, lam in lines.values()
                for alpha in args.alphas]
    lengths = play(args, settings, episodes).reshape(len(lines), len(args.alphas), args.runs, episodes)
    result = {}
    for label, per_alpha in zip(lines, lengths, strict=True):
        per_run = per_alpha.mean(axis=2)  # [alphas, runs]
        mean, error = mean_and_error(per_run.T)
        result[label] = {"mean": mean.tolist(), "standard_error": error.tolist(),
                         "capped_episodes": [capped(each, args) for each in per_alpha]}
    return result


def curves_summary(lengths: np.ndarray, labels: Sequence[str], args: argparse.Namespace) -> dict[str, Any]:
    """Per line (lengths [lines, runs, episodes]): every episode's mean length and standard error, and the cuts."""
    lines = {}
    for label, per_line in zip(labels, lengths, strict=True):
        mean, error = mean_and_error(per_line)
        lines[label] = {"mean": mean.tolist(), "standard_error": error.tolist(),
                        "capped_episodes": capped(per_line, args),
                        "mean_episodes_1_to_50": float(per_line[:, :50].mean()),
                        "mean_last_100": float(per_line[:, -100:].mean())}
    return {"runs": args.runs, "episodes": args.episodes, "seed": args.seed, "tilings": args.tilings,
            "epsilon": 0.0, "gamma": 1.0, "episode_cap": args.episode_cap, "lines": lines}


def draw_curves(numbers: dict[str, Any], title: str) -> Figure:
    """Steps per episode on the book's log scale, one line each with a band of one standard error."""
    figure = Figure(figsize=(7.5, 5), layout="constrained")
    axis = figure.subplots()
    episodes = np.arange(1, numbers["episodes"] + 1)
    for label, line in numbers["lines"].items():
        mean, error = np.array(line["mean"]), np.array(line["standard_error"])
        axis.plot(episodes, mean, label=label)
        axis.fill_between(episodes, mean - error, mean + error, alpha=0.25)
    axis.set_yscale("log")
    axis.set_ylim(100, 1000)
    axis.set_xlabel("episode")
    axis.set_ylabel(f"steps per episode (log scale, mean of {numbers['runs']} runs)")
    axis.legend()
    figure.suptitle(title)
    return figure


def curves_table(numbers: dict[str, Any]) -> str:
    """The Markdown table of a curves figure: first episode, early and late means, and cut episodes per line."""
    rows = [[label, f"{line['mean'][0]:,.0f} ± {line['standard_error'][0]:,.0f}",
             f"{line['mean_episodes_1_to_50']:.0f}", f"{line['mean_last_100']:.0f}", line["capped_episodes"]]
            for label, line in numbers["lines"].items()]
    return table(["line", "episode 1 (± s.e.)", "mean of episodes 1-50", "mean of the last 100",
                  f"episodes cut at {numbers['episode_cap']:,} steps"], rows)


def curves_snippet(heading: str, image: str, numbers: dict[str, Any], command: str, png: str) -> str:
    """The top of a curves figure's README snippet: the heading, the command, the image, the runs and the table."""
    return f"""### {heading}

```bash
{command}
```

![{image}]({png})

{numbers['runs']} runs of {numbers['episodes']} episodes ({timing(numbers)}); band: one standard error.

{curves_table(numbers)}
"""


def sweep_snippet(heading: str, image: str, numbers: dict[str, Any], command: str, png: str, first: str) -> str:
    """The top of a steps sweep's README snippet: the heading, the command, the image, the runs and the table."""
    return f"""### {heading}

```bash
{command}
```

![{image}]({png})

{numbers['runs']} runs, mean steps per episode over the first {numbers['first_episodes']} episodes, error bars
of one standard error ({timing(numbers)}).

{sweep_table(numbers, first, "mean steps")}
"""


def draw_sweep(numbers: dict[str, Any], title: str, ylabel: str, ylim: tuple[float, float],
               sign: float = 1.0) -> Figure:
    """A line per method over alpha x tilings (`sign` -1 plots rewards, minus the steps), error bars of one s.e."""
    figure = Figure(figsize=(7.5, 5), layout="constrained")
    axis = figure.subplots()
    for label, line in numbers["lines"].items():
        axis.errorbar(numbers["alphas"], sign * np.array(line["mean"]), yerr=line["standard_error"], marker=".",
                      capsize=2, label=label)
    axis.set_ylim(*ylim)
    axis.set_xlabel(f"alpha x number of tilings ({numbers['tilings']})")
    axis.set_ylabel(ylabel)
    axis.set_title("points off the axes are worse than the book's range (see the JSON)", fontsize=9)
    axis.legend(fontsize=8)
    figure.suptitle(title)
    return figure


def best_of(numbers: dict[str, Any]) -> dict[str, Any]:
    """Each line's best alpha x tilings and its mean steps, and the best line."""
    best = {}
    for label, line in numbers["lines"].items():
        index = int(np.argmin(line["mean"]))
        best[label] = {"alpha_times_tilings": numbers["alphas"][index], "mean_steps": line["mean"][index],
                       "standard_error": line["standard_error"][index]}
    winner = min(best, key=lambda label: best[label]["mean_steps"])
    return {"by_line": best, "best_line": winner}


def sweep_numbers(args: argparse.Namespace, lines: dict[str, tuple[str, int, float]], episodes: int) -> dict[str, Any]:
    """`sweep`'s results with the settings and the best of each line, ready for the JSON."""
    numbers = {"runs": args.runs, "first_episodes": episodes, "seed": args.seed, "tilings": args.tilings,
               "epsilon": 0.0, "gamma": 1.0, "episode_cap": args.episode_cap, "alphas": list(args.alphas),
               "lines": sweep(args, lines, episodes)}
    numbers["best"] = best_of(numbers)
    return numbers


def sweep_study(args: argparse.Namespace, lines: dict[str, tuple[str, int, float]], markdown: Markdown,
                curves: tuple[str, Sequence[str]], title: str, ylabel: str, ylim: tuple[float, float],
                sign: float = 1.0) -> StudyResult:
    """Play a sweep over the first --episodes episodes: its numbers, `draw_sweep`'s figure, curves (name, keys)."""
    numbers = sweep_numbers(args, lines, args.episodes)
    figure = draw_sweep(numbers, title, ylabel, ylim, sign=sign)
    return StudyResult(figure, numbers, markdown, sweep_curves(numbers, *curves, sign=sign))


def sweep_curves(numbers: dict[str, Any], name: str, keys: Sequence[str], sign: float = 1.0) -> dict[str, Any]:
    """A sweep's curves: each line's mean (`sign` -1: minus it) by 1000 x alpha x tilings, as name/key."""
    steps = [round(1000 * alpha) for alpha in numbers["alphas"]]
    return {f"{name}/{key}": (steps, line["mean"] if sign > 0 else [-m for m in line["mean"]])
            for key, line in zip(keys, numbers["lines"].values(), strict=True)}


def sweep_table(numbers: dict[str, Any], first: str, measure: str, sign: float = 1.0) -> str:
    """A sweep's Markdown table: each line's best alpha, its mean (`sign` -1: minus it) ± s.e., the cut episodes."""
    rows = [[label, f"{b['alpha_times_tilings']:g}/8",
             f"{b['mean_steps'] if sign > 0 else -b['mean_steps']:.1f} ± {b['standard_error']:.1f}",
             sum(numbers["lines"][label]["capped_episodes"])] for label, b in numbers["best"]["by_line"].items()]
    return table([first, "best alpha", f"{measure} (± s.e.)",
                  f"episodes cut at {numbers['episode_cap']:,} steps (all alphas)"], rows)


if __name__ == "__main__":
    print("runs.py is a module of figure_10_2.py"
          "; run python trainers/chapter10/figure_10_2.py --help", file=sys.stderr)
    sys.exit(2)
