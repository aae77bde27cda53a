"""Grid layouts: where each state of a grid world sits, for pictures (`rltorch.run.pictures`) and path plots.

A grid world offers its layout as it offers its model (`grid_layout()`, the `GridWorld` capability):
rltorch's windy grid world and Dyna maze do. Gymnasium's FrozenLake and CliffWalking cannot, so
`grid_layout(env)` adapts them here.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from rltorch.envs.capabilities import GridWorld

Cell = tuple[int, int]
BLOCKED = frozenset("GHC#")  # marks of cells that end or block an episode: no value, no arrows


@dataclass(frozen=True)
class GridLayout:
    """A grid world's shape, where each state sits, which way each action points, and the marked cells."""

    name: str
    rows: int
    cols: int
    cell_of: Callable[[Hashable], Cell]
    directions: dict[int, tuple[float, float]]
    marks: dict[Cell, str] = field(default_factory=dict)
    wind: tuple[int, ...] | None = None

    def cell(self, state: Hashable) -> Cell:
        """The (row, col) of `state`."""
        return self.cell_of(state)


def screen(d_row: int, d_col: int) -> tuple[float, float]:
    """A (row, col) step as a screen direction (dx, dy), dy > 0 meaning up."""
    return float(d_col), float(-d_row)


def as_cell(state: Hashable) -> Cell:
    """A (row, col) observation as a pair of ints."""
    row, col = state  # type: ignore[misc]
    return int(row), int(col)


def grid_layout(env: Any) -> GridLayout | None:
    """The layout of a grid world: its own (`GridWorld`), Gymnasium's FrozenLake or CliffWalking, else None."""
    unwrapped = getattr(env, "unwrapped", env)
    if isinstance(unwrapped, GridWorld):
        return unwrapped.grid_layout()
    return _toy_text(unwrapped)


def _toy_text(unwrapped: Any) -> GridLayout | None:
    """The layout of Gymnasium's FrozenLake or CliffWalking, else None."""
    from gymnasium.envs.toy_text.cliffwalking import CliffWalkingEnv
    from gymnasium.envs.toy_text.frozen_lake import FrozenLakeEnv

    if isinstance(unwrapped, FrozenLakeEnv):
        desc = np.asarray(unwrapped.desc)
        rows, cols = desc.shape
        marks = {(r, c): desc[r, c].decode() for r in range(rows) for c in range(cols)
                 if desc[r, c] in (b"S", b"G", b"H")}
        moves = {0: (0, -1), 1: (1, 0), 2: (0, 1), 3: (-1, 0)}  # left, down, right, up
    elif isinstance(unwrapped, CliffWalkingEnv):
        rows, cols = (int(n) for n in unwrapped.shape)
        marks = {(int(r), int(c)): "C" for r, c in zip(*np.nonzero(unwrapped._cliff), strict=True)}
        start = np.unravel_index(int(unwrapped.start_state_index), (rows, cols))
        marks[(int(start[0]), int(start[1]))] = "S"
        marks[(rows - 1, cols - 1)] = "G"
        moves = {0: (-1, 0), 1: (0, 1), 2: (1, 0), 3: (0, -1)}  # up, right, down, left
    else:
        return None
    name = type(unwrapped).__name__.removesuffix("Env")
    return GridLayout(name, rows, cols, lambda state: divmod(int(state), cols),
                      {action: screen(*move) for action, move in moves.items()}, marks)
