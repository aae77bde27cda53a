"""One run path for every script: building a trainer for any env from a `RunConfig`, and `run_training`."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rltorch.callbacks import SelfPlayRefresh
from rltorch.checkpoints import save_checkpoint
from rltorch.envs.context import EnvContext
from rltorch.errors import BadTransition, RLTorchError
from rltorch.keys import AfterstateKeys, StateActionKeys, StateKeys
from rltorch.logger import TensorBoardLogger
from rltorch.policies import make_schedule
from rltorch.run.algorithms import trainer_class
from rltorch.run.config import RunConfig
from rltorch.run.envs import context_of, evaluation_env, hook, make_env
from rltorch.run.output import RunInterrupted, StopSignals, run_name, write_json
from rltorch.run.prediction import value_errors
from rltorch.run.report import final_metrics, format_metrics, run_metrics
from rltorch.run.session import check_new_run, checkpoint_lock, run_settings
from rltorch.run.value_functions import value_function_kind
from rltorch.trainers import Trainer


def build_keys(config: RunConfig, env: Any, algorithm: type[Trainer] | None = None) -> Any:
    """State-action keys, afterstate keys from the env's `afterstate`, or the states of a prediction run."""
    if algorithm is not None and algorithm.predicts_state_values:
        return StateKeys()
    if config.values == "q":
        return StateActionKeys()
    afterstate = hook(env, "afterstate")
    if afterstate is None:
        raise RLTorchError(f"env {config.env} has no afterstate(state, action): use --values q")
    return AfterstateKeys(afterstate)


def build_trainer(config: RunConfig) -> Trainer:
    """The trainer that `config` describes, checked and built before any file is made."""
    cls = trainer_class(config.algo)
    env = make_env(config.env, config.env_options)
    try:
        schedule = make_schedule(config.epsilon_schedule, config.epsilon_start, config.epsilon_final,
                                 config.epsilon_decay)
        context = EnvContext(env, config.gamma)  # the env's capabilities, resolved once for the whole run
        value_fn = value_function_kind(config.value_fn).build(config, env, cls)
        if cls.predicts_state_values:  # the value errors of the evaluated policy, not a greedy policy's return
            exact_eval = value_errors(context.model, value_fn, config.gamma)
        else:
            exact_eval = context.exact.scalars if context.exact is not None else None
        trainer = cls(
            env, value_fn, keys=build_keys(config, env, cls), gamma=config.gamma, schedule=schedule,
            seed=config.seed, eval_env=evaluation_env(context, config.env, config.env_options),
            exact_eval=exact_eval, **cls.arguments(config.algo_options, env),
        )
    except ValueError as error:
        raise RLTorchError(str(error)) from None
    trainer.env_id = config.env  # with its module, so `evaluate` can make a user's env again
    trainer.env_context = context  # run_training, its pictures and its report read the same model and solution
    return trainer


def run_training(
    trainer: Trainer, config: RunConfig, label: str, finish: Callable[[Trainer], dict] | None = None,
    resumed: dict | None = None,
) -> int:
    """Train, test, evaluate exactly, save and report: the one run path every trainer script takes.

    `resumed` is the checkpoint of `--resume` (see `resume_settings`): the trainer continues from it up to
    `--episodes` in all, logging into the same run folder. `finish(trainer)` may add figures of a
    study's own to the metrics after training. SIGINT and SIGTERM stop training at the next episode
    boundary; what was learned is saved and the exit status is 130 or 143. Returns the exit status.
    """
    name = config.run_name or run_name(label, trainer.algorithm, trainer.seed)
    checkpoint = config.checkpoint or Path("checkpoints") / f"{name}.pt"
    check_new_run(config.log_dir / name, checkpoint, config)
    if resumed is not None:
        trainer.restore(resumed)
    with checkpoint_lock(checkpoint), checkpoint_lock(config.log_dir / name, "run folder"):
        trainer.logger = logger = TensorBoardLogger(config.log_dir / name)
        context = context_of(trainer)
        if trainer.exact_eval is not None and context.grid is not None and not trainer.predicts_state_values:
            from rltorch.run.pictures import GridImages  # matplotlib, for grid worlds only

            trainer.exact_eval = GridImages(trainer.exact_eval, context, trainer)
        logger.hyperparameters({**config.hyperparameters(), **trainer.config()})
        refresh = context.refresh_opponent
        callbacks = [SelfPlayRefresh(refresh)] if refresh is not None else []
        signals = StopSignals(lambda: setattr(trainer, "stop_requested", True))
        more = config.episodes - trainer.episodes_done if resumed is not None else config.episodes
        first, start = trainer.episodes_done, time.perf_counter()
        with signals.active():
            try:
                trainer.train(max(more, 0), log_every=config.log_every, eval_every=config.eval_every,
                              eval_games=config.eval_games, progress=not config.no_progress, callbacks=callbacks)
            except BadTransition as error:  # the env broke its contract mid-run: keep what was learned
                save_checkpoint(checkpoint, {**trainer.checkpoint(), "run": run_settings(config, name)})
                logger.close()
                raise RLTorchError(f"{error}; what was learned before it is saved to {checkpoint}") from None
            seconds = time.perf_counter() - start
            save_checkpoint(checkpoint, {**trainer.checkpoint(), "run": run_settings(config, name)})
            extra = {"episodes_this_run": trainer.episodes_done - first}
            try:
                with signals.interruptible():  # after the save a signal ends the final test at once
                    extra.update(finish(trainer) if finish else {})
                    metrics = final_metrics(trainer, config, seconds, extra)
            except RunInterrupted:
                metrics = {**run_metrics(trainer, seconds, extra), "exact": None}
            log_final_evaluation(trainer, config, first, stopped=signals.received is not None)
            logger.close()
            metrics.update(checkpoint=str(checkpoint), log_dir=str(logger.log_dir), stopped_by_signal=signals.received)
            write_json(metrics, config.json)
            print(format_metrics(trainer, metrics))
            if signals.received:
                print(f"stopped by a signal after {trainer.episodes_done:,} episodes; saved to {checkpoint} "
                      f"(continue with --resume {checkpoint})")
    return signals.exit_status


def log_final_evaluation(trainer: Trainer, config: RunConfig, first: int, stopped: bool) -> None:
    """Log an evaluation point at the run's last episode unless the schedule put one there.

    A run shorter than `--eval-every` would otherwise have none. Not after a stop by a signal, nor with
    `--eval-every 0`. It runs after the checkpoint and the final test, so neither sees the evaluation
    env's extra draws.
    """
    every = config.eval_every
    if every and not stopped and trainer.episodes_done > first and trainer.episodes_done % every:
        trainer.log_evaluation(config.eval_games)
