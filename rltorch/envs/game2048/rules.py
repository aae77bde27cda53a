"""The rules of 2048 as small pure functions over a packed board, compiled with numba.

A board of `size` x `size` cells is one int64: cell `i = row * size + col` holds the tile's exponent
(0 empty, 1 for a 2, 2 for a 4, ... up to 15 for 32768) in bits `4 i` to `4 i + 3`. A row (or a column,
read top to bottom) packed the same way, its first cell lowest, indexes precomputed tables of its slide
toward the first cell and toward the last, and of the merge score. Two 32768 tiles do not merge (the
exponent has 4 bits), a limit no game here comes near.

Actions: 0 up, 1 right, 2 down, 3 left. A new tile takes two uniform draws: the first picks among the
empty cells in index order (`int(u * empty)`), the second makes it a 4 when below 0.1, else a 2.
"""

from __future__ import annotations

from functools import cache

import numpy as np
from numba import njit

UP, RIGHT, DOWN, LEFT = 0, 1, 2, 3
ACTION_NAMES = ("up", "right", "down", "left")
MAX_EXPONENT = 15
FOUR_PROBABILITY = 0.1


def slide_line(line: tuple[int, ...]) -> tuple[tuple[int, ...], int]:
    """Slide exponents toward index 0, merging equal neighbours once; the new line and its merge score."""
    tiles = [tile for tile in line if tile]
    out: list[int] = []
    score, index = 0, 0
    while index < len(tiles):
        tile = tiles[index]
        if index + 1 < len(tiles) and tiles[index + 1] == tile and tile < MAX_EXPONENT:
            out.append(tile + 1)
            score += 1 << (tile + 1)
            index += 2
        else:
            out.append(tile)
            index += 1
    return tuple(out + [0] * (len(line) - len(out))), score


@cache
def line_tables(size: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For every packed line of `size` cells: its slide toward the first cell, toward the last, and the score."""
    count = 16**size
    toward_first = np.zeros(count, dtype=np.int64)
    toward_last = np.zeros(count, dtype=np.int64)
    scores = np.zeros(count, dtype=np.int64)
    for packed in range(count):
        line = tuple((packed >> (4 * j)) & 15 for j in range(size))
        first, score = slide_line(line)
        last, _ = slide_line(line[::-1])
        toward_first[packed] = sum(tile << (4 * j) for j, tile in enumerate(first))
        toward_last[packed] = sum(tile << (4 * j) for j, tile in enumerate(last[::-1]))
        scores[packed] = score
    for table in (toward_first, toward_last, scores):
        table.setflags(write=False)
    return toward_first, toward_last, scores


def pack(cells: tuple[int, ...]) -> int:
    """The packed int64 of a board given as exponents in row-major order."""
    packed = 0
    for index, tile in enumerate(cells):
        packed |= int(tile) << (4 * index)
    return packed - (1 << 64) if packed >= 1 << 63 else packed


def unpack(packed: int, size: int) -> tuple[int, ...]:
    """The exponents of a packed board, row-major."""
    return tuple((int(packed) >> (4 * index)) & 15 for index in range(size * size))


@njit(cache=True)
def cell(board: int, index: int) -> int:
    """The exponent in cell `index`."""
    return (board >> (4 * index)) & 15


@njit(cache=True)
def slide(board: int, action: int, size: int, toward_first: np.ndarray, toward_last: np.ndarray,
          scores: np.ndarray) -> tuple[int, int]:
    """The afterstate of `action` (the board slid, before a new tile) and the move's merge score."""
    mask = (1 << (4 * size)) - 1
    table = toward_first if action == UP or action == LEFT else toward_last
    out = 0
    reward = 0
    if action == LEFT or action == RIGHT:
        for row in range(size):
            shift = 4 * size * row
            line = (board >> shift) & mask
            out |= table[line] << shift
            reward += scores[line]
        return out, reward
    for col in range(size):
        line = 0
        for row in range(size):
            line |= cell(board, row * size + col) << (4 * row)
        moved = table[line]
        reward += scores[line]
        for row in range(size):
            out |= ((moved >> (4 * row)) & 15) << (4 * (row * size + col))
    return out, reward


@njit(cache=True)
def empty_cells(board: int, size: int) -> int:
    """How many cells are empty."""
    count = 0
    for index in range(size * size):
        if cell(board, index) == 0:
            count += 1
    return count


@njit(cache=True)
def place_tile(board: int, size: int, u_cell: float, u_tile: float) -> int:
    """The board with a new tile on an empty cell, chosen by two uniform draws (see the module's text)."""
    pick = int(u_cell * empty_cells(board, size))
    exponent = 2 if u_tile < FOUR_PROBABILITY else 1
    for index in range(size * size):
        if cell(board, index) == 0:
            if pick == 0:
                return board | (exponent << (4 * index))
            pick -= 1
    return board


@njit(cache=True)
def max_exponent(board: int, size: int) -> int:
    """The largest exponent on the board."""
    best = 0
    for index in range(size * size):
        best = max(best, cell(board, index))
    return best


@njit(cache=True)
def can_move(board: int, size: int, toward_first: np.ndarray, toward_last: np.ndarray, scores: np.ndarray) -> bool:
    """Whether any slide changes the board (the game goes on)."""
    for action in range(4):
        after, _ = slide(board, action, size, toward_first, toward_last, scores)
        if after != board:
            return True
    return False
