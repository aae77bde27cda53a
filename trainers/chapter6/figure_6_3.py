"""Sutton & Barto's Figure 6.3 at the book's scale: SARSA, Expected SARSA and Q-learning on the cliff walk.

Sum of rewards per episode against the step size alpha (epsilon 0.1, gamma 1, CliffWalking-v1):
interim, the mean over the first 100 episodes of 50,000 runs; asymptotic, the mean over 100,000
episodes of 10 runs. All runs are lanes of `rltorch.engines.BatchedEngine` (numba, on --threads CPU
threads; it has no GPU form). Run r of every (method, alpha) sees the same random
stream; the interim runs are global run indices 0..N-1 and the asymptotic ones come after them.
Writes figure_6_3.png and figure_6_3.json into --out (default: the run folder under --log-dir), the
curves to TensorBoard there, and prints the numbers. The docs' copy: python trainers/chapter6/figure_6_3.py --out docs
Under torchrun the runs are shared out over the ranks in fixed chunks and every rank adds all the chunks
in the same order, so the numbers equal the one-process run's to the last bit; rank 0 alone writes:
torchrun --standalone --nproc-per-node 2 trainers/chapter6/figure_6_3.py
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shlex
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
from tqdm import tqdm

from rltorch import parallel
from rltorch.engines import BatchedEngine
from rltorch.engines.batched import engine_device
from rltorch.logger import TensorBoardLogger
from rltorch.run.many_runs import sharded_sums
from rltorch.run.options import at_most, make_parser, positive_int, step_size
from rltorch.run.output import run_cli, run_name
from rltorch.run.plots import save_png
from rltorch.run.studies import SEED, add_study_outputs, refuse_overwrite
from trainers.chapter6.figure_6_3_curves import (
    EPSILON,
    GAMMA,
    LABELS,
    METHODS,
    SliceCurves,
    chunk_sums,
    cliff_model,
    compute_slice,
    runs_per_batch,
)
from trainers.chapter6.figure_6_3_plot import book_checks, draw, log_curves

STEM = "figure_6_3"
ALPHAS = tuple(round(0.1 * i, 1) for i in range(1, 11))
CURVE_POINTS = 100  # points of each asymptotic learning curve in TensorBoard
MAX_THREADS = 256  # numba threads, at most

__all__ = ["compute_slice", "main"]


def build_parser() -> argparse.ArgumentParser:
    """The script's options."""
    parser = make_parser(__doc__)
    parser.add_argument("--runs-interim", type=at_most(positive_int, 10_000_000), default=50_000,
                        help="runs averaged for the interim")
    parser.add_argument("--runs-asymptotic", type=at_most(positive_int, 10_000), default=10,
                        help="runs averaged for the asymptote")
    parser.add_argument("--episodes-interim", type=at_most(positive_int, 1_000_000), default=100,
                        help="episodes of an interim run")
    parser.add_argument("--episodes-asymptotic", type=at_most(positive_int, 10_000_000), default=100_000,
                        help="episodes of an asymptotic run")
    parser.add_argument("--alphas", type=step_size, nargs="+", default=list(ALPHAS), metavar="ALPHA",
                        help="step sizes")
    parser.add_argument("--seed", type=SEED, default=0, help="seed of every run's stream")
    parser.add_argument("--device", choices=("cpu", "cuda", "auto"), default="auto",
                        help="where the engine runs: the CPU (cuda is refused: the batched engine has no GPU form)")
    parser.add_argument("--threads", type=at_most(positive_int, MAX_THREADS),
                        default=max(1, (os.cpu_count() or 1) // parallel.local_world()),
                        help="CPU threads of the engine: the cores over the ranks on this machine")
    add_study_outputs(parser, "folder for figure_6_3.png and figure_6_3.json (default: the run folder)",
                      "CliffWalking-v1__figure-6.3__seed__time__tag")
    return parser


def block_of(episodes: int) -> int:
    """Episodes per point of a learning curve: the largest divisor of `episodes` giving at least CURVE_POINTS points."""
    return max([b for b in range(1, episodes // CURVE_POINTS + 1) if episodes % b == 0] or [1])


def run_phases(args: argparse.Namespace, engine: BatchedEngine) -> tuple[dict[str, SliceCurves], dict[str, float]]:
    """The interim and asymptotic phases' sums over all their runs (shared out over the ranks), and their seconds."""
    phases = {"interim": (range(args.runs_interim), args.episodes_interim, 1),
              "asymptotic": (range(args.runs_interim, args.runs_interim + args.runs_asymptotic),
                             args.episodes_asymptotic, block_of(args.episodes_asymptotic))}
    total = len(METHODS) * len(args.alphas) * sum(len(runs) * episodes for runs, episodes, _ in phases.values())
    results, seconds = {}, {}
    with tqdm(total=total, unit="ep", unit_scale=True, disable=args.no_progress or not parallel.is_rank0(),
              dynamic_ncols=True) as bar:
        for name, (runs, episodes, block) in phases.items():
            bar.set_description(name)
            started = time.perf_counter()
            results[name] = phase_sums(runs, episodes, block, args, engine, bar)
            seconds[name] = round(time.perf_counter() - started, 1)
    return results, seconds


def phase_sums(runs: range, episodes: int, block: int, args: argparse.Namespace, engine: BatchedEngine,
               bar: tqdm) -> SliceCurves:
    """One phase's sums: its fixed chunks of runs shared out over the ranks, added in chunk order on every rank."""
    alone = parallel.world_size() == 1  # alone, the bar follows the engine; else it moves as the ranks hand in chunks
    per_run = len(METHODS) * len(args.alphas) * episodes
    return sharded_sums(
        lambda mine: chunk_sums(mine, args.alphas, episodes, seed=args.seed, block=block, engine=engine,
                                progress=bar.update if alone else None),
        runs, SliceCurves.empty(args.alphas, episodes, block), runs_per_batch=runs_per_batch(args.alphas),
        progress=None if alone else lambda runs_done: bar.update(per_run * runs_done))


def numbers(args: argparse.Namespace, results: dict[str, SliceCurves], seconds: dict[str, float],
            engine: BatchedEngine) -> dict[str, Any]:
    """The JSON report: settings, the figure's means and standard errors, the book's orderings, timing, memory."""
    report: dict[str, Any] = {
        "command": "python trainers/chapter6/" + Path(sys.argv[0]).name + " " + shlex.join(sys.argv[1:]),
        "env": "CliffWalking-v1", "epsilon": EPSILON, "gamma": GAMMA, "alphas": list(args.alphas), "seed": args.seed,
        "runs_interim": args.runs_interim, "episodes_interim": args.episodes_interim,
        "runs_asymptotic": args.runs_asymptotic, "episodes_asymptotic": args.episodes_asymptotic,
        "device": str(engine.device), "backend": "numba",
        "threads": args.threads, "ranks": parallel.world_size(),
    }
    for phase, sums in results.items():
        finished = sums.finish()
        report[phase] = {LABELS[m]: np.round(finished["mean"][i], 3).tolist() for i, m in enumerate(METHODS)}
        report[f"{phase}_stderr"] = {LABELS[m]: np.round(finished["stderr"][i], 3).tolist()
                                     for i, m in enumerate(METHODS)}
    steps = sum(sums.steps for sums in results.values())
    report["book_orderings"] = book_checks(report, list(args.alphas))
    report["seconds"] = {**seconds, "total": round(sum(seconds.values()), 1)}
    report["agent_steps"] = steps
    report["agent_steps_per_second"] = round(steps / max(sum(seconds.values()), 1e-9))
    report["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    return report


def write_outputs(args: argparse.Namespace, folder: Path, out: Path, results: dict[str, SliceCurves],
                  report: dict[str, Any]) -> list[Path]:
    """The PNG and JSON into `out`, the curves and the figure to TensorBoard in `folder`, --json if given."""
    figure = draw(results, list(args.alphas))
    paths = [save_png(figure, out / f"{STEM}.png", args.dpi), out / f"{STEM}.json"]
    paths[1].write_text(json.dumps(report, indent=2) + "\n")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(report, indent=2) + "\n")
        paths.append(args.json)
    logger = TensorBoardLogger(folder)
    log_curves(logger, results, list(args.alphas))
    logger.text("figure_6_3", f"```\n{json.dumps(report, indent=2)}\n```")
    logger.figure(f"figures/{STEM}", figure)
    logger.close()
    return paths


def run(args: argparse.Namespace) -> int:
    """Compute the figure (over the ranks under torchrun); rank 0 writes and prints it."""
    refuse_overwrite(args, [f"{STEM}.png", f"{STEM}.json"])
    with parallel.joined(timeout_s=args.dist_timeout):
        return compute_and_write(args)


def compute_and_write(args: argparse.Namespace) -> int:
    """Every rank computes the figure's numbers; rank 0 alone makes the folders, writes and prints."""
    folder = args.log_dir / (args.run_name or run_name("CliffWalking-v1", "figure-6.3", args.seed))
    out = args.out or folder
    device = engine_device(args.device)
    if parallel.is_rank0():
        folder.mkdir(parents=True, exist_ok=True)
        out.mkdir(parents=True, exist_ok=True)
    engine = BatchedEngine(cliff_model(), device=device, threads=args.threads)
    results, seconds = run_phases(args, engine)
    if not parallel.is_rank0():
        return 0
    report = numbers(args, results, seconds, engine)
    paths = write_outputs(args, folder, out, results, report)
    print(json.dumps({key: report[key] for key in ("interim", "asymptotic", "book_orderings", "seconds",
                                                   "agent_steps_per_second", "peak_rss_mb")}, indent=2))
    print("wrote " + ", ".join(map(str, paths)) + f"; TensorBoard: tensorboard --logdir {args.log_dir}")
    return 0


def main(argv: list[str] | None = None) -> int:
    """Parse `argv` and run; errors are one line on stderr."""
    args = build_parser().parse_args(argv)
    return run_cli(lambda: run(args))


if __name__ == "__main__":
    sys.exit(main())
