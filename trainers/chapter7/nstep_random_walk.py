"""Sutton & Barto's Figure 7.2: n-step TD on the 19-state random walk, for n = 1, 2, 4, ..., 512 and alpha in [0, 1].

The walk ends at -1 on the left and +1 on the right, gamma is 1 and the values start at 0. The measure is
the RMS error over the 19 states (against the true values, solved exactly from the walk's model),
averaged over the first --episodes episodes and over --runs runs; every (n, alpha) replays the same
recorded walks. The n-step updates run for many runs and all step sizes at once (`nstep_walk_engine`), and
--check-runs runs of every n are replayed through rltorch's `NStepTDPrediction` as well: their final
values must agree exactly.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

import numpy as np
from matplotlib.figure import Figure

from rltorch.mdp import deterministic_policy, evaluate_policy, model_of
from rltorch.run.many_runs import map_run_batches, progress, run_seeds
from rltorch.run.options import at_most, non_negative_int
from rltorch.run.studies import MAX_RUNS, StudyResult, run_study, study_parser, table, timing
from trainers.chapter7.nstep_walk_engine import check_against_trainer, join_runs, make_env, replay_runs

STEM = "figure_7_2_nstep_random_walk"
NS = tuple(2**k for k in range(10))
REPLAY_BATCH = 100  # runs replayed at once by a rank at least: the engine is fastest on many runs at once
ALPHAS = (0.0, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
MAX_N = 100_000  # the largest n accepted (far past any walk's length: n beyond it is Monte Carlo already)


def true_values() -> np.ndarray:
    """v of the 19 non-terminal states with gamma 1, solved from the walk's model (-0.9 .. 0.9)."""
    model = model_of(make_env())
    values = evaluate_policy(model, deterministic_policy({state: 0 for state in model.states}), 1.0)
    return np.array([values[state] for state in sorted(values)])


def numbers_list(kind: Any, name: str) -> Any:
    """An argparse type for a comma-separated list of `kind` values, such as 1,2,4 or 0,0.1,0.2."""
    def parse(text: str) -> tuple:
        """Parse the list."""
        try:
            values = tuple(kind(part) for part in text.split(","))
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be a comma-separated list of {name}, got {text!r}") from None
        if not values or (kind is int and not all(1 <= v <= MAX_N for v in values)) or (
                kind is float and not all(0 <= v <= 1 for v in values)):
            raise argparse.ArgumentTypeError(f"must be a comma-separated list of {name}, got {text!r}")
        return values
    return parse


def check(seeds: list[int], args: argparse.Namespace, errors: dict[int, np.ndarray],
          values: dict[int, np.ndarray]) -> dict[str, Any]:
    """Replay the first --check-runs runs of every n at its best nonzero alpha through `NStepTDPrediction`."""
    alphas, differences = np.array(args.alphas), []
    positive = np.flatnonzero(alphas > 0)
    pairs = [(n, int(positive[np.argmin(errors[n][positive])])) for n in args.ns] if positive.size else []
    for n, index in pairs:
        alpha = float(alphas[index])
        for run, seed in enumerate(seeds[:args.check_runs]):
            differences.append(check_against_trainer(seed, args.episodes, n, alpha, values[n][index, run]))
    return {"runs": min(args.check_runs, len(seeds)), "pairs": [[n, float(alphas[i])] for n, i in pairs],
            "max_abs_difference": max(differences) if differences else None}


def compute(args: argparse.Namespace) -> StudyResult:
    """Record the walks, replay every n over every alpha, check against the trainer, and draw the figure."""
    truth, seeds, alphas = true_values(), run_seeds(args.seed, args.runs), np.array(args.alphas)
    with progress(args.runs, "runs", args) as bar:
        runs = map_run_batches(lambda batch: replay_runs(batch, args.episodes, args.ns, alphas, truth), seeds, bar,
                               min_batch=REPLAY_BATCH)
    errors, values = {}, {}
    for index, n in enumerate(args.ns):
        values[n], by_episode = join_runs(runs, index)
        errors[n] = by_episode.mean(axis=(0, 2))  # over the episodes and the runs
    numbers = summary(errors, args)
    numbers["true_values"] = truth.tolist()
    numbers["check_against_trainer"] = check(seeds, args, errors, values)
    steps = [round(1000 * alpha) for alpha in args.alphas]  # TensorBoard steps are integers: 1000 alpha
    curves = {f"rms_error_by_1000_alpha/n_{n}": (steps, errors[n].tolist()) for n in args.ns}
    return StudyResult(draw(errors, args), numbers, markdown, curves)


