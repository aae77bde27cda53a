"""The compiled inner loops of the n-tuple network: its value and its update on one packed board.

A board packs 4-bit cells into an int64 (see `rltorch.envs.game2048.rules`). Each feature is a tuple of
cells: the exponents in its cells, read as base-16 digits, index its lookup table, which starts at
`offsets[f]` in the flat weight vector. A board's value is the sum of its features' weights, added in
feature order in float64.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def feature_index(board: int, feature: int, cells: np.ndarray, lengths: np.ndarray, offsets: np.ndarray) -> int:
    """The weight that `feature` reads on `board`."""
    index = offsets[feature]
    for j in range(lengths[feature]):
        index += ((board >> (4 * cells[feature, j])) & 15) << (4 * j)
    return index


@njit(cache=True)
def board_value(board: int, weights: np.ndarray, cells: np.ndarray, lengths: np.ndarray,
                offsets: np.ndarray) -> float:
    """The sum of the weights the board's features read."""
    total = 0.0
    for feature in range(cells.shape[0]):
        total += weights[feature_index(board, feature, cells, lengths, offsets)]
    return total


@njit(cache=True)
def add_to_board(board: int, delta: float, weights: np.ndarray, cells: np.ndarray, lengths: np.ndarray,
                 offsets: np.ndarray) -> None:
    """Add `delta` to every weight the board's features read (once per feature, in feature order)."""
    for feature in range(cells.shape[0]):
        index = feature_index(board, feature, cells, lengths, offsets)
        weights[index] += delta


@njit(cache=True)
def batch_indices(boards: np.ndarray, cells: np.ndarray, lengths: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """The weight index of every feature of every board: shape (boards, features)."""
    out = np.empty((boards.shape[0], cells.shape[0]), dtype=np.int64)
    for row in range(boards.shape[0]):
        for feature in range(cells.shape[0]):
            out[row, feature] = feature_index(boards[row], feature, cells, lengths, offsets)
    return out
