"""One run path for every script: the learning options, building a trainer for any env, and `run_training`."""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import torch

from rltorch.callbacks import SelfPlayRefresh
from rltorch.checkpoints import save_checkpoint
from rltorch.envs.context import EnvContext
from rltorch.errors import BadTransition, RLTorchError
from rltorch.keys import AfterstateKeys, StateActionKeys
from rltorch.logger import TensorBoardLogger
from rltorch.policies import make_schedule
from rltorch.run.algorithms import trainer_class
from rltorch.run.envs import context_of, evaluation_env, hook, make_env
from rltorch.run.options import (
    MAX_EPISODES,
    at_most,
    finite_float,
    integer,
    non_negative_int,
    positive_float,
    positive_int,
    step_size,
    unit_float,
)
from rltorch.run.output import RunInterrupted, StopSignals, run_name, write_json
from rltorch.run.report import final_metrics, format_metrics, run_metrics
from rltorch.run.session import check_new_run, checkpoint_lock, run_settings
from rltorch.trainers import Trainer
from rltorch.values import QNetwork, QTable, ValueFunction, VNetwork, VTable
from rltorch.values.encoders import space_encoder
from rltorch.values.ntuple import ntuple_for_env, tuples_option
from rltorch.values.weighted import WeightedQTable

# upper bounds of the learning options, checked at parse time: far past any real run, short of overflow or a hang
MAX_SEED = 2**32 - 1  # numpy's and most libraries' seed range
MAX_WIDTH = 65_536  # one hidden layer of 65,536 x 65,536 weights is already 17 GB
MAX_LR = 10.0  # Adam's steps are about lr each: larger only diverges
MAX_THREADS = 1024
MAX_REPLAY = 10**8  # transitions held in memory
MAX_BATCH = 10**6
MAX_STEPS = 10**12  # fits between target-network refreshes
MAX_N = 10**6  # steps before bootstrapping: an episode idles n steps at its end
MAX_PLANNING = 10**5  # planning updates after each real step


def add_learning_options(parser: argparse.ArgumentParser, algorithm: str | None) -> None:
    """The learning and exploration options (the course's defaults); `algorithm` None offers every algorithm's."""
    learning = parser.add_argument_group("learning")
    learning.add_argument("--episodes", type=at_most(positive_int, MAX_EPISODES), default=100_000,
                          help="training episodes (1e5 works)")
    learning.add_argument("--alpha", type=step_size, default=0.1, help="step size of the table update")
    learning.add_argument("--gamma", type=unit_float, default=0.9, help="discount factor")
    learning.add_argument("--values", choices=("q", "afterstate"), default="q",
                          help="key the values by (state, action) pairs or by afterstates")
    learning.add_argument("--seed", type=at_most(non_negative_int, MAX_SEED), default=0,
                          help="seed of every random choice in the run")
    learning.add_argument("--value-fn", choices=("table", "mlp", "ntuple"), default="table",
                          help="a dict-backed table, a neural network, or an n-tuple network (2048 boards)")
    learning.add_argument("--tuples", type=tuples_option, help="ntuple: cells of each tuple, e.g. '0,1,2;3,4,5'")
    learning.add_argument("--hidden", type=at_most(positive_int, MAX_WIDTH), nargs="+", default=[64],
                          help="mlp hidden layer widths")
    learning.add_argument("--lr", type=at_most(positive_float, MAX_LR), default=1e-3, help="mlp Adam learning rate")
    learning.add_argument("--device", choices=("cpu", "cuda", "auto"), default="cpu", help="where an mlp runs")
    learning.add_argument("--threads", type=at_most(positive_int, MAX_THREADS), default=1,
                          help="CPU threads for torch (small networks run fastest on one)")
    if algorithm in (None, "dqn"):
        learning.add_argument("--replay-size", type=at_most(non_negative_int, MAX_REPLAY), default=10_000,
                              help="DQN: replay the last N transitions in minibatches (0: off)")
        learning.add_argument("--batch-size", type=at_most(positive_int, MAX_BATCH), default=32,
                              help="DQN: minibatch size (at most --replay-size)")
        learning.add_argument("--target-update-every", type=at_most(non_negative_int, MAX_STEPS), default=500,
                              help="DQN: bootstrap from a frozen copy refreshed every K fits (0: off)")
    if algorithm in (None, "nstep-sarsa", "nstep-expected-sarsa"):
        learning.add_argument("--n", type=at_most(positive_int, MAX_N), default=4,
                              help="n-step methods: steps before bootstrapping")
    if algorithm in (None, "dyna-q"):
        learning.add_argument("--planning-steps", type=at_most(non_negative_int, MAX_PLANNING), default=5,
                              help="Dyna-Q: planning updates from the learned model after each real step")
    if algorithm in (None, "mc", "mc-es"):
        learning.add_argument("--every-visit", action="store_true", help="MC: every-visit instead of first-visit")
        learning.add_argument("--sample-average", action="store_true", help="MC: step 1/N(key) instead of --alpha")
    exploration = parser.add_argument_group("exploration")
    exploration.add_argument("--epsilon-schedule", choices=("exponential", "linear", "constant"),
                             default="exponential",
                             help="final + (start - final) * exp(-episode / decay), a line, or flat at start")
    exploration.add_argument("--epsilon-start", type=unit_float, default=1.0, help="epsilon at episode 0")
    exploration.add_argument("--epsilon-final", type=unit_float, default=0.01, help="epsilon in the long run")
    exploration.add_argument("--epsilon-decay", type=at_most(positive_float, MAX_EPISODES), default=10_000.0,
                             help="time constant (exponential) or length in episodes (linear)")


