"""Where a many-runs run stands, as data: every run's table and random stream, and the sums of its current block.

The checkpoint is an ordinary rltorch checkpoint (`torch.load(weights_only=True)` reads it) with
`kind` "many-runs": every run's table `[runs, tables, S, A]` (float64, the model's state order), every
run's stream state (the engine's four uint64 words, stored bit for bit as int64), the episodes done,
the block size, the last logged episode and the per-run sums of the block under way, the final window
(the last `WINDOW` episodes of the run) and each run's sum of returns in it so far, and the summary.
`--resume` continues from it to the same numbers as a run never stopped.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch

from rltorch.agents import GreedyAgent
from rltorch.engines.batched import LaneState
from rltorch.errors import RLTorchError
from rltorch.keys import StateActionKeys
from rltorch.mdp.model import FiniteModel
from rltorch.values import QTable

KIND = "many-runs"
WINDOW = 100  # the summary's mean return is over the run's last WINDOW episodes (all of them when fewer)


@dataclass
class RunsState:
    """Every run's lanes (tables, streams, episodes done) and the sums of the block under way."""

    lanes: LaneState
    block: int  # episodes per logged block
    logged: int  # the episode of the last logged block's end (0: none yet)
    block_returns: np.ndarray  # [runs] sums of returns since then
    block_lengths: np.ndarray  # [runs] sums of lengths since then
    window: tuple[int, int] | None = None  # the final window's episodes, 1-based inclusive (None: not measurable)
    window_sums: np.ndarray | None = None  # [runs] sums of returns in the window so far

    @classmethod
    def fresh(cls, runs: int, shape: tuple[int, int, int], streams: np.ndarray, block: int) -> RunsState:
        """Runs at their start: zero tables, streams unread."""
        return cls(LaneState(np.zeros((runs, *shape)), streams, 0), block, 0, np.zeros(runs), np.zeros(runs))

    def plan_window(self, until: int) -> None:
        """Measure the last WINDOW episodes before `until`; a window that began before a resumed state is not."""
        planned = (max(1, until - WINDOW + 1), until)
        if self.window == planned:
            return
        measurable = self.lanes.episodes_done < planned[0]
        self.window = planned if measurable else None
        self.window_sums = np.zeros(self.runs) if measurable else None

    @property
    def window_returns(self) -> np.ndarray | None:
        """Each run's mean return over the final window, once it is complete."""
        if self.window is None or self.window_sums is None or self.lanes.episodes_done < self.window[1]:
            return None
        return self.window_sums / (self.window[1] - self.window[0] + 1)

    @property
    def runs(self) -> int:
        """How many runs."""
        return int(self.lanes.values.shape[0])

    def as_data(self) -> dict[str, Any]:
        """The state as checkpoint data (tensors and numbers)."""
        data: dict[str, Any] = {
            "tables": torch.from_numpy(np.ascontiguousarray(self.lanes.values)),
            "streams": torch.from_numpy(np.ascontiguousarray(self.lanes.streams).view(np.int64)),
            "episodes": int(self.lanes.episodes_done), "block": self.block, "logged": self.logged,
            "block_returns": torch.from_numpy(self.block_returns.copy()),
            "block_lengths": torch.from_numpy(self.block_lengths.copy()),
        }
        if self.window is not None and self.window_sums is not None:
            data.update(window_sums=torch.from_numpy(self.window_sums.copy()), window=list(self.window))
        return data

    @classmethod
    def from_data(cls, payload: dict[str, Any], runs: int, shape: tuple[int, int, int], source: Path) -> RunsState:
        """The state a checkpoint holds, every part checked against the run's size (one line when it does not fit)."""
        tables = _tensor(payload, "tables", (runs, *shape), torch.float64, source)
        streams = _tensor(payload, "streams", (runs, 4), torch.int64, source).view(np.uint64)
        done, block, logged = payload.get("episodes"), payload.get("block"), payload.get("logged")
        if not (all(isinstance(x, int) for x in (done, block, logged)) and 0 <= logged <= done and block >= 1):
            raise RLTorchError(f"{source}: its episode count, block size or last logged episode is not right")
        state = cls(LaneState(tables, np.ascontiguousarray(streams), done), block, logged,
                    _tensor(payload, "block_returns", (runs,), torch.float64, source),
                    _tensor(payload, "block_lengths", (runs,), torch.float64, source))
        window = payload.get("window")
        if window is not None:
            if not (isinstance(window, list) and len(window) == 2 and all(isinstance(w, int) for w in window)):
                raise RLTorchError(f"{source}: its window is not two episode numbers")
            state.window = (window[0], window[1])
            state.window_sums = _tensor(payload, "window_sums", (runs,), torch.float64, source)
        return state


def _tensor(payload: dict[str, Any], key: str, shape: tuple[int, ...], dtype: torch.dtype, source: Path) -> np.ndarray:
    """`payload[key]` as a numpy array, if it is a tensor of `shape` and `dtype` (else one RLTorchError line)."""
    value = payload.get(key)
    if not isinstance(value, torch.Tensor) or tuple(value.shape) != shape or value.dtype != dtype:
        raise RLTorchError(f"{source}: its {key!r} is not a {dtype} tensor of shape {list(shape)} for this run")
    return value.numpy().copy()


def is_many_runs(payload: dict[str, Any]) -> bool:
    """Whether a loaded checkpoint is a many-runs run's."""
    return payload.get("kind") == KIND


def run_agent(payload: dict[str, Any], model: FiniteModel | None, run: int | None, source: Path) -> GreedyAgent:
    """The greedy agent of run `run` (0 when None) of a many-runs checkpoint, over `model`'s states."""
    if model is None:
        raise RLTorchError(f"{source} holds runs on a finite model, and this env has none")
    tables = payload.get("tables")
    runs = tables.shape[0] if isinstance(tables, torch.Tensor) and tables.ndim == 4 else 0
    index = 0 if run is None else run
    if not 0 <= index < runs:
        raise RLTorchError(f"--run {index}: {source} holds runs 0..{runs - 1}")
    if tables.shape[2] != len(model.states) or tables.dtype != torch.float64:
        raise RLTorchError(f"{source}: its tables do not fit the env's model ({len(model.states)} states)")
    q = tables[index].mean(dim=0) if tables.shape[1] > 1 else tables[index, 0]  # Double Q: (Q1 + Q2) / 2
    table = QTable()
    for state in model.states:
        for action in model.actions.get(state, ()):
            table.table[(state, action)] = float(q[model.index[state], action])
    return GreedyAgent(table, StateActionKeys())
