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

import contextlib
import importlib
import os
import sys
from typing import Any

import gymnasium as gym
from gymnasium.envs.registration import load_env_creator

import rltorch.envs  # noqa: F401  (registers rltorch's envs)
from rltorch.errors import RLTorchError
from rltorch.mdp import model_of
from rltorch.mdp.evaluation import ModelEvaluation, format_model_report
from rltorch.mdp.pictures import grid_figures, log_grid_figures


def import_user_module(env_id: str) -> str:
    """Import the module of a `module:EnvId` id the user named (found as `python -m` finds it); return the plain id.

    Only for ids the user typed or passed in code: the module is looked up with the current folder first,
    and any error it raises while importing becomes one line naming the module (`RLTORCH_DEBUG=1` shows the
    module's own traceback).
    """
    module, sep, plain = env_id.rpartition(":")
    if not sep:
        return env_id
    if not module or not plain or any(not part.isidentifier() for part in module.split(".")):
        raise RLTorchError(f"--env {env_id!r} is not module:EnvId (a Python module name, a colon, an env id)")
    if module not in sys.modules:
        _import_from_here(module, env_id)
    return plain


def _import_from_here(module: str, env_id: str) -> None:
    """`importlib.import_module` with the current folder first on the path, every failure as one line."""
    here = os.getcwd()
    added = here not in sys.path
    if added:
        sys.path.insert(0, here)
    try:
        importlib.import_module(module)
    except Exception as error:  # the user's module is anyone's code: name it and its error in one line
        if os.environ.get("RLTORCH_DEBUG"):
            raise
        where = f" ({error.filename}, line {error.lineno})" if isinstance(error, SyntaxError) else ""
        raise RLTorchError(f"cannot import module {module!r} for env {env_id!r}: {type(error).__name__}: "
                           f"{error}{where} (RLTORCH_DEBUG=1 shows the traceback)") from None
    finally:
        if added:
            with contextlib.suppress(ValueError):
                sys.path.remove(here)


def env_id_from_file(env_id: Any, source: str, trusted: bool = False) -> str:
    """An env id read from a file (a checkpoint), checked: its module is imported only when the user allows it.

    A `module:EnvId` id whose module is not imported yet is refused in one line, unless `trusted` (the user's
    `--trust`): a file must never make rltorch run a module it names. A module the user named on the command
    line (`--env module:EnvId`) or imported in code is already imported, so its id passes.
    """
    if not isinstance(env_id, str) or not env_id:
        raise RLTorchError(f"{source} does not name a registered env")
    module, sep, _ = env_id.rpartition(":")
    if sep and module not in sys.modules and not trusted:
        raise RLTorchError(f"{source} asks for env {env_id!r} from module {module!r}, which rltorch does not import "
                           f"for a file; name it yourself with --env {env_id} (or import it in Python), or pass "
                           "--trust if you trust that module")
    return import_user_module(env_id) if sep else env_id


def registered_id(env_id: str) -> str:
    """The plain id of `env_id` whose module (if any) is imported already; never imports anything."""
    module, sep, plain = env_id.rpartition(":")
    if sep and module not in sys.modules:
        raise RLTorchError(f"env {env_id!r} needs module {module!r}, which is not imported (name it with --env "
                           f"{env_id} on the command line, or import it first)")
    return plain if sep else env_id


def env_class(env_id: str) -> Any:
    """The class (or creator) registered under `env_id`."""
    plain = registered_id(env_id)
    try:
        spec = gym.spec(plain)
    except gym.error.Error as error:
        raise RLTorchError(f"unknown env {env_id!r}: {error}") from None
    entry = spec.entry_point
    try:
        return load_env_creator(entry) if isinstance(entry, str) else entry
    except Exception as error:  # a registered env whose own module or dependency fails to import
        raise RLTorchError(f"env {env_id!r} cannot be loaded from {entry!r}: {type(error).__name__}: "
                           f"{_first_line(error)}") from None


def _first_line(error: BaseException) -> str:
    """The first line of an error's message (dependency errors can run to many lines)."""
    return str(error).strip().splitlines()[0] if str(error).strip() else ""


def cli_options(env_id: str) -> dict[str, dict[str, Any]]:
    """The options the env declares for the command line (none for most envs)."""
    return dict(getattr(env_class(env_id), "cli_options", {}))


def make_env(env_id: str, kwargs: dict[str, Any] | None = None) -> gym.Env:
    """`gym.make(env_id, **kwargs)` with errors turned into one clear message; checks observations are hashable."""
    plain = registered_id(env_id)
    env_class(env_id)  # a missing dependency is named as such
    try:
        env = gym.make(plain, disable_env_checker=True, **(kwargs or {}))
        observation, _ = env.reset(seed=0)
    except Exception as error:  # the env's constructor is anyone's code: report what it raised, in one line
        if os.environ.get("RLTORCH_DEBUG"):
            raise
        raise RLTorchError(f"cannot make env {env_id!r} with {kwargs or {}}: {type(error).__name__}: "
                           f"{_first_line(error)}") from None
    legal = getattr(env.unwrapped, "legal_actions", None)
    if legal is not None and not legal():
        raise RLTorchError(f"env {env_id!r} offers no legal action at the start of an episode")
    if not isinstance(env.action_space, gym.spaces.Discrete):
        raise RLTorchError(f"env {env_id!r} has a {type(env.action_space).__name__} action space; rltorch's learners "
                           "choose among the actions of a Discrete space")
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
