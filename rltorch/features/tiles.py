"""The book's tile coder (section 9.5.4): several offset tilings of a box, optionally hashed into a fixed table.

Each dimension is scaled to [0, tiles] tile widths (clipped at the bounds), then to q = floor(x * tilings)
units of 1/tilings of a tile. Tiling i is displaced by i * (1, 3, 5, ...) units, one odd number per dimension
(the book's asymmetric offsets, as Sutton's tiles3 lays them out): its tile in dimension d is
(q_d + i * (2d + 1)) // tilings. The tiling and its coordinates make one dense index in
[0, tilings * prod(counts)); with `hash_size` > 0 the dense index is hashed into [0, hash_size) instead, and
`collisions` counts the tiles that share a slot with another. Every state activates `tilings` features.

`active` codes a whole batch in one tensor call; `active_tiles` is the same integer arithmetic in numba for
the engines, index for index.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import torch
from numba import njit

from rltorch.errors import RLTorchError
from rltorch.features.base import Box, Features, as_states, checked_int, register_features

HASH_MODULUS = 2**31 - 1  # a prime: dense indices below it stay distinct before the final "mod hash_size"
HASH_MULTIPLIER = 1_103_515_245
HASH_INCREMENT = 12_345
MAX_DENSE = 2**62  # dense indices must fit an int64
MAX_COUNTED = 2**24  # collisions are counted exactly over at most this many tiles


@register_features
class TileCoder(Features):
    """`tilings` tilings of `tiles` tiles per dimension over the box [low, high], offsets (1, 3, 5, ...)."""

    kind = "tiles"

    def __init__(self, low: float | Sequence[float], high: float | Sequence[float], tilings: int = 8,
                 tiles: int = 8, hash_size: int = 0) -> None:
        self.box = Box(low, high)
        self.tilings = checked_int("tilings", tilings, 1)
        self.tiles = checked_int("tiles", tiles, 1)
        self.hash_size = checked_int("hash size", hash_size, 0)
        odd = np.arange(self.box.dims, dtype=np.int64) * 2 + 1
        self.counts = (self.tiles * self.tilings + (self.tilings - 1) * odd) // self.tilings + 1
        self.tiling_size = int(np.prod(self.counts.astype(object)))
        self.dense_size = self.tilings * self.tiling_size
        if self.dense_size >= MAX_DENSE:
            raise RLTorchError(f"{self.dense_size:.3g} tiles do not fit 64-bit indices: use fewer tiles or dimensions")
        self.size = self.hash_size or self.dense_size
        self.active_count = self.tilings
        self._offsets = torch.from_numpy(np.outer(np.arange(self.tilings), odd))  # [tilings, d] in 1/tilings units
        strides = np.ones(self.box.dims, dtype=np.int64)
        for d in range(self.box.dims - 2, -1, -1):
            strides[d] = strides[d + 1] * self.counts[d + 1]
        self.strides = strides
        self._strides = torch.from_numpy(strides)
        self._tiling_base = torch.arange(self.tilings, dtype=torch.int64) * self.tiling_size
        self._collisions: int | None = None

    def active(self, states: torch.Tensor) -> torch.Tensor:
        """The index of the one active tile of each tiling, LongTensor [batch, tilings]."""
        units = torch.floor(self.box.unit(as_states(states)) * float(self.tiles * self.tilings)).to(torch.int64)
        coordinates = torch.div(units[:, None, :] + self._offsets[None], self.tilings, rounding_mode="floor")
        dense = self._tiling_base[None] + (coordinates * self._strides).sum(dim=2)
        return hashed(dense, self.hash_size) if self.hash_size else dense

    @property
    def collisions(self) -> int | None:
        """Tiles sharing a hashed slot with another (tiles minus slots used); 0 unhashed, None past 2^24 tiles."""
        if not self.hash_size:
            return 0
        if self._collisions is None and self.dense_size <= MAX_COUNTED:
            slots = hashed(torch.arange(self.dense_size, dtype=torch.int64), self.hash_size)
            self._collisions = self.dense_size - int(torch.unique(slots).numel())
        return self._collisions

    def diagnostics(self) -> dict[str, float]:
        """`features/hash_collisions` when hashing (and counted), for the value function to log; else nothing."""
        count = self.collisions if self.hash_size else None
        return {"features/hash_collisions": float(count)} if count is not None else {}

    def kernel_arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The arrays `active_tiles` reads: low, width, the tiles' strides and the odd offsets (numpy)."""
        low = np.asarray(self.box.low, dtype=np.float64)
        width = np.asarray(self.box.high, dtype=np.float64) - low
        return low, width, self.strides.copy(), np.arange(self.box.dims, dtype=np.int64) * 2 + 1

    def config(self) -> dict[str, Any]:
        """The bounds, tilings, tiles and hash size."""
        return {"kind": self.kind, **self.box.config(), "tilings": self.tilings, "tiles": self.tiles,
                "hash_size": self.hash_size}


def hashed(dense: torch.Tensor, hash_size: int) -> torch.Tensor:
    """Dense tile indices hashed into [0, hash_size): ((i mod p) * a + c) mod p mod hash_size, p = 2^31 - 1."""
    return ((dense % HASH_MODULUS) * HASH_MULTIPLIER + HASH_INCREMENT) % HASH_MODULUS % hash_size


@njit(cache=False)
def active_tiles(state: np.ndarray, low: np.ndarray, width: np.ndarray, strides: np.ndarray, odd: np.ndarray,
                 tilings: int, tiles: int, tiling_size: int, hash_size: int, out: np.ndarray) -> None:
    """`TileCoder.active` of one state, written into `out[:tilings]` (numba; the same integer arithmetic)."""
    scale = float(tiles * tilings)
    for i in range(tilings):
        index = i * tiling_size
        for d in range(state.shape[0]):
            unit = (state[d] - low[d]) / width[d]
            unit = min(max(unit, 0.0), 1.0)
            q = np.int64(np.floor(unit * scale))
            index += ((q + i * odd[d]) // tilings) * strides[d]
        if hash_size:
            index = ((index % HASH_MODULUS) * HASH_MULTIPLIER + HASH_INCREMENT) % HASH_MODULUS % hash_size
        out[i] = index
