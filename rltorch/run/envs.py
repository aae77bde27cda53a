"""Finding and building an env by id for the run layer, and asking it the optional questions rltorch knows.

An env may offer (all optional): `legal_actions()`; `afterstate(state, action)` (enables afterstate
keys); `is_game = True` (wins, draws and losses are counted by the sign of the return);
`cli_options` (a dict of option name to argparse keywords: they become `--name` options of `train`);
`encoder()` (features for networks); `exact_scalars(agent)`, `exact_report(agent)` and
`format_exact_report(report)` (exact figures; without them, an env with a finite model, its own
`model()` or Gymnasium's toy-text `P`, gets the generic ones of `rltorch.mdp.evaluation`);
`evaluation_env()` (the env tests and evaluations play, when not a copy of the training env);
`start_states()` (for exploring starts); `refresh_opponent(value_fn, keys, episodes_done)`
(self-play); `play_in_terminal(agent)`.
"""

from __future__ import annotations

import importlib
from typing import Any

import gymnasium as gym
from gymnasium.envs.registration import load_env_creator

import rltorch.envs  # noqa: F401  (registers rltorch's envs)
from rltorch.errors import RLTorchError
from rltorch.mdp import model_of
from rltorch.mdp.evaluation import ModelEvaluation, format_model_report
from rltorch.mdp.pictures import grid_figures, log_grid_figures


def split_env_id(env_id: str) -> str:
    """Import the module of a `module:EnvId` id (a user's own env) and return the plain id."""
    module, sep, plain = env_id.rpartition(":")
    if sep:
        try:
            importlib.import_module(module)
        except ImportError as error:
            raise RLTorchError(f"cannot import {module!r} for env {env_id!r}: {error}") from None
    return plain if sep else env_id


def env_class(env_id: str) -> Any:
    """The class (or creator) registered under `env_id`."""
    plain = split_env_id(env_id)
    try:
        spec = gym.spec(plain)
    except gym.error.Error as error:
        raise RLTorchError(f"unknown env {env_id!r}: {error}") from None
    entry = spec.entry_point
    return load_env_creator(entry) if isinstance(entry, str) else entry


def cli_options(env_id: str) -> dict[str, dict[str, Any]]:
    """The options the env declares for the command line (none for most envs)."""
    return dict(getattr(env_class(env_id), "cli_options", {}))


def make_env(env_id: str, kwargs: dict[str, Any] | None = None) -> gym.Env:
    """`gym.make(env_id, **kwargs)` with errors turned into one clear message; checks observations are hashable."""
    plain = split_env_id(env_id)
    try:
        env = gym.make(plain, disable_env_checker=True, **(kwargs or {}))
        observation, _ = env.reset(seed=0)
    except Exception as error:  # the env's constructor is anyone's code: report what it raised, in one line
        raise RLTorchError(f"cannot make env {env_id!r} with {kwargs or {}}: {type(error).__name__}: {error}") from None
    try:
        hash(observation)
    except TypeError:
        raise RLTorchError(f"env {env_id!r} gives unhashable observations ({type(observation).__name__}); "
                           "tabular keys need hashable ones (wrap it to return ints or tuples)") from None
    return env


def hook(env: gym.Env, name: str) -> Any:
    """The env's optional method or attribute `name`, or None."""
    return getattr(env.unwrapped, name, None)


def exact_hooks(env: gym.Env, gamma: float) -> tuple[Any, Any, Any]:
    """The env's exact scalars, report and report formatter: its own, or the generic ones from its finite model."""
    own = hook(env, "exact_scalars"), hook(env, "exact_report"), hook(env, "format_exact_report")
    if own[0] is not None:
        return own
    model = model_of(env)
    if model is None:
        return None, None, None
    evaluation = ModelEvaluation(model, gamma)
    return evaluation, evaluation.report, format_model_report


class GridImages:
    """Exact scalars that also log the learned and exact policies of a grid world as TensorBoard images."""

    def __init__(self, scalars: Any, env: gym.Env, trainer: Any) -> None:
        self.scalars, self.env, self.trainer = scalars, env, trainer
        self.solution = scalars.solution if isinstance(scalars, ModelEvaluation) else None

    def __call__(self, agent: Any) -> dict[str, float]:
        """The exact scalars; the grid pictures go to the trainer's logger at its episode count."""
        figures = grid_figures(self.env, agent, self.trainer.gamma, exact=self.solution)
        log_grid_figures(self.trainer.logger, figures, self.trainer.episodes_done)
        return self.scalars(agent)


def evaluation_env(env: gym.Env, env_id: str, kwargs: dict[str, Any]) -> gym.Env:
    """The env that tests and evaluations play: the env's own choice, or a fresh copy of the training env."""
    make = hook(env, "evaluation_env")
    return make() if make is not None else make_env(env_id, kwargs)
