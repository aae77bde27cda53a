"""What keeps runs from losing or clobbering each other: resuming a checkpoint, run-folder checks, checkpoint locks."""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from rltorch.checkpoints import load_checkpoint
from rltorch.errors import RLTorchError
from rltorch.run.config import RunConfig

# Options a resumed run takes from its command line; every other setting comes from the checkpoint.
FROM_COMMAND_LINE = {"episodes", "resume", "json", "no_progress", "checkpoint", "log_every", "eval_every",
                     "eval_games", "test_games", "overwrite", "log_dir", "trust"}


def run_settings(config: RunConfig, name: str) -> dict[str, Any]:
    """The run's settings as data, saved in its checkpoint so that `--resume` can rebuild the same run."""
    return {"name": name, "args": config.saved_settings(FROM_COMMAND_LINE)}


def check_run_name(name: Any, source: str = "--run-name") -> str:
    """`name` if it is one plain path component (no separator, not `.` or `..`), else RLTorchError."""
    if not isinstance(name, str) or not name or name in (".", "..") or "/" in name or "\\" in name \
            or "\0" in name or name != name.strip() or len(name) > 200:
        raise RLTorchError(f"{source} {name!r} is not a plain folder name (one path component, no '/' or '..')")
    return name


def given_options(parser: argparse.ArgumentParser, argv: list[str]) -> set[str]:
    """The destinations of the options that `argv` spells out (option names are never abbreviated)."""
    given = set()
    for action in parser._actions:
        for option in action.option_strings:
            if any(arg == option or arg.startswith(option + "=") for arg in argv):
                given.add(action.dest)
    return given


def resume_settings(args: argparse.Namespace, parser: argparse.ArgumentParser | None = None,
                    argv: list[str] | None = None) -> tuple[dict[str, Any] | None, dict[str, Any]]:
    """With `--resume CKPT`: the checkpoint, and the settings of its run that the config takes back.

    Every saved setting is checked as the command line would check it (with `parser`), the run name must be
    one folder name under the chosen `--log-dir`, and an option given on the command line (`argv`) that the
    checkpoint fixes otherwise, or an `--episodes` not above the saved count, is refused in one line.
    Without `--resume`: (None, {}).
    """
    if not getattr(args, "resume", None):
        return None, {}
    checkpoint = load_checkpoint(args.resume)
    run = checkpoint.get("run")
    if not isinstance(run, dict) or not isinstance(run.get("args"), dict):
        raise RLTorchError(f"{args.resume} holds no run settings to resume from (resume it in Python with "
                           "Trainer.restore)")
    saved = {key: value for key, value in run["args"].items() if key not in FROM_COMMAND_LINE}
    if parser is not None:
        saved = _checked_settings(parser, saved, args.resume)
        _refuse_changes(parser, argv or [], args, saved)
    saved["run_name"] = check_run_name(run.get("name"), f"{args.resume}: its run name")
    saved["checkpoint"] = args.checkpoint or Path(args.resume)
    done = checkpoint.get("episodes")
    if isinstance(done, int) and hasattr(args, "episodes") and args.episodes <= done:
        raise RLTorchError(f"{args.resume} has trained {done:,} episodes already; --episodes counts them all, "
                           f"so give more than {done:,} to continue")
    return checkpoint, saved


def _checked_settings(parser: argparse.ArgumentParser, saved: dict[str, Any], source: Path) -> dict[str, Any]:
    """The saved settings this parser knows, each checked (and converted) by its option's own type and choices."""
    actions = {action.dest: action for action in parser._actions if action.option_strings}
    checked = {}
    for key, value in saved.items():
        action = actions.get(key)
        if action is None:
            continue  # a setting of another script or env: not this run's
        try:
            checked[key] = _checked_value(action, value)
        except (argparse.ArgumentTypeError, ValueError, TypeError) as error:
            raise RLTorchError(f"{source} holds a bad setting {action.option_strings[-1]} {value!r}: {error}") from None
    return checked


