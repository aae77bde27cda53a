"""Checkpoints are data: `torch.save` of plain values and tensors, written atomically, read with `weights_only=True`.

`save_checkpoint` writes a dict of data only (str, int, float, bool, None, lists, tuples, dicts and
tensors); `load_checkpoint` and `load` read it with `torch.load(..., weights_only=True)`, which refuses
pickled code before any of it runs, and rebuild the agent from an allow-list of classes. Whole pickled
objects (`save_module`, and version-1 checkpoints) load only with `trusted=True`.
"""

from __future__ import annotations

import contextlib
import errno
import os
import pickle
import re
import tempfile
import warnings
import zipfile
from collections.abc import Callable, Hashable
from pathlib import Path
from typing import Any

import gymnasium as gym
import torch

from rltorch.agents import GreedyAgent, PolicyAgent
from rltorch.checkpoint_data import (
    as_data,
)
from rltorch.errors import RLTorchError
from rltorch.keys import AfterstateKeys, StateActionKeys, StateKeys
from rltorch.values import (
    DoubleQ,
    LinearValueFunction,
    NTupleNetwork,
    QNetwork,
    QTable,
    VNetwork,
    VTable,
    WeightedQTable,
    WeightedVTable,
)
from rltorch.values.base import ValueFunction, imported_class, rltorch_class

FORMAT = "rltorch-checkpoint"
VERSION = 2
REQUIRED = ("config", "value_fn_config", "value_fn_state")
RESUME = ("episodes", "schedule", "rng_state", "env_rng", "eval_env_rng")
VALUE_FUNCTIONS = {cls.__name__: cls for cls in (QTable, VTable, WeightedQTable, WeightedVTable, QNetwork, VNetwork,
                                                 DoubleQ, LinearValueFunction,
                                                 NTupleNetwork)}
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
    except (OSError, RuntimeError) as error:  # a full disk shows as OSError, or as torch's RuntimeError
        Path(tmp).unlink(missing_ok=True)
        raise RLTorchError(_write_failure(path, error)) from None
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    remove_stale_temp_files(path)
    return path


def _write_failure(path: Path, error: BaseException) -> str:
    """One line on a failed save: why (a full disk named as such), and what is left at `path`."""
    full = getattr(error, "errno", None) == errno.ENOSPC or _disk_full(path.parent)
    first_line = str(error).strip().splitlines()[0] if str(error).strip() else ""
    reason = "the disk is full" if full else f"{type(error).__name__}: {first_line}"
    kept = f"the last good checkpoint {path} is intact" if path.exists() else "no earlier checkpoint is there"
    return f"cannot save {path}: {reason}; {kept}"


def _disk_full(folder: Path) -> bool:
    """Whether the file system holding `folder` has (almost) no free blocks left."""
    try:
        stats = os.statvfs(folder)
    except OSError:
        return False
    return stats.f_bavail * stats.f_frsize < 1 << 20


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
    if cls is None and isinstance(name, str) and ":" in name:  # a user's class, from a module already imported
        cls = imported_class(name, ValueFunction, str(path), "value function",
                             f"--value-fn {name} (or import it first)")
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
    """The run's keys: (state, action) pairs, the states of a prediction run, or the afterstates of an rltorch env."""
    kind, env_class = config.get("keys"), config.get("env_class")
    if kind == "q":
        return StateActionKeys()
    if kind == "state":
        return StateKeys()
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
