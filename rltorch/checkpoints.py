"""Checkpoints are data: `torch.save` of plain values and tensors, written atomically, read with `weights_only=True`.

`save_checkpoint` writes a dict of data only (str, int, float, bool, None, lists, tuples, dicts and
tensors); `load_checkpoint` and `load` read it with `torch.load(..., weights_only=True)`, which refuses
pickled code before any of it runs, and rebuild the agent from an allow-list of classes. Whole pickled
objects (`save_module`, and version-1 checkpoints) load only with `trusted=True`.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import pickle
import random
import re
import tempfile
import warnings
import zipfile
from collections import OrderedDict
from collections.abc import Callable, Hashable
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import torch

from rltorch.agents import GreedyAgent, PolicyAgent
from rltorch.errors import RLTorchError
from rltorch.keys import AfterstateKeys, StateActionKeys
from rltorch.policies import ConstantSchedule, ExponentialSchedule, LinearSchedule
from rltorch.values import DoubleQ, QNetwork, QTable, VNetwork, VTable, WeightedQTable, WeightedVTable
from rltorch.values.base import ValueFunction, rltorch_class

FORMAT = "rltorch-checkpoint"
VERSION = 2
REQUIRED = ("config", "value_fn_config", "value_fn_state")
RESUME = ("episodes", "schedule", "rng_state", "env_rng", "eval_env_rng")
VALUE_FUNCTIONS = {cls.__name__: cls for cls in (QTable, VTable, WeightedQTable, WeightedVTable, QNetwork, VNetwork,
                                                 DoubleQ)}
SCHEDULES = {"constant": ConstantSchedule, "linear": LinearSchedule, "exponential": ExponentialSchedule}
BIT_GENERATORS = {"PCG64": np.random.PCG64, "PCG64DXSM": np.random.PCG64DXSM, "MT19937": np.random.MT19937,
                  "Philox": np.random.Philox, "SFC64": np.random.SFC64}
_KEY = object()  # marks a dict's key (not a value) in the path of `as_data`'s error
_SCALARS = frozenset((type(None), bool, int, float, complex, str, bytes))
_LEAVES = (*_SCALARS, torch.dtype, torch.device)
_TEMP_TAIL = re.compile(r"(?:(\d+)\.)?[a-z0-9_]{8}\.tmp")  # after ".NAME.": "PID.random.tmp" (or an old "random.tmp")


# --- writing ------------------------------------------------------------------------------------
def save_checkpoint(path: str | Path, checkpoint: dict[str, Any]) -> Path:
    """Write `checkpoint` (data only, else RLTorchError before anything is written) atomically to `path`.

    A temporary file is written, fsynced and renamed over `path`, so a crash or kill mid-save leaves any
    previous file at `path` whole; temporary files of earlier killed saves of `path` are removed.
    """
    return _write_atomic(Path(path), {"format": FORMAT, "version": VERSION, **as_data(checkpoint)})


def save_module(path: str | Path, module_or_agent: Any) -> Path:
    """Write a whole agent or module with `torch.save` (pickled code: it loads only with `trusted=True`)."""
    return _write_atomic(Path(path), {"format": FORMAT, "version": VERSION, "kind": "module",
                                      "agent": module_or_agent})


def _write_atomic(path: Path, payload: dict[str, Any]) -> Path:
    """`torch.save` to a temporary file beside `path`, fsync, rename over `path`, fsync the folder."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.{os.getpid()}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as file:
            torch.save(payload, file)
            file.flush()
            os.fsync(file.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
        _sync_folder(path.parent)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    remove_stale_temp_files(path)
    return path


def remove_stale_temp_files(path: str | Path) -> list[Path]:
    """Remove the `.NAME.*.tmp` files of earlier saves of `path` whose process is gone; return them.

    A save's temporary file names its process; one of a live process (a save under way) is kept.
    """
    path = Path(path)
    prefix, removed = f".{path.name}.", []
    for entry in path.parent.iterdir():
        match = _TEMP_TAIL.fullmatch(entry.name[len(prefix):]) if entry.name.startswith(prefix) else None
        if match is not None and not (match.group(1) and process_alive(int(match.group(1)))):
            entry.unlink(missing_ok=True)
            removed.append(entry)
    return removed


def process_alive(pid: int) -> bool:
    """Whether process `pid` exists (this one counts as alive; a pid not ours to signal counts as alive too)."""
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (OSError, OverflowError):  # not ours to signal, or no valid pid: keep its file
        pass
    return True


def _sync_folder(folder: Path) -> None:
    """Flush the folder entry of a renamed file to disk (where the platform allows it)."""
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


# --- data ---------------------------------------------------------------------------------------
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
def load_checkpoint(path: str | Path, trusted: bool = False) -> dict[str, Any]:
    """Read a checkpoint's dict with `weights_only=True` (no code runs); `trusted=True` also unpickles objects."""
    path = Path(path)
    if not path.exists():
        raise RLTorchError(f"checkpoint {path} does not exist")
    if path.is_dir():
        raise RLTorchError(f"{path} is a directory, not a checkpoint")
    payload = _read(path, trusted)
    if not isinstance(payload, dict) or payload.get("format") != FORMAT:
        raise RLTorchError(f"{path} is not an rltorch checkpoint")
    version = payload.get("version")
    if version not in (1, VERSION):
        raise RLTorchError(f"checkpoint {path} has version {version!r}; this rltorch reads 1 and {VERSION}")
    if trusted and "agent" in payload:
        return payload
    for key in REQUIRED:
        if key not in payload:
            raise RLTorchError(f"checkpoint {path} has no {key!r}, so it cannot be loaded")
    if not isinstance(payload["config"], dict) or not isinstance(payload["value_fn_config"], dict):
        raise RLTorchError(f"checkpoint {path} has a malformed 'config' or 'value_fn_config'")
    return payload


def _read(path: Path, trusted: bool) -> Any:
    """`torch.load` on the CPU, weights only unless trusted, every failure as one RLTorchError line."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return torch.load(path, map_location="cpu", weights_only=not trusted)
    except pickle.UnpicklingError as error:
        if not trusted and (zipfile.is_zipfile(path) or path.read_bytes()[:1] == b"\x80"):
            raise RLTorchError(
                f"{path} holds pickled code or objects; it loads only with trusted=True (rltorch.load(path, "
                "trusted=True) / --trust) — do so only for a file from someone you trust") from None
        raise RLTorchError(f"checkpoint {path} is truncated or not a torch file ({type(error).__name__})") from None
    except (RuntimeError, EOFError, zipfile.BadZipFile, ValueError, OSError, ImportError, AttributeError,
            IndexError, KeyError, TypeError) as error:
        raise RLTorchError(f"checkpoint {path} is truncated or not a torch file ({type(error).__name__})") from None


def load(path: str | Path, trusted: bool = False, *,
         keys: Callable[[Hashable, list[int]], list[Hashable]] | None = None,
         policy: Callable[[Hashable], int] | None = None) -> Any:
    """Load a checkpoint's agent: `agent.act(obs, legal_actions)`, rebuilt from data unless the file is a module.

    A greedy agent over the values, keyed as the run keyed them (or by `keys`); with `policy`, a
    `PolicyAgent(policy, values)`: prediction runs save their values but not their policy function.
    Whole pickled agents (`save_module`, version-1 files) need `trusted=True`.
    """
    payload = load_checkpoint(path, trusted=trusted)
    if trusted and "agent" in payload:
        return payload["agent"]
    value_fn = value_fn_from_checkpoint(payload, path)
    if policy is not None:
        return PolicyAgent(policy, value_fn)
    return GreedyAgent(value_fn, keys if keys is not None else keys_from_config(payload["config"], path))


def value_fn_from_checkpoint(payload: dict[str, Any], path: str | Path = "checkpoint") -> ValueFunction:
    """Build the value function a checkpoint names (from the allow-list, on the CPU) and load its state."""
    config, name = payload["value_fn_config"], payload["value_fn_config"].get("class")
    cls = VALUE_FUNCTIONS.get(name) if isinstance(name, str) else None
    if cls is None:
        raise RLTorchError(f"{path} holds a {name!r}, not one of {', '.join(VALUE_FUNCTIONS)}")
    settings = {**config, "device": "cpu"} if "device" in config else config
    try:
        value_fn = cls.from_config(settings)
        value_fn.load_state_dict(payload["value_fn_state"])
    except RLTorchError as error:
        raise RLTorchError(f"{path}: {error}") from None
    except (KeyError, TypeError, ValueError, RuntimeError, AttributeError) as error:
        raise RLTorchError(f"{path} holds a {cls.__name__} that does not rebuild ({type(error).__name__}: "
                           f"{error})") from None
    return value_fn.eval()


def keys_from_config(config: dict[str, Any], path: str | Path = "checkpoint") -> Callable:
    """The run's keys: (state, action) pairs, or the afterstates of an rltorch env class."""
    kind, env_class = config.get("keys"), config.get("env_class")
    if kind == "q":
        return StateActionKeys()
    if kind != "afterstate":
        raise RLTorchError(f"{path} keys its values by {kind!r}; pass keys= to rltorch.load")
    try:
        cls = rltorch_class(env_class, gym.Env)
    except RLTorchError:
        raise RLTorchError(f"{path} keys its values by afterstates of {env_class!r}, not an rltorch env; "
                           "pass keys=AfterstateKeys(your_afterstate) to rltorch.load") from None
    if not callable(getattr(cls, "afterstate", None)):
        raise RLTorchError(f"{env_class} has no afterstate function; pass keys= to rltorch.load")
    return AfterstateKeys(cls.afterstate)


def check_resumable(checkpoint: dict[str, Any], config: dict[str, Any], value_fn_config: dict[str, Any]) -> None:
    """RLTorchError unless `checkpoint` holds resume state for a trainer with this config and value function."""
    missing = [key for key in (*REQUIRED, *RESUME) if key not in checkpoint]
    if missing:
        raise RLTorchError(f"the checkpoint has no {', '.join(map(repr, missing))}, so training cannot resume from it")
    saved = {**checkpoint["config"], "value_fn": checkpoint["value_fn_config"].get("class")}
    mine = {**config, "value_fn": value_fn_config.get("class")}
    differ = [key for key in ("algorithm", "env_class", "keys", "value_fn") if saved.get(key) != mine.get(key)]
    if differ:
        pairs = ", ".join(f"{key} {saved.get(key)!r} (this trainer: {mine.get(key)!r})" for key in differ)
        raise RLTorchError(f"the checkpoint is from another kind of run: {pairs}")
