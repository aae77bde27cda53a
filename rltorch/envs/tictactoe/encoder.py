"""The tic-tac-toe board as network input."""

from __future__ import annotations

from collections.abc import Hashable

from rltorch.values.encoders import Encoder


class BoardEncoder(Encoder):
    """Tic-tac-toe boards as three one-hot planes of 9 cells: empty, X, O (27 features)."""

    size = 27

    def features(self, key: Hashable) -> list[float]:
        """The planes of one board."""
        return [float(cell == mark) for mark in (0, 1, -1) for cell in key]
