"""`rltorch train --runs N`: N independent runs of one setting at once on the batched engine, with exact answers.

Run i draws from the stream of `numpy.random.SeedSequence(--seed, spawn_key=(i,))` (`rltorch.engines.draws`),
so it equals the per-step trainer fed that stream (`rltorch.engines.replay.follow_stream`), time limits
included, whatever N is. Every episode k plays with the schedule's epsilon(k), as the trainer's does.
The runs advance in lockstep, in batches of episodes on the engine; at the end of each block of
`--log-every` episodes the mean and standard error over runs of each run's mean return and length in
the block go to TensorBoard (`runs/return_mean`, `runs/return_lower` = mean - se, `runs/return_upper` =
mean + se, likewise `length`, drawn as one band by the custom-scalars margin chart). At the end every
run's greedy policy is valued exactly on the env's model (`rltorch.run.runs_exact`) and summarized
(`rltorch.run.intervals`); the summary is printed, written by `--json` and saved in the checkpoint with
every run's table.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch
from tqdm import tqdm

from rltorch.checkpoints import load_checkpoint, save_checkpoint
from rltorch.engines import ALGORITHMS
from rltorch.engines.draws import stream_states
from rltorch.errors import RLTorchError
from rltorch.logger import TensorBoardLogger
from rltorch.mdp.evaluation import ModelEvaluation
from rltorch.run.config import RunConfig
from rltorch.run.options import at_most, positive_int, writable_folder
from rltorch.run.output import RunInterrupted, StopSignals, run_name, write_json
from rltorch.run.runs_exact import describe_summary, exact_returns, runs_summary
from rltorch.run.runs_setup import RunsSetup, finite_model
from rltorch.run.runs_state import KIND, RunsState
from rltorch.run.session import check_new_run, checkpoint_lock, run_settings

MAX_RUNS = 10**6
CELLS_PER_BATCH = 1_000_000  # runs x episodes the engine records per call (a signal waits for one call)
LAYOUT = {"many runs": {f"{what} (mean ± se over runs)": ["Margin", [f"runs/{what}_mean", f"runs/{what}_lower",
                                                                    f"runs/{what}_upper"]]
                        for what in ("return", "length")}}


def add_many_runs_options(parser: argparse.ArgumentParser) -> None:
    """The `--runs` and `--sweep` options of `rltorch train`."""
    from rltorch.run.sweep import MEASURES, SWEEPABLE, sweep_axis

    group = parser.add_argument_group(
        "many runs", f"N runs (or a sweep) at once on the batched engine, for an env with a finite model and an "
                     f"algorithm with a fast form ({', '.join(ALGORITHMS)}); any other algorithm is refused in one "
                     "line. The engine runs on the CPU (numba) only: --device cuda is refused, as are --value-fn mlp "
                     "and --values afterstate.")
    group.add_argument("--runs", type=at_most(positive_int, MAX_RUNS),
                       help="N independent runs; run i draws from SeedSequence(--seed, spawn_key=(i,)) and equals "
                            "the per-step trainer fed that stream")
    group.add_argument("--sweep", type=sweep_axis, action="append", metavar="NAME=START:STOP:STEP",
                       help=f"a parameter study over NAME in {{{','.join(SWEEPABLE)}}} (NAME=a,b,c lists values; "
                            "repeat for a grid); --runs runs per setting (default 100)")
    group.add_argument("--sweep-measure", choices=MEASURES, default=MEASURES[0],
                       help="what the sweep's PNG plots against the swept value: the mean return over the first "
                            "--measure-episodes episodes, or the exact return of the final greedy policy")
    group.add_argument("--measure-episodes", type=at_most(positive_int, 10**10),
                       help="K of the first-episodes measure (default: every episode)")
    group.add_argument("--out", type=writable_folder, help="folder for the sweep's PNG and JSON (default: its run "
                                                           "folder)")


def many_runs_requested(config: RunConfig) -> bool:
    """Whether the command asks for `--runs` or `--sweep`."""
    return config.settings.get("runs") is not None or bool(config.settings.get("sweep"))


def train_many_runs(config: RunConfig, resumed: dict | None) -> int:
    """Run `--runs N` (or a `--sweep`): checked before any file is made; returns the exit status."""
    if config.settings.get("sweep"):
        from rltorch.run.sweep import run_sweep

        return run_sweep(config)
    args, algorithm = config.namespace(), config.algo  # the runs' own options beside the config's
    setup = RunsSetup.build(config)
    shape = setup.table_shape
    if resumed is not None:
        if resumed.get("kind") != KIND:
            raise RLTorchError(f"{args.resume} is a single run's checkpoint: resume it without --runs")
        state = RunsState.from_data(resumed, args.runs, shape, Path(args.resume))
    else:
        state = RunsState.fresh(args.runs, shape, stream_states(args.seed, np.arange(args.runs)), args.log_every)
    name = args.run_name or run_name(setup.label, algorithm, args.seed)
    checkpoint = args.checkpoint or Path("checkpoints") / f"{name}.pt"
    check_new_run(args.log_dir / name, checkpoint, args)
    evaluation = ModelEvaluation(setup.model, args.gamma)
    with checkpoint_lock(checkpoint), checkpoint_lock(args.log_dir / name, "run folder"):
        return _run(setup, state, config, name, checkpoint, evaluation)


def _run(setup: RunsSetup, state: RunsState, config: RunConfig, name: str, checkpoint: Path,
         evaluation: ModelEvaluation) -> int:
    """Train the runs to `--episodes`, save, value every run exactly, save the summary too, log and report.

    A signal stops the training after the engine's batch under way; the runs are saved before the exact
    evaluation, and a signal during that evaluation ends it at once (the checkpoint keeps the runs).
    """
    logger = TensorBoardLogger(config.log_dir / name)
    logger.hyperparameters({**config.hyperparameters(), **setup.config(state.runs)})
    _custom_scalars(logger)
    first, started = state.lanes.episodes_done, time.perf_counter()
    signals = StopSignals(lambda: None)
    summary: dict[str, Any] | None = None
    with signals.active():
        steps = advance_runs(setup, state, config.episodes, logger, signals, progress=not config.no_progress)
        seconds = time.perf_counter() - started
        payload = {"kind": KIND, "config": setup.config(state.runs), "run": run_settings(config, name),
                   "value_fn_config": {"class": "many-runs tables"}, "value_fn_state": {}, **state.as_data()}
        save_checkpoint(checkpoint, payload)
        try:
            with signals.interruptible():
                returns, optimal = exact_returns(evaluation, state.lanes.values)
                summary = runs_summary(evaluation, returns, optimal, state.window_returns, state.window, config.seed)
                save_checkpoint(checkpoint, {**payload, "exact_returns": returns.tolist(), "summary": summary})
        except RunInterrupted:
            summary = None
    if summary is not None:
        logger.scalars({"runs/exact_return_mean": summary["exact_final_return"]["mean"],
                        "runs/share_optimal": summary["share_optimal"]["share"]}, state.lanes.episodes_done)
    logger.close()
    metrics = {"env": setup.env_id, "algorithm": setup.algorithm, "runs": state.runs,
               "episodes": state.lanes.episodes_done, "episodes_this_run": state.lanes.episodes_done - first,
               "seconds": round(seconds, 3), "agent_steps_this_run": steps,
               "agent_steps_per_second": round(steps / max(seconds, 1e-9)), **(summary or {}),
               "checkpoint": str(checkpoint), "log_dir": str(logger.log_dir), "stopped_by_signal": signals.received}
    write_json(metrics, config.json)
    print(describe_run(metrics, summary is not None))
    if signals.received:
        print(f"stopped by a signal after {state.lanes.episodes_done:,} episodes a run; saved to {checkpoint} "
              f"(continue with --resume {checkpoint})")
    return signals.exit_status


def advance_runs(setup: RunsSetup, state: RunsState, until: int, logger: Any, signals: StopSignals | None = None,
                 progress: bool = False) -> int:
    """Every run on to `until` episodes, a batch of episodes at a time (stopping early at a signal); agent steps."""
    runs, steps = state.runs, 0
    state.plan_window(until)
    bar = tqdm(total=runs * max(0, until - state.lanes.episodes_done), unit="episode", disable=not progress,
               desc=f"{runs:,} runs", dynamic_ncols=True, unit_scale=True)
    with bar:
        while state.lanes.episodes_done < until and (signals is None or signals.received is None):
            done = state.lanes.episodes_done
            piece = min(until - done, max(1, CELLS_PER_BATCH // runs))
            result = setup.engine.run(setup.algorithm, np.full(runs, setup.alpha), piece,
                                      epsilon=[setup.schedule(k) for k in range(done, done + piece)],
                                      gamma=setup.gamma, n=setup.n, seed=setup.seed, time_limit=setup.time_limit,
                                      start=state.lanes, progress=lambda count, seen=[0]: _tick(bar, count, seen))
            state.lanes = result.lanes_state()
            _account(state, result.returns.numpy(), result.lengths.numpy().astype(np.float64), done, until, logger)
            steps += result.steps
    return steps


def _account(state: RunsState, returns: np.ndarray, lengths: np.ndarray, done: int, until: int, logger: Any) -> None:
    """Add a batch's episodes (numbers done+1 ..) to the block and window sums, logging each block that ends.

    The sums add one episode at a time, in order, so they are the same to the last bit however the episodes
    were cut into batches (a resumed run's batches start where the stopped run's ended).
    """
    window = state.window
    for column in range(returns.shape[1]):
        episode = done + column + 1
        state.block_returns += returns[:, column]
        state.block_lengths += lengths[:, column]
        if window is not None and state.window_sums is not None and window[0] <= episode <= window[1]:
            state.window_sums += returns[:, column]
        if episode % state.block == 0 or episode == until:
            _end_block(state, logger, episode)


def _tick(bar: tqdm, count: int, seen: list[int]) -> None:
    """Move the bar by the episodes done since the engine's last report of this batch."""
    bar.update(count - seen[0])
    seen[0] = count


