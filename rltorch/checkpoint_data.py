"""Checkpoint contents as data: plain values only, schedules as dicts, and the RNG states of trainers and envs."""

from __future__ import annotations

import dataclasses
import random
from collections import OrderedDict
from typing import Any

import gymnasium as gym
import numpy as np
import torch

from rltorch.errors import RLTorchError
from rltorch.policies import ConstantSchedule, ExponentialSchedule, LinearSchedule

SCHEDULES = {"constant": ConstantSchedule, "linear": LinearSchedule, "exponential": ExponentialSchedule}
_KEY = object()  # marks a dict's key (not a value) in the path of `as_data`'s error
_SCALARS = frozenset((type(None), bool, int, float, complex, str, bytes))
_LEAVES = (*_SCALARS, torch.dtype, torch.device)
BIT_GENERATORS = {"PCG64": np.random.PCG64, "PCG64DXSM": np.random.PCG64DXSM, "MT19937": np.random.MT19937,
                  "Philox": np.random.Philox, "SFC64": np.random.SFC64}


def as_data(value: Any, where: str = "checkpoint", lenient: bool = False) -> Any:
    """`value` as what `torch.load(weights_only=True)` reads: numpy scalars become Python numbers.

    Anything else that is not data raises RLTorchError naming where it is, or with `lenient` becomes its repr.
    Containers are copied only where something inside them changed.
    """
    try:
        return _data(value, lenient)
    except _NotData as error:
        kind = type(error.value)
        raise RLTorchError(f"{where}{''.join(reversed(error.path))} is a {kind.__module__}.{kind.__qualname__}, "
                           "not data (str, int, float, bool, None, list, tuple, dict or tensor); save whole "
                           "objects with rltorch.checkpoints.save_module") from None


class _NotData(Exception):
    """An object that is not data, and the path to it (innermost first)."""

    def __init__(self, value: Any) -> None:
        self.value, self.path = value, []


def _data(value: Any, lenient: bool) -> Any:
    """`as_data` without the message: raises _NotData."""
    kind = type(value)
    if kind in _LEAVES or isinstance(value, torch.Tensor):
        return value
    if isinstance(value, np.generic) and type(value.item()) in _SCALARS:
        return value.item()
    if kind in (dict, OrderedDict):
        items = [(_item(k, _KEY, lenient), _item(v, k, lenient)) for k, v in value.items()]
        if all(k is k0 and v is v0 for (k, v), (k0, v0) in zip(items, value.items(), strict=True)):
            return value
        copied = kind(items)
        if hasattr(value, "_metadata"):  # a state_dict's
            copied._metadata = value._metadata
        return copied
    if kind in (list, tuple, set, torch.Size):
        if all(type(item) in _SCALARS for item in value):
            return value
        items = [_item(item, i, lenient) for i, item in enumerate(value)]
        return value if all(new is old for new, old in zip(items, value, strict=True)) else kind(items)
    if lenient:
        return repr(value)
    raise _NotData(value)


def _item(value: Any, key: Any, lenient: bool) -> Any:
    """`_data` of the item at `key` (a dict's key itself for _KEY), adding the step to the path of an error."""
    try:
        return _data(value, lenient)
    except _NotData as error:
        error.path.append(" key" if key is _KEY else f"[{key!r}]")
        raise


def plain_config(config: dict[str, Any]) -> dict[str, Any]:
    """A run's config as data: numpy scalars as numbers, any other object as its repr."""
    return as_data(config, "config", lenient=True)


def schedule_to_data(schedule: Any) -> dict[str, Any]:
    """An epsilon schedule as data, e.g. {"kind": "exponential", "start": 1.0, "final": 0.01, "decay": 1e4}."""
    for kind, cls in SCHEDULES.items():
        if type(schedule) is cls:
            return {"kind": kind, **dataclasses.asdict(schedule)}
    return {"kind": "custom", "repr": repr(schedule)}


