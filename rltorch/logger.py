"""TensorBoard logging with namespaced tags, and the run-name convention."""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
from tensorboard.compat.proto.summary_pb2 import Summary
from torch.utils.tensorboard import SummaryWriter


def run_name(env: str, algo: str, seed: int) -> str:
    """The run folder name `env__algo__seed__time`."""
    return f"{env}__{algo}__{seed}__{int(time.time())}"


class TensorBoardLogger:
    """Writes scalars and text to one TensorBoard run folder."""

    def __init__(self, log_dir: str | Path, buffer_events: int = 50) -> None:
        self.log_dir = Path(log_dir)
        self.writer = SummaryWriter(str(self.log_dir), max_queue=buffer_events + 10)
        self.buffer_events = buffer_events
        self._pending: list[tuple[Summary, int]] = []

    def scalar(self, tag: str, value: float, step: int) -> None:
        """Log one scalar, e.g. `train/return`, at `step` episodes."""
        self.writer.add_scalar(tag, value, step)

    def scalars(self, values: dict[str, float], step: int) -> None:
        """Log several scalars at one step as one event; events are handed to the writer in batches."""
        summary = Summary(value=[Summary.Value(tag=tag, simple_value=float(v)) for tag, v in values.items()])
        self._pending.append((summary, step))
        if len(self._pending) >= self.buffer_events:
            self.flush()

    def flush(self) -> None:
        """Hand the buffered events to the SummaryWriter and write them to disk."""
        file_writer = self.writer._get_file_writer()
        for summary, step in self._pending:
            file_writer.add_summary(summary, step)
        self._pending.clear()
        self.writer.flush()

    def histogram(self, tag: str, values: list[float], step: int) -> None:
        """Log a histogram of `values` (skipped when there are none)."""
        if values:
            self.writer.add_histogram(tag, np.asarray(values, dtype=np.float64), step)

    def text(self, tag: str, text: str, step: int = 0) -> None:
        """Log a block of Markdown text, e.g. the hyperparameters."""
        self.writer.add_text(tag, text, step)

    def hyperparameters(self, config: dict) -> None:
        """Log the run's settings once, as a Markdown table."""
        rows = "\n".join(f"| {key} | {value} |" for key, value in config.items())
        self.text("hyperparameters", "| setting | value |\n| --- | --- |\n" + rows)

    def close(self) -> None:
        """Flush and close the event file."""
        self.flush()
        self.writer.close()


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

    def hyperparameters(self, config: dict) -> None:
        """Drop the settings."""

    def flush(self) -> None:
        """Nothing to flush."""

    def close(self) -> None:
        """Nothing to close."""
