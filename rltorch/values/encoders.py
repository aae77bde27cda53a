"""Encoders: turn hashable keys into feature rows; env packages supply their own (e.g. boards), these are generic.

Each encoder is a small picklable object with `size` (features per key) and `__call__(keys)`
returning a float tensor of shape (len(keys), size). Rows are cached per key, since the same keys
come back again and again.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence

import torch
from gymnasium import spaces


class Encoder:
    """Base: subclasses define `size` and `features(key) -> list[float]`."""

    size: int = 0

    def __init__(self) -> None:
        self._cache: dict[Hashable, list[float]] = {}

    def features(self, key: Hashable) -> list[float]:
        """The feature row of one key."""
        raise NotImplementedError

    def __call__(self, keys: Sequence[Hashable]) -> torch.Tensor:
        """Encode a batch of keys as a (len(keys), size) float32 tensor."""
        cache = self._cache
        rows = []
        for key in keys:
            row = cache.get(key)
            if row is None:
                row = cache[key] = self.features(key)
            rows.append(row)
        return torch.tensor(rows, dtype=torch.float32)

    def __getstate__(self) -> dict:
        """Pickle without the cache."""
        return {**self.__dict__, "_cache": {}}


def one_hot(index: int, size: int) -> list[float]:
    """A list of `size` zeros with a one at `index`."""
    row = [0.0] * size
    row[index] = 1.0
    return row


class PairEncoder(Encoder):
    """(state, action) keys: the state's features followed by a one-hot action."""

    def __init__(self, state_encoder: Encoder, actions: int) -> None:
        super().__init__()
        self.state_encoder = state_encoder
        self.actions = actions
        self.size = state_encoder.size + actions

    def features(self, key: Hashable) -> list[float]:
        """The state's features and the action's one-hot."""
        state, action = key
        return self.state_encoder.features(state) + one_hot(action, self.actions)


class SpaceEncoder(Encoder):
    """Observations of a `Discrete` space, or a `Tuple` of them, as concatenated one-hot rows (any env's default)."""

    def __init__(self, sizes: list[tuple[int, int]]) -> None:
        super().__init__()
        self.sizes = sizes  # (start, n) of each discrete part
        self.size = sum(n for _, n in sizes)

    def features(self, key: Hashable) -> list[float]:
        """One one-hot block per part of the observation."""
        parts = key if isinstance(key, tuple) else (key,)
        row: list[float] = []
        for value, (start, n) in zip(parts, self.sizes, strict=True):
            row += one_hot(int(value) - start, n)
        return row


def space_encoder(space: spaces.Space) -> SpaceEncoder:
    """A one-hot encoder for a `Discrete` observation space or a `Tuple` of `Discrete` ones."""
    parts = space.spaces if isinstance(space, spaces.Tuple) else (space,)
    if not all(isinstance(part, spaces.Discrete) for part in parts):
        raise ValueError(f"no default encoder for observations in {space}; give the env an encoder() method")
    return SpaceEncoder([(int(part.start), int(part.n)) for part in parts])
