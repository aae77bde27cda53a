"""Finding and building an env by id for the run layer, and the env context a run reads its capabilities from.

What an env may offer (all optional) is written as typed protocols in `rltorch.envs.capabilities`: the rules
(`legal_actions()`, `afterstate(state, action)`, `model()`), its own exact evaluation, a grid layout for
pictures, and extras (`is_game`, `options`, `encoder()`, `start_states()`, `evaluation_env()`,
`refresh_opponent(...)`, `reachable_keys(kind)`, `play_in_terminal(agent)`). A run resolves them once into an
`rltorch.envs.context.EnvContext` (`context_of(trainer)`): one model, one solve, shared by training, pictures
and reports.
"""

from __future__ import annotations

import contextlib
import dataclasses
import importlib
import os
import sys
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.envs.registration import load_env_creator

import rltorch.envs  # noqa: F401  (registers rltorch's envs)
from rltorch.envs.capabilities import DeclaresOptions, HasLegalActions
from rltorch.envs.context import EnvContext
from rltorch.errors import RLTorchError
from rltorch.options import Option


def import_user_module(env_id: str, what: str = "env") -> str:
    """Import the module of a `module:Name` the user named (found as `python -m` finds it); return the plain name.

    `what` says what the name is (an env id, an algorithm's class) in messages.

    Only for ids the user typed or passed in code: the module is looked up with the current folder first,
    and any error it raises while importing becomes one line naming the module (`RLTORCH_DEBUG=1` shows the
    module's own traceback).
    """
    module, sep, plain = env_id.rpartition(":")
    if not sep:
        return env_id
    if not module or not plain or any(not part.isidentifier() for part in module.split(".")):
        raise RLTorchError(f"{what} {env_id!r} is not module:Name (a Python module name, a colon, a name)")
    if module not in sys.modules:
        _import_from_here(module, f"{what} {env_id!r}")
    return plain


def _import_from_here(module: str, wanted: str) -> None:
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
        raise RLTorchError(f"cannot import module {module!r} for {wanted}: {type(error).__name__}: "
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


def declared_env_options(env_id: str) -> tuple[Option, ...]:
    """The options the env class declares (`rltorch train --name`; none for most envs)."""
    entry = env_class(env_id)
    return tuple(entry.options) if isinstance(entry, DeclaresOptions) else ()


def make_env(env_id: str, kwargs: dict[str, Any] | None = None) -> gym.Env:
    """`gym.make(env_id, **kwargs)` with errors turned into one clear message; checks observations are hashable."""
    plain = registered_id(env_id)
    env_class(env_id)  # a missing dependency is named as such
    kwargs = dict(kwargs or {})
    try:
        made = plain
        if kwargs.get("max_episode_steps") == 0:  # 0: no time limit, even where the env registers one
            del kwargs["max_episode_steps"]
            made = dataclasses.replace(gym.spec(plain), max_episode_steps=None)
        env = gym.make(made, disable_env_checker=True, **kwargs)
        env = hashable_observations(env)
        observation, _ = env.reset(seed=0)
    except Exception as error:  # the env's constructor is anyone's code: report what it raised, in one line
        if os.environ.get("RLTORCH_DEBUG"):
            raise
        raise RLTorchError(f"cannot make env {env_id!r} with {kwargs or {}}: {type(error).__name__}: "
                           f"{_first_line(error)}") from None
    if isinstance(env.unwrapped, HasLegalActions) and not env.unwrapped.legal_actions():
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


def hashable_observations(env: gym.Env) -> gym.Env:
    """`env`, its array observations (a Box space, as Mountain Car's) given as tuples of floats so they can be keys."""
    if not isinstance(env.observation_space, gym.spaces.Box):
        return env
    return gym.wrappers.TransformObservation(env, _as_tuple, env.observation_space)


def _as_tuple(observation: Any) -> tuple[float, ...]:
    """An array observation as a flat tuple of Python floats."""
    return tuple(np.asarray(observation, dtype=float).reshape(-1).tolist())


def hook(env: gym.Env, name: str) -> Any:
    """The env's optional method or attribute `name`, or None (the typed form: `rltorch.envs.capabilities`)."""
    return getattr(env.unwrapped, name, None)


def context_of(trainer: Any) -> EnvContext:
    """The env context `build_trainer` resolved for `trainer`; for a trainer built elsewhere, one resolved now."""
    context = getattr(trainer, "env_context", None)
    if not isinstance(context, EnvContext) or context.env is not trainer.env or context.gamma != trainer.gamma:
        context = trainer.env_context = EnvContext(trainer.env, trainer.gamma)
    return context


def evaluation_env(context: EnvContext, env_id: str, kwargs: dict[str, Any]) -> gym.Env:
    """The env that tests and evaluations play: the env's own choice, or a fresh copy of the training env."""
    make = context.evaluation_env
    return make() if make is not None else make_env(env_id, kwargs)