def add_env_options(parser: argparse.ArgumentParser, options: dict[str, dict[str, Any]]) -> None:
    """The env's own options (`cli_options`) as `--name` flags."""
    if options:
        group = parser.add_argument_group("environment")
        checked = {float: finite_float, int: integer}  # plain Python types become rltorch's checked ones
        for name, keywords in options.items():
            keywords = {**keywords, "type": checked.get(keywords.get("type"), keywords.get("type"))}
            group.add_argument(f"--{name.replace('_', '-')}", dest=f"env__{name}", **keywords)


def env_kwargs(args: argparse.Namespace) -> dict[str, Any]:
    """The env's keyword arguments: its declared options and every `--env-option KEY=VALUE`."""
    kwargs = {key.removeprefix("env__"): value for key, value in vars(args).items() if key.startswith("env__")}
    kwargs.update(dict(getattr(args, "env_option", None) or []))
    return kwargs


def build_value_fn(args: argparse.Namespace, env: Any, algorithm: str) -> ValueFunction:
    """The table or network that `--value-fn` and `--values` ask for."""
    sample_average = getattr(args, "sample_average", False) and algorithm.startswith("mc")
    alpha = None if sample_average else args.alpha
    if args.value_fn == "ntuple":
        return ntuple_for_env(env, getattr(args, "tuples", None), args.alpha, args.values)
    if args.value_fn == "table":
        if algorithm == "mc-offpolicy":
            return WeightedQTable()
        return VTable(alpha=alpha) if args.values == "afterstate" else QTable(alpha=alpha)
    torch.manual_seed(args.seed)  # the network's initial weights
    encoder = hook(env, "encoder")
    encoder = encoder() if encoder is not None else None
    try:
        encoder = encoder or space_encoder(env.observation_space)
        if args.values == "afterstate":
            return VNetwork(encoder, args.hidden, args.lr, args.device, threads=args.threads)
        return QNetwork(encoder, int(env.action_space.n), args.hidden, args.lr, args.device, threads=args.threads)
    except ValueError as error:
        raise RLTorchError(str(error)) from None


def build_keys(args: argparse.Namespace, env: Any, env_id: str) -> Any:
    """State-action keys, or afterstate keys from the env's `afterstate`."""
    if args.values == "q":
        return StateActionKeys()
    afterstate = hook(env, "afterstate")
    if afterstate is None:
        raise RLTorchError(f"env {env_id} has no afterstate(state, action): use --values q")
    return AfterstateKeys(afterstate)


def algorithm_options(algorithm: str, args: argparse.Namespace, env: Any, env_id: str) -> dict[str, Any]:
    """The keyword arguments one algorithm adds to the trainer."""
    if algorithm == "dqn":
        if args.replay_size and args.batch_size > args.replay_size:
            raise RLTorchError(f"--batch-size {args.batch_size:,} is larger than --replay-size {args.replay_size:,}: "
                               "a minibatch is drawn from the replay buffer, so it can be at most that size")
        return {"replay_size": args.replay_size, "batch_size": args.batch_size,
                "target_update_every": args.target_update_every}
    if algorithm.startswith("nstep-"):
        return {"n": args.n}
    if algorithm == "dyna-q":
        return {"planning_steps": args.planning_steps}
    if algorithm in ("mc", "mc-es"):
        options: dict[str, Any] = {"first_visit": not args.every_visit}
        if algorithm == "mc-es":
            starts = hook(env, "start_states")
            if starts is None:
                raise RLTorchError(f"env {env_id} has no start_states() to draw exploring starts from")
            options["start_states"] = starts()
        return options
    return {}


