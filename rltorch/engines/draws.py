"""Where the batched engines' random numbers come from: one stream per run, or recorded draws for tests.

A draw source answers `uniform(mask, purpose)` with a `[lanes]` float64 tensor of draws in [0, 1).
The engines call it in the order the sequential algorithm draws (see `rltorch.engines.batched`),
always with the same sequence of calls in every lockstep iteration, and `mask` says which lanes
really consume a draw this time. A lane's value is only read where its mask is True.

`CounterDraws` (the default) ignores the mask: its c-th call gives lane l the c-th number of the
lane's run stream, a counter-based hash of the run's key and c. The key of global run index i is
`numpy.random.SeedSequence(seed).spawn(total)[i]`, which is `SeedSequence(seed, spawn_key=(i,))`
whatever `total` is, so a run draws the same numbers in any batch, alone or beside others, on any
rank of a split. `SequenceDraws` hands each lane the next number of its own recorded list only where
its mask is True: fed the numbers a per-step trainer draws, in its order, an engine lane repeats it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import numpy as np
import torch

from rltorch.errors import RLTorchError

GOLDEN = -7046029254386353131  # 0x9E3779B97F4A7C15 as a signed 64-bit int
MIX_1 = -4658895280553007687  # 0xBF58476D1CE4E5B9
MIX_2 = -7723592293110705685  # 0x94D049BB133111EB
LOW_32 = (1 << 32) - 1
CHUNK_WORDS = 1 << 19  # words hashed per refill over all runs (keeps the temporaries near the cache)


class DrawSource(Protocol):
    """What an engine draws from: `uniform(mask, purpose)` and `select(index)` (keep only those lanes, in order)."""

    def uniform(self, mask: torch.Tensor, purpose: str) -> torch.Tensor:
        """[lanes] float64 draws in [0, 1); lanes where `mask` is False consume nothing (their value is unused)."""
        ...

    def select(self, index: torch.Tensor) -> None:
        """Keep only lanes `index` (the engine dropped finished lanes)."""
        ...


def run_keys(seed: int, run_index: Sequence[int] | np.ndarray | torch.Tensor) -> np.ndarray:
    """[runs, 2] uint64 keys: run i's are `SeedSequence(seed).spawn(total)[i].generate_state(2, np.uint64)`."""
    indices = np.asarray(torch.as_tensor(run_index).cpu(), dtype=np.int64).reshape(-1)
    if indices.size and int(indices.min()) < 0:
        raise RLTorchError("run indices must be non-negative")
    unique, inverse = np.unique(indices, return_inverse=True)
    keys = np.empty((unique.size, 2), dtype=np.uint64)
    for row, index in enumerate(unique.tolist()):
        keys[row] = np.random.SeedSequence(seed, spawn_key=(index,)).generate_state(2, np.uint64)
    return keys[inverse.reshape(-1)]


def _shift_right(values: torch.Tensor, bits: int) -> torch.Tensor:
    """Logical right shift of int64 bit patterns."""
    return torch.bitwise_right_shift(values, bits) & ((1 << (64 - bits)) - 1)  # `>>` has a slow path here


def _mix(values: torch.Tensor) -> torch.Tensor:
    """SplitMix64's finalizer on int64 bit patterns (multiplication wraps, as uint64 arithmetic does)."""
    values = (values ^ _shift_right(values, 30)) * MIX_1
    values = (values ^ _shift_right(values, 27)) * MIX_2
    return values ^ _shift_right(values, 31)


def hash_words(keys: torch.Tensor, counters: torch.Tensor) -> torch.Tensor:
    """[runs, words] int64: word c of each run, `mix(mix(k0 + (c + 1) * golden) ^ k1)` with keys [runs, 2] int64."""
    weyl = keys[:, :1] + (counters[None, :] + 1) * GOLDEN
    return _mix(_mix(weyl) ^ keys[:, 1:])


def words_to_uniforms(words: torch.Tensor) -> torch.Tensor:
    """Each 64-bit word as two float64 in [0, 1), high half first: [runs, words] -> [runs, 2 * words]."""
    high = _shift_right(words, 32).to(torch.float64)
    low = (words & LOW_32).to(torch.float64)
    return torch.stack((high, low), dim=-1).reshape(words.shape[0], -1) * 2.0**-32


