"""`rltorch train --runs 1000` against 1,000 one-seed runs of the per-step trainer and of a plain-Python loop.

The work, on CliffWalking-v1 and on FrozenLake-v1 (its 100-step limit): Q-learning, alpha 0.5, epsilon
0.1 (constant), gamma 1, --episodes episodes a run, values from 0. (a) The command `rltorch train
--runs N` itself, in this process (its imports aside; the engine compiled once before the timing): its
wall time and CPU time, and the part its report calls training (the engine). (b) `QLearningTrainer` as
`rltorch train --seed S` builds it (no logging, no evaluation), one run after another: --sample-runs
runs are timed and the time of --runs runs is extrapolated from them (said so in the output). (c) The
plain-Python loop of `bench/plain_qlearning.py` (a defaultdict Q, `random.Random`, `gym.make`),
sampled and extrapolated the same way. Speed-ups are ratios of CPU time (this 2-core machine is
shared, so wall times depend on the other jobs; both are in the JSON). Memory per run: the bytes the
many-runs state holds for each run (tables, stream, sums), and the peak Python allocation of one
per-step run (tracemalloc). Target: (a) at least 100 times (b). Everything runs in one run of this
script; the load average at its start is printed.
Usage: python bench/many_runs.py [--runs 1000] [--episodes 500] [--sample-runs 20] [--json PATH]
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import tempfile
import time
import tracemalloc
from pathlib import Path

import torch
from plain_qlearning import train as plain_train
from tqdm import tqdm

from rltorch.engines import ALGORITHMS
from rltorch.run.cli import main as rltorch_main
from rltorch.run.commands import run_config, train_parser
from rltorch.run.options import at_most, make_parser, positive_int, writable_file
from rltorch.run.training import build_trainer

ENVS = ("CliffWalking-v1", "FrozenLake-v1")
SETTING = ["--algo", "qlearning", "--alpha", "0.5", "--epsilon-schedule", "constant", "--epsilon-start", "0.1",
           "--gamma", "1"]
TARGET = 100.0  # the many-runs command over the per-step trainer's 1,000 runs, at least


def build_parser():
    """The bench's options."""
    parser = make_parser(__doc__.split("\n")[0])
    parser.add_argument("--runs", type=at_most(positive_int, 100_000), default=1000, help="runs of each method")
    parser.add_argument("--episodes", type=at_most(positive_int, 100_000), default=500, help="episodes a run")
    parser.add_argument("--sample-runs", type=at_most(positive_int, 100_000), default=20,
                        help="per-step and plain runs actually timed (their time is scaled to --runs)")
    parser.add_argument("--json", type=writable_file, help="write the measurements to this JSON file")
    return parser


def many_runs_command(env_id: str, runs: int, episodes: int, folder: Path) -> dict:
    """Time `rltorch train --runs` in this process; its wall time, its report's training time and summary."""
    report = folder / f"{env_id}.json"
    argv = ["train", "--env", env_id, *SETTING, "--runs", str(runs), "--episodes", str(episodes), "--no-progress",
            "--log-dir", str(folder / "runs"), "--checkpoint", str(folder / f"{env_id}.pt"), "--json", str(report),
            "--overwrite", "--run-name", env_id]
    started, cpu = time.perf_counter(), time.process_time()
    with contextlib.redirect_stdout(io.StringIO()):
        status = rltorch_main(argv)
    wall, cpu = time.perf_counter() - started, time.process_time() - cpu
    if status != 0:
        raise SystemExit(f"rltorch train --runs failed on {env_id} (exit status {status})")
    metrics = json.loads(report.read_text())
    return {"wall_seconds": wall, "cpu_seconds": cpu, "training_seconds": metrics["seconds"],
            "agent_steps": metrics["agent_steps_this_run"], "share_optimal": metrics["share_optimal"]["share"]}


def per_step_runs(env_id: str, runs: int, episodes: int) -> dict:
    """Time `runs` one-seed runs of the per-step trainer (seeds 0..runs-1), one after another."""
    steps, started, cpu = 0, time.perf_counter(), time.process_time()
    for seed in tqdm(range(runs), desc=f"per-step {env_id}", leave=False):
        args = train_parser(None, None).parse_args(["--env", env_id, *SETTING, "--seed", str(seed)])
        trainer = build_trainer(run_config(args, {}, env_id, "qlearning"))
        trainer.train(episodes, log_every=episodes, eval_every=0, progress=False)
        steps += trainer.steps_done
    return {"seconds": time.perf_counter() - started, "cpu_seconds": time.process_time() - cpu, "agent_steps": steps,
            "runs_timed": runs}


