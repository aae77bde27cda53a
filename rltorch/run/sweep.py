"""`rltorch train --sweep NAME=START:STOP:STEP`: a parameter study like Figure 6.3, any finite env.

Each setting of the grid (the product of the `--sweep` axes) runs `--runs` runs on the batched engine,
run i drawing from the same stream in every setting (common random numbers, as Figure 6.3 compares
its methods). A run scores the mean return of its first K episodes (`--measure-episodes`, default all)
and the exact expected return of its final greedy policy; each setting's scores are summarized over
runs (`rltorch.run.intervals`). The PNG plots the chosen measure against the first numeric axis, one
line per value of the other axes, with standard-error bars; the JSON holds every number. Settings are
shared out over torchrun ranks with `parallel.map_sharded`; a setting's numbers depend on it alone, so
they are identical for any number of ranks.
"""

from __future__ import annotations

import argparse
import dataclasses
import itertools
import json
import shlex
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
from matplotlib.figure import Figure
from tqdm import tqdm

from rltorch import parallel
from rltorch.engines import ALGORITHMS
from rltorch.errors import RLTorchError
from rltorch.mdp.evaluation import ModelEvaluation
from rltorch.policies import make_schedule
from rltorch.run.config import RunConfig
from rltorch.run.intervals import share, summarize
from rltorch.run.options import finite_float, positive_float, positive_int, step_size, unit_float
from rltorch.run.output import StopSignals, run_name
from rltorch.run.plots import save_png
from rltorch.run.runs_exact import exact_returns
from rltorch.run.runs_setup import RunsSetup, check_fast_form

MEASURES = ("first-episodes", "exact-final")
PARSERS = {"alpha": step_size, "gamma": unit_float, "epsilon-start": unit_float, "epsilon-final": unit_float,
           "epsilon-decay": positive_float, "n": positive_int, "algo": str}
SWEEPABLE = tuple(PARSERS)
MAX_VALUES = 1000  # values of one axis
DEFAULT_RUNS = 100
CELLS_PER_BATCH = 4_000_000  # runs x episodes the engine records per call


def sweep_axis(text: str) -> tuple[str, list[Any]]:
    """Parse NAME=START:STOP:STEP (STOP included when the steps land on it) or NAME=a,b,c into (name, values)."""
    name, sep, spec = text.partition("=")
    if not sep or name not in PARSERS:
        raise argparse.ArgumentTypeError(f"must be NAME=START:STOP:STEP or NAME=a,b,c with NAME one of "
                                         f"{', '.join(SWEEPABLE)}, got {text!r}")
    parts = spec.split(":")
    if name != "algo" and len(parts) == 3:
        start, stop, step = (finite_float(part) for part in parts)
        if step <= 0 or stop < start or (stop - start) / step + 1 > MAX_VALUES:
            raise argparse.ArgumentTypeError(f"{text!r}: STEP must be > 0, STOP >= START, at most {MAX_VALUES} values")
        items = [repr(round(start + k * step, 12)) for k in range(int((stop - start) / step + 1e-9) + 1)]
    else:
        items = [item for item in spec.split(",") if item]
    if not items or len(items) > MAX_VALUES:
        raise argparse.ArgumentTypeError(f"{text!r}: give between 1 and {MAX_VALUES} values")
    if name == "algo" and set(items) - set(ALGORITHMS):
        raise argparse.ArgumentTypeError(f"{text!r}: algo values must have a fast form ({', '.join(ALGORITHMS)})")
    try:
        return name, [PARSERS[name](item) for item in items]
    except argparse.ArgumentTypeError as error:
        raise argparse.ArgumentTypeError(f"{name} {error}") from None


