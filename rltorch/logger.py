"""TensorBoard logging with namespaced tags (run names are `rltorch.run.output.run_name`)."""

from __future__ import annotations

import contextlib
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from tensorboard.compat.proto.summary_pb2 import Summary
from tensorboard.summary.writer.event_file_writer import _AsyncWriterThread
from torch.utils.tensorboard import SummaryWriter

HISTOGRAM_LIMIT = 1e20  # TensorBoard's default bins end here: larger values (and inf, nan) are left out


class TensorBoardLogger:
    """Writes scalars, text and figures to one TensorBoard run folder.

    A write that fails (a full disk, a folder removed) stops the logging with one warning on stderr; the
    training, its checkpoint and its report go on, so a full log disk never loses a run.
    """

    def __init__(self, log_dir: str | Path, buffer_events: int = 50) -> None:
        self.log_dir = Path(log_dir)
        _quiet_writer_thread_errors()
        self.writer = SummaryWriter(str(self.log_dir), max_queue=buffer_events + 10)
        self.buffer_events = buffer_events
        self.failure: str | None = None  # why logging stopped, once it has
        self._pending: list[tuple[Summary, int]] = []

    def _write(self, write: Callable[[], Any]) -> None:
        """Run one writer call unless logging has stopped; an OSError stops it with one warning."""
        if self.failure is not None:
            return
        try:
            write()
        except OSError as error:
            self.failure = error.strerror or str(error)
            print(f"warning: TensorBoard cannot write to {self.log_dir} ({self.failure}); logging stops here, "
                  "training and the checkpoint go on", file=sys.stderr)

    def scalar(self, tag: str, value: float, step: int) -> None:
        """Log one scalar, e.g. `train/return`, at `step` episodes."""
        self._write(lambda: self.writer.add_scalar(tag, value, step))

    def scalars(self, values: dict[str, float], step: int) -> None:
        """Log several scalars at one step as one event; events are handed to the writer in batches."""
        summary = Summary(value=[Summary.Value(tag=tag, simple_value=float(v)) for tag, v in values.items()])
        self._pending.append((summary, step))
        if len(self._pending) >= self.buffer_events:
            self.flush()

    def flush(self) -> None:
        """Hand the buffered events to the SummaryWriter and write them to disk."""
        pending, self._pending = self._pending, []
        self._write(lambda: self._hand_over(pending))

    def _hand_over(self, pending: list[tuple[Summary, int]]) -> None:
        """Give `pending` events to the event file writer and flush it."""
        file_writer = self.writer._get_file_writer()
        for summary, step in pending:
            file_writer.add_summary(summary, step)
        self.writer.flush()

    def histogram(self, tag: str, values: list[float], step: int) -> None:
        """Log a histogram of `values` that TensorBoard can bin (none: skipped), e.g. not those of diverged learning."""
        array = np.asarray(values, dtype=np.float64)
        array = array[np.abs(array) < HISTOGRAM_LIMIT]
        if array.size:
            self._write(lambda: self.writer.add_histogram(tag, array, step))

    def text(self, tag: str, text: str, step: int = 0) -> None:
        """Log a block of Markdown text, e.g. the hyperparameters."""
        self._write(lambda: self.writer.add_text(tag, text, step))

    def figure(self, tag: str, figure: Any, step: int = 0) -> None:
        """Log a matplotlib figure as an image at `step`, e.g. `grid/compare` (the figure is closed)."""
        self._write(lambda: self.writer.add_figure(tag, figure, step, close=True))

    def hyperparameters(self, config: dict) -> None:
        """Log the run's settings once, as a Markdown table."""
        rows = "\n".join(f"| {key} | {value} |" for key, value in config.items())
        self.text("hyperparameters", "| setting | value |\n| --- | --- |\n" + rows)

    def close(self) -> None:
        """Flush and close the event file."""
        self.flush()
        with contextlib.suppress(OSError):
            self.writer.close()


def _quiet_writer_thread_errors() -> None:
    """Let a TensorBoard writer thread that fails on a full disk die quietly: the logger reports it in one line."""
    previous = threading.excepthook
    if getattr(previous, "rltorch_quiet", False):
        return

    def hook(args: threading.ExceptHookArgs) -> None:
        """Drop an OSError of a TensorBoard writer thread; hand anything else to the previous hook."""
        if not (isinstance(args.thread, _AsyncWriterThread) and isinstance(args.exc_value, OSError)):
            previous(args)

    hook.rltorch_quiet = True
    threading.excepthook = hook


class NullLogger:
    """A logger that drops everything (for tests and quiet runs)."""

    def scalar(self, tag: str, value: float, step: int) -> None:
        """Drop a scalar."""

    def scalars(self, values: dict[str, float], step: int) -> None:
        """Drop scalars."""

    def histogram(self, tag: str, values: list[float], step: int) -> None:
        """Drop a histogram."""

    def text(self, tag: str, text: str, step: int = 0) -> None:
        """Drop a text."""

    def figure(self, tag: str, figure: Any, step: int = 0) -> None:
        """Drop a figure."""

    def hyperparameters(self, config: dict) -> None:
        """Drop the settings."""

    def flush(self) -> None:
        """Nothing to flush."""

    def close(self) -> None:
        """Nothing to close."""