def schedule_from_data(data: dict[str, Any], default: Any = None) -> Any:
    """The schedule `schedule_to_data` described; a custom one gives `default` (RLTorchError when None)."""
    cls = SCHEDULES.get(data.get("kind"))
    if cls is None:
        if default is None:
            raise RLTorchError(f"the schedule {data.get('repr', data)!r} is not one rltorch can rebuild")
        return default
    return cls(**{field.name: data[field.name] for field in dataclasses.fields(cls)})


def random_state(state: Any) -> tuple:
    """A `random.Random` state read back from data, as the nested tuple `setstate` wants."""
    version, internal, gauss = state
    return version, tuple(internal), gauss


# --- environments' generators --------------------------------------------------------------------
def env_rng_state(env: gym.Env) -> dict[str, Any]:
    """An env's random state as data: its numpy generator, its `random.Random`s, their owners' card lists, its mark.

    Read generically from `env.unwrapped`: `np_random`'s bit-generator state; every attribute that is a
    `random.Random`; for every attribute object holding a `random.Random` (a shoe), that generator and
    its lists of ints (the cards); and `mark` where the env alternates seats.
    """
    env = env.unwrapped
    state: dict[str, Any] = {"random": {}, "parts": {}}
    generator = getattr(env, "_np_random", None)
    if isinstance(generator, np.random.Generator):
        state["np_random"] = generator.bit_generator.state
    for name, value in vars(env).items():
        if isinstance(value, random.Random):
            state["random"][name] = value.getstate()
        elif hasattr(value, "__dict__") and not isinstance(value, type):
            part = _part_state(value)
            if part is not None:
                state["parts"][name] = part
    if isinstance(getattr(env, "mark", None), int):
        state["mark"] = env.mark
    return state


def _part_state(obj: Any) -> dict[str, Any] | None:
    """The generators and int lists of an object that holds a `random.Random`, else None."""
    generators = {name: value.getstate() for name, value in vars(obj).items() if isinstance(value, random.Random)}
    if not generators:
        return None
    lists = {name: list(value) for name, value in vars(obj).items()
             if type(value) is list and all(type(item) is int for item in value)}
    return {"random": generators, "lists": lists}


def set_env_rng_state(env: gym.Env, state: dict[str, Any]) -> None:
    """Put back what `env_rng_state` read, into the same attributes of `env.unwrapped`."""
    env = env.unwrapped
    if "np_random" in state:
        _set_numpy_state(env, state["np_random"])
    _set_generators(env, state.get("random", {}))
    for name, part in state.get("parts", {}).items():
        obj = getattr(env, name, None)
        if obj is None:
            raise RLTorchError(f"the env has no {name!r} to restore the random state of")
        _set_generators(obj, part["random"])
        for list_name, values in part["lists"].items():
            if type(getattr(obj, list_name, None)) is list:
                getattr(obj, list_name)[:] = values
    if "mark" in state and hasattr(env, "mark"):
        env.mark = state["mark"]


def _set_generators(obj: Any, states: dict[str, Any]) -> None:
    """Set the `random.Random` attributes of `obj` (made where None) to the saved states."""
    for name, saved in states.items():
        generator = getattr(obj, name, None)
        if generator is None:
            generator = random.Random()
            setattr(obj, name, generator)
        if not isinstance(generator, random.Random):
            raise RLTorchError(f"{type(obj).__name__}.{name} is not a random.Random to restore")
        generator.setstate(random_state(saved))


def _set_numpy_state(env: Any, saved: dict[str, Any]) -> None:
    """Give the env's numpy generator the saved bit-generator state (a new generator if the kind differs)."""
    generator = getattr(env, "_np_random", None)
    name = saved.get("bit_generator")
    if generator is None or generator.bit_generator.state.get("bit_generator") != name:
        if name not in BIT_GENERATORS:
            raise RLTorchError(f"unknown numpy bit generator {name!r} in the env's saved state")
        generator = np.random.Generator(BIT_GENERATORS[name]())
        env.np_random = generator
    generator.bit_generator.state = saved


# --- reading --------------------------------------------------------------------------------------
