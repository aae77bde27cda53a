"""Sutton & Barto's Example 6.2: TD(0) against constant-alpha Monte Carlo on the five-state random walk.

Left: the values TD(0) (alpha 0.1) learns in one run after 0, 1, 10 and 100 episodes, beside the true
values (solved exactly from the walk's model). Right: the RMS error of the five values against the
true ones, averaged over --runs runs, after every episode, for TD(0) with alpha 0.05, 0.1, 0.15 and
every-visit constant-alpha MC with alpha 0.01..0.04; all values start at 0.5, gamma is 1. Run i of
every method sees the same walks (the same seed). Uses rltorch's TDPrediction and MCPrediction.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Hashable

import gymnasium as gym
import numpy as np
from matplotlib.figure import Figure

from rltorch.envs.random_walk import ENV_ID
from rltorch.mdp import deterministic_policy, evaluate_policy, model_of
from rltorch.run.many_runs import map_runs, progress, run_seeds
from rltorch.run.studies import StudyResult, run_study, study_parser, table, timing
from rltorch.trainers import MCPrediction, TDPrediction
from rltorch.trainers.base import Trainer
from rltorch.values import VTable

STEM = "example_6_2_random_walk"
TD_ALPHAS = (0.05, 0.1, 0.15)
MC_ALPHAS = (0.01, 0.02, 0.03, 0.04)
SNAPSHOTS = (0, 1, 10, 100)
INITIAL = 0.5
WALK = 0  # the walk's only action


def walk_policy(state: Hashable) -> int:
    """The random walk's policy: its one action."""
    return WALK


def true_values(env: gym.Env) -> dict[Hashable, float]:
    """v of the walk's non-terminal states with gamma 1, solved from its model (1/6 .. 5/6)."""
    model = model_of(env)
    return evaluate_policy(model, deterministic_policy({state: WALK for state in model.states}), 1.0)


def make_trainer(method: str, alpha: float, seed: int) -> Trainer:
    """TD(0) ("td") or every-visit constant-alpha MC ("mc") on a fresh walk, values starting at 0.5."""
    env = gym.make(ENV_ID, disable_env_checker=True)
    common = {"gamma": 1.0, "policy": walk_policy, "seed": seed}
    if method == "td":
        return TDPrediction(env, VTable(alpha=alpha, initial=INITIAL), **common)
    return MCPrediction(env, VTable(alpha=alpha, initial=INITIAL), first_visit=False, **common)


def rms_errors(trainer: Trainer, truth: dict[Hashable, float], episodes: int) -> np.ndarray:
    """The RMS error over the states before the first episode and after each of `episodes` episodes."""
    states, exact = list(truth), np.array(list(truth.values()))
    errors = np.empty(episodes + 1)
    for episode in range(episodes + 1):
        if episode:
            trainer.run_episode(0.0)
        errors[episode] = np.sqrt(np.mean((np.array(trainer.value_fn.values(states)) - exact) ** 2))
    return errors


def run_errors(truth: dict[Hashable, float], seed: int, episodes: int) -> list[np.ndarray]:
    """One run of every (method, alpha) of `methods()` on `seed`: its RMS errors episode by episode."""
    return [rms_errors(make_trainer(method, alpha, seed), truth, episodes) for method, alpha in methods()]


def value_snapshots(truth: dict[Hashable, float], seed: int) -> dict[int, list[float]]:
    """TD(0)'s values (alpha 0.1) in one run after each of SNAPSHOTS episodes."""
    trainer, states, snapshots, done = make_trainer("td", 0.1, seed), list(truth), {}, 0
    for count in SNAPSHOTS:
        for _ in range(count - done):
            trainer.run_episode(0.0)
        done = count
        snapshots[count] = trainer.value_fn.values(states)
    return snapshots


def methods() -> list[tuple[str, float]]:
    """(method, alpha) of every curve, in the book's legend order."""
    return [("td", alpha) for alpha in TD_ALPHAS] + [("mc", alpha) for alpha in MC_ALPHAS]


def label(method: str, alpha: float) -> str:
    """The legend label of a curve."""
    return f"{'TD(0)' if method == 'td' else 'MC'} alpha={alpha:g}"


def compute(args: argparse.Namespace) -> StudyResult:
    """Run every method over the same seeds and draw the book's two panels."""
    truth = true_values(gym.make(ENV_ID, disable_env_checker=True))
    seeds = run_seeds(args.seed, args.runs)
    with progress(len(methods()) * args.runs, "runs", args) as bar:
        runs = map_runs(lambda seed: run_errors(truth, seed, args.episodes), seeds, bar, len(methods()))
    curves = {label(method, alpha): np.mean([run[index] for run in runs], axis=0)
              for index, (method, alpha) in enumerate(methods())}
    snapshots = value_snapshots(truth, seeds[0])
    numbers = summary(truth, snapshots, curves, args)
    episodes = list(range(args.episodes + 1))
    return StudyResult(
        figure=draw(truth, snapshots, curves, args.runs),
        numbers=numbers,
        markdown=markdown,
        curves={f"rms_error/{name.replace(' ', '_')}": (episodes, curve.tolist()) for name, curve in curves.items()},
    )