def summary(errors: dict[int, np.ndarray], args: argparse.Namespace) -> dict[str, Any]:
    """The error of every (n, alpha), each n's best alpha, and the best pair."""
    best_by_n = {n: (float(args.alphas[int(np.argmin(e))]), float(e.min())) for n, e in errors.items()}
    best_n = min(best_by_n, key=lambda n: best_by_n[n][1])
    return {"runs": args.runs, "episodes": args.episodes, "seed": args.seed, "gamma": 1.0, "initial_value": 0.0,
            "alphas": list(args.alphas), "rms_error": {str(n): e.tolist() for n, e in errors.items()},
            "best_alpha_by_n": {str(n): {"alpha": a, "rms_error": e} for n, (a, e) in best_by_n.items()},
            "best": {"n": best_n, "alpha": best_by_n[best_n][0], "rms_error": best_by_n[best_n][1]}}


def draw(errors: dict[int, np.ndarray], args: argparse.Namespace) -> Figure:
    """The book's figure: average RMS error against alpha, one line per n, on the book's axes."""
    figure = Figure(figsize=(7.5, 5), layout="constrained")
    axis = figure.subplots()
    for n, error in errors.items():
        axis.plot(args.alphas, error, marker=".", label=f"n={n}")
    lowest = min(float(error.min()) for error in errors.values())
    axis.set_ylim(min(0.25, lowest - 0.02), 0.55)
    axis.set_xlim(0, 1)
    axis.set_xlabel("alpha")
    axis.set_ylabel(f"average RMS error over 19 states and first {args.episodes} episodes")
    axis.set_title(f"mean of {args.runs} runs (curves leave the book's axes above 0.55)", fontsize=9)
    axis.legend(fontsize=8, loc="center left", bbox_to_anchor=(1.0, 0.5))
    figure.suptitle("Figure 7.2: n-step TD on the 19-state random walk")
    return figure


def markdown(numbers: dict, command: str, png: str) -> str:
    """The README snippet: command, numbers beside the book's description, and what matches."""
    best, check_report = numbers["best"], numbers["check_against_trainer"]
    rows = [[n, f"{b['alpha']:g}", f"{b['rms_error']:.3f}"] for n, b in numbers["best_alpha_by_n"].items()]
    ok = best["n"] in (4, 8) and 0.24 <= best["rms_error"] <= 0.31
    difference = check_report["max_abs_difference"]
    by_n = numbers["best_alpha_by_n"]
    shown = dict.fromkeys([next(iter(by_n)), next(reversed(by_n))])
    extremes = " and ".join(f"{by_n[n]['rms_error']:.3f} for n = {n}" for n in shown)
    checked = ("" if difference is None else
               f" The replay agrees with `NStepTDPrediction` on {check_report['runs']} runs of every n (largest "
               f"difference in the final values: {difference:g}).")
    return f"""### Figure 7.2: n-step TD on the 19-state random walk

```bash
{command}
```

![Figure 7.2]({png})

{numbers['runs']} runs, RMS error over the 19 states averaged over the first {numbers['episodes']} episodes, values
initialised to 0, gamma 1, alpha in {{{', '.join(f'{a:g}' for a in numbers['alphas'])}}} ({timing(numbers)}).{checked}
The book: methods with an intermediate n work best (its lowest curves, n = 4 and 8, reach about 0.25-0.3).

{table(["n", "best alpha", "its average RMS error"], rows)}

{'Matches' if ok else 'Does not match'}: the best pair is n = {best['n']}, alpha = {best['alpha']:g} with an
average RMS error of {best['rms_error']:.3f}, against {extremes} at their best alphas: one-step TD moves the
end's reward back one state per update, while near-whole-episode returns make every update noisy (most at large
alpha).
"""


def build_parser() -> argparse.ArgumentParser:
    """The script's options."""
    parser = study_parser(__doc__, runs=100, episodes=10)
    parser.add_argument("--ns", type=numbers_list(int, f"n from 1 to {MAX_N:,}"), default=NS, help="the values of n")
    parser.add_argument("--alphas", type=numbers_list(float, "step sizes in [0, 1]"), default=ALPHAS,
                        help="the step sizes")
    parser.add_argument("--check-runs", type=at_most(non_negative_int, MAX_RUNS), default=3,
                        help="runs of every n replayed through NStepTDPrediction too (0: none)")
    return parser


def main(argv: list[str] | None = None) -> int:
    """Parse `argv`, run the study, write its figure, numbers and snippet."""
    return run_study(STEM, __file__, argv, build_parser(), compute)


if __name__ == "__main__":
    sys.exit(main())