def _end_block(state: RunsState, logger: Any, episode: int) -> None:
    """Log the block ending at `episode`: mean ± se over runs of each run's mean return and length in it."""
    count = episode - state.logged
    scalars = {}
    for what, sums in (("return", state.block_returns), ("length", state.block_lengths)):
        values = sums / count
        mean = float(values.mean())
        se = float(values.std(ddof=1) / np.sqrt(values.size)) if values.size > 1 else 0.0
        scalars.update({f"runs/{what}_mean": mean, f"runs/{what}_se": se, f"runs/{what}_lower": mean - se,
                        f"runs/{what}_upper": mean + se})
    logger.scalars(scalars, episode)
    state.logged = episode
    state.block_returns, state.block_lengths = np.zeros(state.runs), np.zeros(state.runs)


def _custom_scalars(logger: TensorBoardLogger) -> None:
    """The margin charts that draw each mean with its ± se band as one picture (a full disk only warns)."""
    try:
        logger.writer.add_custom_scalars(LAYOUT)
    except OSError as error:
        logger.failure = logger.failure or (error.strerror or str(error))


def describe_run(metrics: dict[str, Any], summarized: bool = True) -> str:
    """The report a person reads at the end of a many-runs run (without the summary when a signal cut it)."""
    resumed = metrics["episodes"] - metrics["episodes_this_run"]
    lines = [f"{metrics['runs']:,} runs of {metrics['algorithm']} on {metrics['env']}: "
             f"{metrics['episodes_this_run']:,} episodes each in {metrics['seconds']:.1f} s "
             f"({metrics['agent_steps_per_second']:,} agent-steps/s)"
             + (f", {metrics['episodes']:,} in all after resuming at {resumed:,}" if resumed else ""),
             describe_summary(metrics) if summarized else "no exact evaluation: a signal stopped it",
             f"checkpoint: {metrics['checkpoint']}"]
    log_dir = Path(metrics["log_dir"])
    lines.append(f"TensorBoard: tensorboard --logdir {log_dir.parent}  (run {log_dir.name}; CUSTOM SCALARS shows "
                 "the bands)")
    return "\n".join(lines)


def evaluate_all_runs(args: argparse.Namespace, env: Any, config: dict[str, Any]) -> None:
    """`rltorch evaluate` of a many-runs checkpoint: every run's greedy policy valued exactly, and their summary."""
    payload = load_checkpoint(args.checkpoint, trusted=args.trust)
    model = finite_model(env)
    tables = payload.get("tables")
    if model is None or not isinstance(tables, torch.Tensor) or tables.ndim != 4 \
            or tables.shape[2] != len(model.states) or tables.dtype != torch.float64:
        raise RLTorchError(f"{args.checkpoint}: its tables do not fit the env's model")
    gamma = config.get("gamma", 1.0)
    evaluation = ModelEvaluation(model, float(gamma) if isinstance(gamma, (int, float)) else 1.0)
    returns, optimal = exact_returns(evaluation, tables.numpy())
    summary = runs_summary(evaluation, returns, optimal, None, None, 0)
    if args.json:
        print(json.dumps({**summary, "exact_returns": returns.tolist()}, indent=2))
        return
    print(f"{len(returns):,} runs in {args.checkpoint} (rltorch evaluate --run I shows run I)")
    print(describe_summary(summary))
