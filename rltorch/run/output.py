"""What a run leaves behind and says: unique run names, JSON metrics, one-line errors, signal-safe stops."""

from __future__ import annotations

import json
import os
import signal
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NoReturn

from rltorch.errors import RLTorchError


def run_name(env: str, algo: str, seed: int) -> str:
    """A unique run folder name `env__algo__seed__time__tag` (the tag keeps runs started together apart)."""
    return f"{env.replace('/', '-')}__{algo}__{seed}__{int(time.time())}__{os.urandom(3).hex()}"


def write_json(metrics: dict[str, Any], path: Path | None) -> None:
    """Write `metrics` as JSON to `path` when given."""
    if path:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(metrics, indent=2) + "\n")


def print_json(metrics: dict[str, Any], path: Path | None) -> None:
    """Print `metrics` as JSON, and write them to `path` when given."""
    print(json.dumps(metrics, indent=2))
    write_json(metrics, path)


def run_cli(run: Callable[[], Any]) -> int:
    """Call `run`; an rltorch or file-system error becomes one line on stderr and exit status 1.

    `run` may return an int: the exit status (e.g. 130 or 143 after a signal stopped training).
    """
    try:
        status = run()
    except RLTorchError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    except OSError as error:
        where = f" ({error.filename})" if getattr(error, "filename", None) else ""
        print(f"error: {error.strerror or error}{where}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        return 130
    return status if isinstance(status, int) else 0


class RunInterrupted(Exception):
    """A signal arrived while the work after the save (the final test, the exact evaluation) was running."""


class StopSignals:
    """While active, SIGINT and SIGTERM ask the work to stop at the next episode boundary instead of killing it.

    `received` holds the first signal's number; `exit_status` is 128 + that number (130, 143) or 0.
    `on_stop` is called once, when the first signal arrives. Inside `interruptible()` (work after the
    checkpoint is saved) a signal raises RunInterrupted at once instead.
    """

    def __init__(self, on_stop: Callable[[], None]) -> None:
        self.on_stop = on_stop
        self.received: int | None = None
        self._interruptible = False

    def _handle(self, signum: int, frame: Any) -> None:
        """Record the signal and ask the work to stop; inside `interruptible()` stop it now."""
        first = self.received is None
        if first:
            self.received = signum
            self.on_stop()
        if self._interruptible:
            self._interruptible = False
            raise RunInterrupted(signal.Signals(signum).name)
        if first:
            print(f"\n{signal.Signals(signum).name}: stopping after this episode, then saving", file=sys.stderr)

    @contextmanager
    def active(self) -> Iterator[StopSignals]:
        """Install the handlers for the duration of the block, then restore the previous ones."""
        previous = {sig: signal.signal(sig, self._handle) for sig in (signal.SIGINT, signal.SIGTERM)}
        try:
            yield self
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)

    @contextmanager
    def interruptible(self) -> Iterator[None]:
        """Within the block a signal (or one that came before it) raises RunInterrupted at once."""
        if self.received is not None:
            raise RunInterrupted(signal.Signals(self.received).name)
        self._interruptible = True
        try:
            yield
        finally:
            self._interruptible = False

    @property
    def exit_status(self) -> int:
        """128 + the signal's number, or 0 when none came."""
        return 128 + self.received if self.received is not None else 0


def refuse_to_run(module: str, scripts: str, run: str) -> NoReturn:
    """A study's helper module run as a script: one line naming the script to run instead, exit status 2."""
    print(f"{Path(module).name} is a module of {scripts}; run python {run} --help", file=sys.stderr)
    sys.exit(2)