def _checked_value(action: argparse.Action, value: Any) -> Any:
    """`value` as the option `action` would have parsed it from the command line, or an error."""
    if value is None or value is action.default:
        return value
    if isinstance(action, (argparse._StoreTrueAction, argparse._StoreFalseAction)):
        if not isinstance(value, bool):
            raise ValueError("not a flag")
        return value
    if action.nargs not in (None, "?") or isinstance(action, argparse._AppendAction):
        if not isinstance(value, (list, tuple)):
            raise ValueError("not a list")
        return [_checked_item(action, item) for item in value]
    return _checked_item(action, value)


def _checked_item(action: argparse.Action, item: Any) -> Any:
    """One saved value through the option's type (from its text form) and its choices."""
    if isinstance(item, (list, tuple)) and len(item) == 2 and isinstance(item[0], str):  # KEY=VALUE pairs
        if not item[0].isidentifier():
            raise ValueError("not KEY=VALUE")
        return tuple(item)
    if not isinstance(item, (str, int, float, bool)):
        raise ValueError("not a plain value")
    result = action.type(str(item)) if callable(action.type) else item
    if action.choices is not None and result not in action.choices:
        raise ValueError(f"not one of {', '.join(map(str, action.choices))}")
    return result


def _refuse_changes(parser: argparse.ArgumentParser, argv: list[str], args: argparse.Namespace,
                    saved: dict[str, Any]) -> None:
    """RLTorchError when the command line sets an option that the resumed run keeps from its checkpoint."""
    for dest in sorted(given_options(parser, argv) - FROM_COMMAND_LINE):
        mine, theirs = getattr(args, dest, None), saved.get(dest)
        if dest in saved and mine != theirs:
            option = next(a.option_strings[-1] for a in parser._actions if a.dest == dest)
            raise RLTorchError(f"{option} {mine!r} differs from the resumed run's {theirs!r}: a resumed run keeps "
                               "its settings (start a new run to change them)")


def check_new_run(run_dir: Path, checkpoint: Path, config: RunConfig) -> None:
    """Refuse to write into an existing run folder or over an existing checkpoint, unless resuming or --overwrite."""
    if config.resume or config.overwrite:
        return
    if run_dir.exists():
        raise RLTorchError(f"run folder {run_dir} exists: choose another --run-name, --resume its checkpoint, "
                           "or pass --overwrite")
    if checkpoint.exists():
        raise RLTorchError(f"checkpoint {checkpoint} exists: choose another --checkpoint, --resume it, "
                           "or pass --overwrite")


@contextmanager
def checkpoint_lock(path: Path, what: str = "checkpoint") -> Iterator[None]:
    """Hold `.NAME.lock` beside `path` (a checkpoint or a run folder) while the run lives; a live holder refuses.

    The lock is the operating system's (`fcntl.flock`), so it is released whenever its process ends, however
    it ends; the file also names the holder's pid for the message. After taking the lock the file is checked
    to still be the one at the path (a holder that was just leaving removes it), else taken again.
    """
    lock = path.parent / f".{path.name}.lock"
    path.parent.mkdir(parents=True, exist_ok=True)
    while True:
        fd = os.open(lock, os.O_CREAT | os.O_RDWR, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            holder = _holder(fd)
            os.close(fd)
            raise RLTorchError(f"{what} {path} is held by a live run" + (f" (pid {holder})" if holder else "")) \
                from None
        if _same_file(fd, lock):
            break
        os.close(fd)  # the file was removed by a holder leaving after we opened it: take the new one
    try:
        with contextlib.suppress(OSError):  # the pid is for messages only: a full disk must not stop the run
            os.ftruncate(fd, 0)
            os.write(fd, str(os.getpid()).encode())
        yield
    finally:
        with contextlib.suppress(OSError):
            if _same_file(fd, lock):
                lock.unlink()
        os.close(fd)


def _same_file(fd: int, path: Path) -> bool:
    """Whether the open file `fd` is the file at `path` now."""
    try:
        here, opened = os.stat(path), os.fstat(fd)
    except OSError:
        return False
    return (here.st_dev, here.st_ino) == (opened.st_dev, opened.st_ino)


def _holder(fd: int) -> int | None:
    """The pid written in an open lock file, or None if it cannot be read."""
    try:
        return int(os.pread(fd, 32, 0).decode().strip())
    except (OSError, ValueError):
        return None