def run_sweep(config: RunConfig) -> int:
    """Check everything, run every setting (sharded over the ranks), and write the PNG and the JSON."""
    args, algorithm, env_id = config.namespace(), config.algo, config.env  # the sweep's own options too
    if getattr(args, "resume", None):
        raise RLTorchError("a sweep keeps no checkpoint, so it cannot be resumed: run it again")
    axes = dict(args.sweep)
    if len(axes) != len(args.sweep):
        raise RLTorchError("each --sweep NAME may be given once")
    if not any(name != "algo" for name in axes):
        raise RLTorchError("a sweep needs a numeric axis to plot against (e.g. --sweep alpha=0.1:1.0:0.1)")
    for name in axes.get("algo", [algorithm]):
        check_fast_form(name, config)
    runs = args.runs or DEFAULT_RUNS
    base = RunsSetup.build(config)
    settings = [dict(zip(axes, values, strict=True)) for values in itertools.product(*axes.values())]
    setups = [_setup(base, args, setting) for setting in settings]
    folder = args.out or args.log_dir / (args.run_name or run_name(base.label, "sweep", args.seed))
    paths = [folder / "sweep.png", folder / "sweep.json"]
    taken = [str(path) for path in paths if path.exists()]
    if taken and not args.overwrite:
        raise RLTorchError(f"{', '.join(taken)} exist: choose another --out or --run-name, or pass --overwrite")
    with parallel.joined():
        return _sweep(args, env_id, runs, axes, settings, setups, paths)


def _setup(base: RunsSetup, args: argparse.Namespace, setting: dict[str, Any]) -> RunsSetup:
    """The base setup with one setting's values in place (its schedule rebuilt; checked in one line)."""
    names = {"epsilon-start": "epsilon_start", "epsilon-final": "epsilon_final", "epsilon-decay": "epsilon_decay"}
    options = {**vars(args), **{names.get(key, key): value for key, value in setting.items()}}
    try:
        schedule = make_schedule(options["epsilon_schedule"], options["epsilon_start"], options["epsilon_final"],
                                 options["epsilon_decay"])
    except ValueError as error:
        raise RLTorchError(str(error)) from None
    return dataclasses.replace(base, algorithm=setting.get("algo", base.algorithm), alpha=options["alpha"],
                               gamma=options["gamma"], n=options.get("n", 1), schedule=schedule)


def _sweep(args: argparse.Namespace, env_id: str, runs: int, axes: dict[str, list], settings: list[dict],
           setups: list[RunsSetup], paths: list[Path]) -> int:
    """Every setting's scores over the ranks, then (rank 0) the summaries, the PNG and the JSON."""
    measured = args.measure_episodes or args.episodes
    if measured > args.episodes:
        raise RLTorchError(f"--measure-episodes {measured:,} is more than --episodes {args.episodes:,}")
    signals, started = StopSignals(lambda: None), time.perf_counter()
    evaluations: dict[float, ModelEvaluation] = {}
    bar = tqdm(total=len(settings) * runs * args.episodes, unit="episode", unit_scale=True, dynamic_ncols=True,
               disable=args.no_progress or not parallel.is_rank0(), desc=f"{len(settings)} settings x {runs:,} runs")

    def compute(indices: list[int]) -> list[dict[str, list]]:
        """The scores of the runs of each of these settings (none once a signal came)."""
        exact = evaluations if args.sweep_measure == "exact-final" else None
        return [setting_scores(setups[i], runs, args.episodes, measured, exact, bar) if signals.received is None
                else {} for i in indices]

    with signals.active(), bar:
        scores = parallel.map_sharded(compute, list(range(len(settings))), rounds=len(settings))
    if signals.received is not None:
        print("stopped by a signal: the sweep wrote nothing", file=sys.stderr)
        return signals.exit_status
    if not parallel.is_rank0():
        return 0
    numbers = sweep_numbers(args, env_id, runs, measured, axes, settings, scores, time.perf_counter() - started)
    paths[0].parent.mkdir(parents=True, exist_ok=True)
    save_png(draw(numbers), paths[0], dpi=120)
    text = json.dumps(numbers, indent=2) + "\n"
    for path in (paths[1], *([args.json] if args.json else [])):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    print(f"{len(settings)} settings x {runs:,} runs x {args.episodes:,} episodes in {numbers['seconds']:.1f} s; "
          f"wrote {paths[0]} and {paths[1]}")
    return 0