def build_trainer(algorithm: str, args: argparse.Namespace, env_id: str) -> Trainer:
    """The trainer that `args` describe on `env_id`, checked and built before any file is made."""
    cls = trainer_class(algorithm)
    kwargs = env_kwargs(args)
    env = make_env(env_id, kwargs)
    try:
        schedule = make_schedule(args.epsilon_schedule, args.epsilon_start, args.epsilon_final, args.epsilon_decay)
    except ValueError as error:
        raise RLTorchError(str(error)) from None
    context = EnvContext(env, args.gamma)  # the env's capabilities, resolved once for the whole run
    exact = context.exact
    try:
        trainer = cls(
            env, build_value_fn(args, env, algorithm), keys=build_keys(args, env, env_id), gamma=args.gamma,
            schedule=schedule, seed=args.seed, eval_env=evaluation_env(context, env_id, kwargs),
            exact_eval=exact.scalars if exact is not None else None,
            **algorithm_options(algorithm, args, env, env_id),
        )
    except ValueError as error:
        raise RLTorchError(str(error)) from None
    trainer.env_id = env_id  # with its module, so `evaluate` can make a user's env again
    trainer.env_context = context  # run_training, its pictures and its report read the same model and solution
    return trainer


def run_training(
    trainer: Trainer, args: argparse.Namespace, label: str, finish: Callable[[Trainer], dict] | None = None,
    resumed: dict | None = None,
) -> int:
    """Train, test, evaluate exactly, save and report: the one run path every trainer script takes.

    `resumed` is the checkpoint of `--resume` (see `apply_resume`): the trainer continues from it up to
    `--episodes` in all, logging into the same run folder. `finish(trainer)` may add figures of a
    study's own to the metrics after training. SIGINT and SIGTERM stop training at the next episode
    boundary; what was learned is saved and the exit status is 130 or 143. Returns the exit status.
    """
    name = args.run_name or run_name(label, trainer.algorithm, trainer.seed)
    checkpoint = args.checkpoint or Path("checkpoints") / f"{name}.pt"
    check_new_run(args.log_dir / name, checkpoint, args)
    if resumed is not None:
        trainer.restore(resumed)
    with checkpoint_lock(checkpoint), checkpoint_lock(args.log_dir / name, "run folder"):
        trainer.logger = logger = TensorBoardLogger(args.log_dir / name)
        context = context_of(trainer)
        if trainer.exact_eval is not None and context.grid is not None:
            from rltorch.run.pictures import GridImages  # matplotlib, for grid worlds only

            trainer.exact_eval = GridImages(trainer.exact_eval, context, trainer)
        logger.hyperparameters({**{k: str(v) for k, v in vars(args).items()}, **trainer.config()})
        refresh = context.refresh_opponent
        callbacks = [SelfPlayRefresh(refresh)] if refresh is not None else []
        signals = StopSignals(lambda: setattr(trainer, "stop_requested", True))
        more = args.episodes - trainer.episodes_done if resumed is not None else args.episodes
        first, start = trainer.episodes_done, time.perf_counter()
        with signals.active():
            try:
                trainer.train(max(more, 0), log_every=args.log_every, eval_every=args.eval_every,
                              eval_games=args.eval_games, progress=not args.no_progress, callbacks=callbacks)
            except BadTransition as error:  # the env broke its contract mid-run: keep what was learned
                save_checkpoint(checkpoint, {**trainer.checkpoint(), "run": run_settings(args, name)})
                logger.close()
                raise RLTorchError(f"{error}; what was learned before it is saved to {checkpoint}") from None
            seconds = time.perf_counter() - start
            save_checkpoint(checkpoint, {**trainer.checkpoint(), "run": run_settings(args, name)})
            extra = {"episodes_this_run": trainer.episodes_done - first}
            try:
                with signals.interruptible():  # after the save a signal ends the final test at once
                    extra.update(finish(trainer) if finish else {})
                    metrics = final_metrics(trainer, args, seconds, extra)
            except RunInterrupted:
                metrics = {**run_metrics(trainer, seconds, extra), "exact": None}
            log_final_evaluation(trainer, args, first, stopped=signals.received is not None)
            logger.close()
            metrics.update(checkpoint=str(checkpoint), log_dir=str(logger.log_dir), stopped_by_signal=signals.received)
            write_json(metrics, args.json)
            print(format_metrics(trainer, metrics))
            if signals.received:
                print(f"stopped by a signal after {trainer.episodes_done:,} episodes; saved to {checkpoint} "
                      f"(continue with --resume {checkpoint})")
    return signals.exit_status


def log_final_evaluation(trainer: Trainer, args: argparse.Namespace, first: int, stopped: bool) -> None:
    """Log an evaluation point at the run's last episode unless the schedule put one there.

    A run shorter than `--eval-every` would otherwise have none. Not after a stop by a signal, nor with
    `--eval-every 0`. It runs after the checkpoint and the final test, so neither sees the evaluation
    env's extra draws.
    """
    every = getattr(args, "eval_every", 0)
    if every and not stopped and trainer.episodes_done > first and trainer.episodes_done % every:
        trainer.log_evaluation(args.eval_games)
