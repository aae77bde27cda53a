"""Features of 2048 afterstate keys for networks: one-hot tile exponents per cell, and the move's reward."""

from __future__ import annotations

from collections.abc import Hashable

from rltorch.values.encoders import Encoder

REWARD_SCALE = 1.0 / 1024  # merge scores run to thousands; a network's inputs stay near 1


class AfterstateEncoder(Encoder):
    """A `(board, reward)` key (or a bare board) as 16 one-hot exponents per cell, then the reward scaled."""

    def __init__(self, size: int) -> None:
        super().__init__()
        self.board_size = size
        self.size = 16 * size * size + 1

    def features(self, key: Hashable) -> list[float]:
        """The key's feature row."""
        board, reward = key if len(key) == 2 and isinstance(key[0], tuple) else (key, 0)
        row = [0.0] * self.size
        for index, tile in enumerate(board):
            row[16 * index + tile] = 1.0
        row[-1] = reward * REWARD_SCALE
        return row

    def config(self) -> dict[str, int]:
        """Constructor arguments, so a checkpoint rebuilds the encoder from data."""
        return {"size": self.board_size}