def setting_scores(setup: RunsSetup, runs: int, episodes: int, measured: int,
                   evaluations: dict[float, ModelEvaluation] | None, bar: tqdm | None = None) -> dict[str, list]:
    """Each run's mean return over its first `measured` episodes; with `evaluations` (solved models by gamma, filled
    as needed) also its final greedy policy's exact return and whether that is optimal."""
    epsilons = [setup.schedule(k) for k in range(episodes)]
    size = max(1, CELLS_PER_BATCH // episodes)
    first, final, optimal = [], [], []
    for start in range(0, runs, size):
        lanes = np.arange(start, min(runs, start + size))
        result = setup.engine.run(setup.algorithm, np.full(lanes.size, setup.alpha), episodes, epsilon=epsilons,
                                  gamma=setup.gamma, n=setup.n, seed=setup.seed, run_index=lanes,
                                  time_limit=setup.time_limit)
        first.append(result.returns[:, :measured].mean(dim=1).numpy())
        if evaluations is not None:
            if setup.gamma not in evaluations:
                evaluations[setup.gamma] = ModelEvaluation(setup.model, setup.gamma)
            returns, best = exact_returns(evaluations[setup.gamma], result.lanes_state().values)
            final.append(returns)
            optimal.append(best)
        if bar is not None:
            bar.update(lanes.size * episodes)
    scores = {"first": np.concatenate(first).tolist()}
    if evaluations is not None:
        scores.update(final=np.concatenate(final).tolist(), optimal=np.concatenate(optimal).tolist())
    return scores


def sweep_numbers(args: argparse.Namespace, env_id: str, runs: int, measured: int, axes: dict[str, list],
                  settings: list[dict], scores: list[dict[str, list]], seconds: float) -> dict[str, Any]:
    """Every setting's summaries, with the sweep's description."""
    rows = []
    for setting, score in zip(settings, scores, strict=True):
        row = {**setting, "first_episodes": summarize(score["first"], seed=args.seed)}
        if "final" in score:
            row.update(exact_final_return=summarize(score["final"], seed=args.seed),
                       share_optimal=share(score["optimal"]))
        rows.append(row)
    return {"env": env_id, "algorithm": axes.get("algo", args.algo), "runs": runs, "episodes": args.episodes,
            "measure": args.sweep_measure, "measure_episodes": measured, "axes": axes, "settings": rows,
            "seed": args.seed, "seconds": round(seconds, 1), "ranks": parallel.world_size(),
            "command": "rltorch train " + shlex.join(sys.argv[2:] if sys.argv[1:2] == ["train"] else sys.argv[1:])}


def draw(numbers: dict[str, Any]) -> Figure:
    """The chosen measure against the first numeric axis, one line per value of the others, with ± se bars."""
    axes = numbers["axes"]
    x_name = next(name for name in axes if name != "algo")
    others = [name for name in axes if name != x_name]
    key = "first_episodes" if numbers["measure"] == "first-episodes" else "exact_final_return"
    figure = Figure(figsize=(7, 4.5))
    plot = figure.add_subplot()
    for combo in itertools.product(*(axes[name] for name in others)):
        rows = [row for row in numbers["settings"] if all(row[n] == v for n, v in zip(others, combo, strict=True))]
        label = ", ".join(f"{n}={v}" if n != "algo" else str(v) for n, v in zip(others, combo, strict=True))
        plot.errorbar([row[x_name] for row in rows], [row[key]["mean"] for row in rows],
                      yerr=[row[key]["se"] for row in rows], marker="o", capsize=3, label=label or None)
    what = (f"mean return over the first {numbers['measure_episodes']:,} episodes" if key == "first_episodes"
            else "exact expected return of the final greedy policy")
    plot.set(xlabel=x_name, ylabel=what, title=f"{numbers['env']}: {numbers['runs']:,} runs a setting, "
                                               f"{numbers['episodes']:,} episodes (bars: ± 1 se)")
    if others:
        plot.legend()
    plot.grid(alpha=0.3)
    return figure