def plain_runs(env_id: str, runs: int, episodes: int) -> dict:
    """Time `runs` runs of the plain-Python Q-learning loop."""
    steps, started, cpu = 0, time.perf_counter(), time.process_time()
    for seed in tqdm(range(runs), desc=f"plain {env_id}", leave=False):
        steps += plain_train(env_id, episodes, seed=seed, alpha=0.5, gamma=1.0, epsilon=0.1)[1]
    return {"seconds": time.perf_counter() - started, "cpu_seconds": time.process_time() - cpu, "agent_steps": steps,
            "runs_timed": runs}


def per_step_memory(env_id: str, episodes: int) -> int:
    """The peak Python allocation (bytes) of one per-step run, built and trained."""
    tracemalloc.start()
    args = train_parser(None, None).parse_args(["--env", env_id, *SETTING])
    trainer = build_trainer(run_config(args, {}, env_id, "qlearning"))
    trainer.train(episodes, log_every=episodes, eval_every=0, progress=False)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak


def engine_bytes_per_run(env_id: str, folder: Path) -> int:
    """The bytes of one run's state in a many-runs checkpoint: its tables, stream and sums."""
    saved = torch.load(folder / f"{env_id}.pt", weights_only=True)
    runs = saved["tables"].shape[0]
    tensors = [value for value in saved.values() if isinstance(value, torch.Tensor) and value.shape[:1] == (runs,)]
    return sum(t.numel() * t.element_size() for t in tensors) // runs


def measure(env_id: str, args, folder: Path) -> dict:
    """Every measurement on one env."""
    command = many_runs_command(env_id, args.runs, args.episodes, folder)
    scale = args.runs / args.sample_runs
    per_step, plain = per_step_runs(env_id, args.sample_runs, args.episodes), plain_runs(env_id, args.sample_runs,
                                                                                         args.episodes)
    for row in (per_step, plain):
        row["seconds_for_runs_extrapolated"] = row["seconds"] * scale
        row["cpu_seconds_for_runs_extrapolated"] = row["cpu_seconds"] * scale
    return {"many_runs_command": command, "per_step_trainer": per_step, "plain_python": plain,
            "speedup_over_per_step": per_step["cpu_seconds_for_runs_extrapolated"] / command["cpu_seconds"],
            "speedup_over_plain": plain["cpu_seconds_for_runs_extrapolated"] / command["cpu_seconds"],
            "wall_speedup_over_per_step": per_step["seconds_for_runs_extrapolated"] / command["wall_seconds"],
            "bytes_per_run_many_runs": engine_bytes_per_run(env_id, folder),
            "peak_bytes_per_step_run": per_step_memory(env_id, args.episodes)}


def main(argv: list[str] | None = None) -> dict:
    """Parse the options, measure both envs, print the table (and write the JSON)."""
    args = build_parser().parse_args(argv)
    torch.set_num_threads(1)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
    with tempfile.TemporaryDirectory() as temporary:
        folder = Path(temporary)
        many_runs_command(ENVS[1], 2, 2, folder)  # compiles (or loads) the engine's functions outside the timing
        results = {env_id: measure(env_id, args, folder) for env_id in ENVS}
    print(f"Q-learning, alpha 0.5, epsilon 0.1, gamma 1; {args.runs:,} runs x {args.episodes} episodes; per-step and "
          f"plain: {args.sample_runs} runs timed, scaled to {args.runs:,}; load average at start {load}")
    for env_id, row in results.items():
        command, per_step, plain = row["many_runs_command"], row["per_step_trainer"], row["plain_python"]
        print(f"{env_id}: rltorch train --runs {args.runs}: {command['cpu_seconds']:.2f} CPU s, "
              f"{command['wall_seconds']:.2f} s wall (training {command['training_seconds']:.2f} s); per-step trainer "
              f"{per_step['cpu_seconds']:.2f} CPU s for {args.sample_runs} runs -> "
              f"{per_step['cpu_seconds_for_runs_extrapolated']:.0f} s for {args.runs:,} "
              f"({row['speedup_over_per_step']:.0f}x); plain Python -> "
              f"{plain['cpu_seconds_for_runs_extrapolated']:.0f} s ({row['speedup_over_plain']:.0f}x); memory a run: "
              f"{row['bytes_per_run_many_runs']:,} B in the many-runs state, {row['peak_bytes_per_step_run']:,} B "
              "peak for a per-step run")
    met = all(row["speedup_over_per_step"] >= TARGET for row in results.values())
    print(f"target: --runs at least {TARGET:.0f}x the per-step trainer's {args.runs:,} runs (CPU time): "
          f"{'met' if met else 'MISSED'}")
    report = {"runs": args.runs, "episodes": args.episodes, "sample_runs": args.sample_runs, "fast_forms":
              list(ALGORITHMS), "load_average_at_start": load, "results": results, "target": TARGET, "target_met": met}
    if args.json:
        args.json.write_text(json.dumps(report, indent=2) + "\n")
    return report


if __name__ == "__main__":
    main()
