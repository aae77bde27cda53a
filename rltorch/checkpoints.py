"""Checkpoints: `torch.save` of a learner, written atomically, and `load` with clear errors."""

from __future__ import annotations

import os
import pickle
import tempfile
import zipfile
from pathlib import Path
from typing import Any

import torch

from rltorch.agents import GreedyAgent
from rltorch.errors import RLTorchError

FORMAT = "rltorch-checkpoint"
VERSION = 1


def save_checkpoint(path: str | Path, checkpoint: dict[str, Any]) -> Path:
    """Write `checkpoint` with `torch.save` to a temporary file, then rename it over `path`.

    A crash mid-write leaves any previous file at `path` untouched.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    payload = {"format": FORMAT, "version": VERSION, **checkpoint}
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
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
    return path


def _sync_folder(folder: Path) -> None:
    """Flush the folder entry of a renamed file to disk (where the platform allows it)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def load_checkpoint(path: str | Path) -> dict[str, Any]:
    """Read a checkpoint written by `save_checkpoint` (with `weights_only=False`)."""
    path = Path(path)
    if not path.is_file():
        raise RLTorchError(f"checkpoint {path} does not exist")
    try:
        payload = torch.load(path, map_location="cpu", weights_only=False)
    except (RuntimeError, EOFError, pickle.UnpicklingError, zipfile.BadZipFile, ValueError, OSError, ImportError,
            AttributeError) as error:
        raise RLTorchError(f"checkpoint {path} is truncated or not a torch file ({error.__class__.__name__})") from None
    if not isinstance(payload, dict) or payload.get("format") != FORMAT:
        raise RLTorchError(f"{path} is not an rltorch checkpoint")
    if payload.get("version") != VERSION:
        raise RLTorchError(f"checkpoint {path} has version {payload.get('version')}, expected {VERSION}")
    return payload


def load(path: str | Path) -> GreedyAgent:
    """Load a checkpoint and return its greedy agent: `agent.act(obs, legal_actions)`."""
    return load_checkpoint(path)["agent"]
