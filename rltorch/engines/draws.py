"""Each run's random numbers: one counter-based stream per run, drawn on demand, in numba and in numpy.

A run's stream is a sequence of float64 in [0, 1): number c is the high (c even) or low (c odd) 32 bits
of word c // 2, times 2^-32, where word i is SplitMix64's finalizer applied twice to the run's key:
`mix(mix(k0 + (i + 1) * golden) ^ k1)`. The key of global run index i is
`numpy.random.SeedSequence(seed).spawn(total)[i]`, which is `SeedSequence(seed, spawn_key=(i,))`
whatever `total` is, so a run draws the same numbers in any batch, alone or beside others, on any rank.

A lane takes the next number only when its algorithm needs one, in the order the per-step trainer
draws (see `rltorch.engines.core`). So the per-step trainer fed `uniforms(seed, i, count)` (its
`random()` the next number, its `randrange(n)` floor(u * n), its env's categorical draws the next
number too) repeats lane i of the engine exactly. `draw` is the numba form the engine calls,
`uniforms` its numpy twin; a test checks both against a plain-Python hash.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch
from numba import njit
from numba.core.cpu import CPUTargetOptions

from rltorch.errors import RLTorchError

GOLDEN = np.uint64(0x9E3779B97F4A7C15)
MIX_1 = np.uint64(0xBF58476D1CE4E5B9)
MIX_2 = np.uint64(0x94D049BB133111EB)
LOW_32 = np.uint64(0xFFFFFFFF)
SCALE = 2.0**-32
KEY_0, KEY_1, DRAWN, WORD = range(4)  # the columns of a lane's stream state (uint64)
# numba options of the per-step helpers, which only read and write arrays their caller lends them: without
# reference counting (numba's `_nrt=False`) Q-learning on cliff walking runs at ~16 M agent-steps/s, with it ~6 M.
NO_REFCOUNT = {"_nrt": False} if hasattr(CPUTargetOptions, "_nrt") else {}


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


def stream_states(seed: int, run_index: Sequence[int] | np.ndarray | torch.Tensor) -> np.ndarray:
    """[runs, 4] uint64: each run's stream at its start (its key, no number drawn yet)."""
    keys = run_keys(seed, run_index)
    return np.ascontiguousarray(np.concatenate([keys, np.zeros_like(keys)], axis=1))


def _mix_array(z: np.ndarray) -> np.ndarray:
    """SplitMix64's finalizer on uint64 arrays (numpy wraps array multiplication modulo 2^64)."""
    z = (z ^ (z >> np.uint64(30))) * MIX_1
    z = (z ^ (z >> np.uint64(27))) * MIX_2
    return z ^ (z >> np.uint64(31))


def uniforms(seed: int, run_index: int, count: int) -> np.ndarray:
    """The first `count` numbers of run `run_index`'s stream (numpy; what `draw` gives, call after call)."""
    k0, k1 = (np.uint64(k) for k in run_keys(seed, [run_index])[0])
    counters = np.arange((count + 1) // 2, dtype=np.uint64)
    with np.errstate(over="ignore"):
        words = _mix_array(_mix_array(k0 + (counters + np.uint64(1)) * GOLDEN) ^ k1)
    halves = np.stack([words >> np.uint64(32), words & LOW_32], axis=1).reshape(-1)
    return halves[:count].astype(np.float64) * SCALE


@njit(cache=True)
def _mix(z: np.uint64) -> np.uint64:
    """SplitMix64's finalizer."""
    z = (z ^ (z >> np.uint64(30))) * MIX_1
    z = (z ^ (z >> np.uint64(27))) * MIX_2
    return z ^ (z >> np.uint64(31))


@njit(cache=True, **NO_REFCOUNT)
def draw(stream: np.ndarray) -> float:
    """The next number of a lane's stream; `stream` is its row of 4 uint64 (key, key, numbers drawn, last word)."""
    drawn = stream[DRAWN]
    stream[DRAWN] = drawn + np.uint64(1)
    if drawn % np.uint64(2) == np.uint64(0):
        index = drawn // np.uint64(2)
        word = _mix(_mix(stream[KEY_0] + (index + np.uint64(1)) * GOLDEN) ^ stream[KEY_1])
        stream[WORD] = word
        return np.float64(word >> np.uint64(32)) * SCALE
    return np.float64(stream[WORD] & LOW_32) * SCALE