class CounterDraws:
    """Each lane's c-th call returns the c-th number of its run's stream (the default draw source, see module)."""

    def __init__(self, seed: int, run_index: torch.Tensor, device: torch.device | str = "cpu",
                 chunk_calls: int | None = None) -> None:
        run_index = torch.as_tensor(run_index, dtype=torch.long).reshape(-1).cpu()
        unique, inverse = torch.unique(run_index, return_inverse=True)
        self.keys = torch.from_numpy(run_keys(seed, unique).view(np.int64)).to(device)
        self.lane_run = inverse.to(device)
        self.device = torch.device(device)
        if chunk_calls is None:
            chunk_calls = 2 * min(128, max(4, CHUNK_WORDS // max(len(unique), 1)))
        self.chunk_calls = chunk_calls + chunk_calls % 2
        self.calls = 0
        self._chunk = torch.empty(0, 0, dtype=torch.float64, device=self.device)

    def uniform(self, mask: torch.Tensor, purpose: str) -> torch.Tensor:
        """The next number of every lane's stream (the mask is ignored: every lane's counter moves)."""
        position = self.calls % self.chunk_calls
        if position == 0:
            self._refill()
        self.calls += 1
        return self._chunk[position]

    def _refill(self) -> None:
        """Hash the next block of counters: [calls, lanes], each call's row contiguous."""
        first = self.calls // 2
        counters = torch.arange(first, first + self.chunk_calls // 2, device=self.device)
        per_run = words_to_uniforms(hash_words(self.keys, counters))
        self._chunk = per_run.t().index_select(1, self.lane_run).contiguous()

    def select(self, index: torch.Tensor) -> None:
        """Keep only lanes `index`."""
        self.lane_run = self.lane_run.index_select(0, index)
        if self._chunk.numel():
            self._chunk = self._chunk.index_select(1, index).contiguous()


class SequenceDraws:
    """Lane l's draws are `streams[l]` in order, each consumed only where the mask is True (see module).

    `trace` (when `record=True`) lists every consumed draw as (lane, purpose, value), so a test can
    show the order the engine drew in.
    """

    def __init__(self, streams: Sequence[Sequence[float]], device: torch.device | str = "cpu",
                 record: bool = False) -> None:
        width = max((len(stream) for stream in streams), default=0)
        self.values = torch.full((len(streams), width + 1), 0.0, dtype=torch.float64, device=device)
        for lane, stream in enumerate(streams):
            self.values[lane, :len(stream)] = torch.as_tensor(list(stream), dtype=torch.float64)
        self.limits = torch.tensor([len(stream) for stream in streams], device=device)
        self.cursor = torch.zeros(len(streams), dtype=torch.long, device=device)
        self.ids = torch.arange(len(streams), device=device)
        self.trace: list[tuple[int, str, float]] | None = [] if record else None

    def uniform(self, mask: torch.Tensor, purpose: str) -> torch.Tensor:
        """The next recorded number of each masked lane; 0.0 elsewhere."""
        if bool((mask & (self.cursor >= self.limits)).any()):
            raise RLTorchError(f"a lane ran out of recorded draws (drawing for {purpose!r})")
        rows = torch.arange(len(self.cursor), device=self.cursor.device)
        values = self.values[rows, self.cursor.clamp(max=self.values.shape[1] - 1)]
        if self.trace is not None:
            for lane in torch.nonzero(mask).flatten().tolist():
                self.trace.append((int(self.ids[lane]), purpose, float(values[lane])))
        self.cursor = self.cursor + mask.long()
        return torch.where(mask, values, 0.0)

    def select(self, index: torch.Tensor) -> None:
        """Keep only lanes `index`."""
        self.cursor, self.ids = self.cursor[index], self.ids[index]
        self.limits, self.values = self.limits[index], self.values[index]

    def consumed(self) -> list[int]:
        """How many draws each lane has consumed."""
        return self.cursor.tolist()
