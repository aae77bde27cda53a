"""What keeps runs from losing or clobbering each other: resuming a checkpoint, run-folder checks, checkpoint locks."""

from __future__ import annotations

import argparse
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from rltorch.checkpoints import load_checkpoint, process_alive
from rltorch.errors import RLTorchError

# Options a resumed run takes from its command line; every other setting comes from the checkpoint.
FROM_COMMAND_LINE = {"episodes", "resume", "json", "no_progress", "checkpoint", "log_every", "eval_every",
                     "eval_games", "test_games", "overwrite"}


def run_settings(args: argparse.Namespace, name: str) -> dict[str, Any]:
    """The run's options as data, saved in its checkpoint so that `--resume` can rebuild the same run."""
    plain = {key: str(value) if isinstance(value, Path) else value for key, value in vars(args).items()
             if key not in FROM_COMMAND_LINE}
    return {"name": name, "args": plain}


def apply_resume(args: argparse.Namespace) -> dict[str, Any] | None:
    """With `--resume CKPT`, load the checkpoint and put its run's settings into `args`; return the checkpoint."""
    if not getattr(args, "resume", None):
        return None
    checkpoint = load_checkpoint(args.resume)
    run = checkpoint.get("run")
    if not isinstance(run, dict) or not isinstance(run.get("args"), dict):
        raise RLTorchError(f"{args.resume} holds no run settings to resume from (resume it in Python with "
                           "Trainer.restore)")
    for key, value in run["args"].items():
        setattr(args, key, Path(value) if key == "log_dir" else value)
    args.run_name = run["name"]
    args.checkpoint = args.checkpoint or Path(args.resume)
    return checkpoint


def check_new_run(run_dir: Path, checkpoint: Path, args: argparse.Namespace) -> None:
    """Refuse to write into an existing run folder or over an existing checkpoint, unless resuming or --overwrite."""
    if getattr(args, "resume", None) or getattr(args, "overwrite", False):
        return
    if run_dir.exists():
        raise RLTorchError(f"run folder {run_dir} exists: choose another --run-name, --resume its checkpoint, "
                           "or pass --overwrite")
    if checkpoint.exists():
        raise RLTorchError(f"checkpoint {checkpoint} exists: choose another --checkpoint, --resume it, "
                           "or pass --overwrite")


@contextmanager
def checkpoint_lock(checkpoint: Path) -> Iterator[None]:
    """Hold `.NAME.lock` beside the checkpoint while the run lives; a lock held by another live process refuses."""
    lock = checkpoint.parent / f".{checkpoint.name}.lock"
    checkpoint.parent.mkdir(parents=True, exist_ok=True)
    for _ in range(2):
        try:
            fd = os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
            break
        except FileExistsError:
            holder = _holder(lock)
            if holder is not None and holder != os.getpid() and process_alive(holder):
                raise RLTorchError(f"checkpoint {checkpoint} is held by a live run (pid {holder})") from None
            lock.unlink(missing_ok=True)  # left by a run that died
    else:
        raise RLTorchError(f"cannot take the lock {lock}")
    try:
        os.write(fd, str(os.getpid()).encode())
        os.close(fd)
        yield
    finally:
        lock.unlink(missing_ok=True)


def _holder(lock: Path) -> int | None:
    """The pid written in a lock file, or None if it cannot be read."""
    try:
        return int(lock.read_text().strip())
    except (OSError, ValueError):
        return None