def summary(truth: dict[Hashable, float], snapshots: dict[int, list[float]], curves: dict[str, np.ndarray],
            args: argparse.Namespace) -> dict:
    """The numbers behind the figure: true values, snapshots, and each curve's start, minimum and end."""
    return {
        "runs": args.runs, "episodes": args.episodes, "seed": args.seed, "initial_value": INITIAL,
        "true_values": {str(state): value for state, value in truth.items()},
        "td_values_after": {str(count): values for count, values in snapshots.items()},
        "rms_error": {name: {"start": float(curve[0]), "min": float(curve.min()),
                             "min_at_episode": int(curve.argmin()), "final": float(curve[-1])}
                      for name, curve in curves.items()},
    }


def draw(truth: dict[Hashable, float], snapshots: dict[int, list[float]], curves: dict[str, np.ndarray],
         runs: int) -> Figure:
    """The book's two panels: estimated values after some episodes; RMS error against episodes."""
    figure = Figure(figsize=(11, 4.2), layout="constrained")
    values_axis, error_axis = figure.subplots(1, 2)
    names = "ABCDE" if len(truth) == 5 else [str(state) for state in truth]
    x = np.arange(len(truth))
    for count, values in snapshots.items():
        values_axis.plot(x, values, marker="o", label=f"after {count} episode{'s' if count != 1 else ''}")
    values_axis.plot(x, list(truth.values()), color="black", linestyle="--", marker="s", label="true values")
    values_axis.set_xticks(x, list(names))
    values_axis.set_xlabel("state")
    values_axis.set_title("TD(0) estimates, alpha 0.1, one run")
    values_axis.legend(fontsize=8)
    for name, curve in curves.items():
        error_axis.plot(curve, label=name, linestyle="-" if name.startswith("TD") else "--")
    error_axis.set_xlabel("walks / episodes")
    error_axis.set_ylabel(f"RMS error, averaged over states and {runs} runs")
    error_axis.set_title("empirical RMS error")
    error_axis.legend(fontsize=8)
    figure.suptitle("Example 6.2: random walk, TD(0) vs constant-alpha MC (values start at 0.5)")
    return figure


def markdown(numbers: dict, command: str, png: str) -> str:
    """The README snippet: command, numbers beside the book's description, and what matches."""
    errors = numbers["rms_error"]
    td = {name: stats for name, stats in errors.items() if name.startswith("TD")}
    mc = {name: stats for name, stats in errors.items() if name.startswith("MC")}
    rows = [[name, f"{stats['start']:.3f}", f"{stats['min']:.3f} (episode {stats['min_at_episode']})",
             f"{stats['final']:.3f}"] for name, stats in errors.items()]
    worst_td, best_mc = max(s["final"] for s in td.values()), min(s["final"] for s in mc.values())
    after = numbers["td_values_after"]
    last = max(after, key=int)
    gap = max(abs(v - t) for v, t in zip(after[last], numbers["true_values"].values(), strict=True))
    rises = [name for name, s in td.items() if s["final"] > s["min"] + 0.005]
    verdict = (f"Matches: every TD curve ends below every MC curve (worst TD {worst_td:.3f} < best MC "
               f"{best_mc:.3f}), and after {last} episodes TD's values are within {gap:.2f} of the truth"
               if worst_td < best_mc else
               f"Does not match: the worst TD curve ends at {worst_td:.3f}, above the best MC one ({best_mc:.3f})")
    rise = (f"; {', '.join(rises)} go{'es' if len(rises) == 1 else ''} down and then up again, as the book's "
            "Exercise 6.5 notes for high alphas" if rises else "")
    return f"""### Example 6.2: random walk, TD(0) vs constant-alpha MC

```bash
{command}
```

![Example 6.2]({png})

{numbers['runs']} runs of {numbers['episodes']} episodes, values initialised to {numbers['initial_value']}, true values
{', '.join(f'{v:.3f}' for v in numbers['true_values'].values())} from `evaluate_policy` on the walk's model
({timing(numbers)}). The book: TD is consistently better than MC over the first 100 episodes for
every alpha tried (all curves start at the error of the 0.5 start, {errors[next(iter(errors))]['start']:.3f});
with high alphas TD's error falls fastest, then levels off or rises.

{table(["method", "RMS error at start", "lowest (episode)", f"after {numbers['episodes']} episodes"], rows)}

{verdict}{rise}.
"""


def build_parser() -> argparse.ArgumentParser:
    """The script's options."""
    return study_parser(__doc__, runs=100, episodes=100)


def main(argv: list[str] | None = None) -> int:
    """Parse `argv`, run the study, write its figure, numbers and snippet."""
    return run_study(STEM, __file__, argv, build_parser(), compute)


if __name__ == "__main__":
    sys.exit(main())
