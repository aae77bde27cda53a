"""A plain-Python loop of TD-afterstate learning on 4x4 2048 with an n-tuple network (the baseline of
bench/game2048_speed.py): lists for the board, stdlib arrays for the lookup tables, no numba, no torch.

The same algorithm as rltorch's compiled loop: the four 6-tuples of `default_tuples(4)` over the 8
symmetries, each weight moving alpha / 32 of the TD error, greedy moves, the previous afterstate updated toward
r' + V(afterstate') of the next greedy move, the values read again before moving.
Usage: python bench/plain_2048.py [--games 20] [--seed 0]
"""

from __future__ import annotations

import argparse
import random
import time
from array import array

from rltorch.envs.game2048.rules import slide_line
from rltorch.run.options import at_most, make_parser, non_negative_int, positive_int
from rltorch.values.ntuple import default_tuples, symmetries

LINES = ([[0, 4, 8, 12], [1, 5, 9, 13], [2, 6, 10, 14], [3, 7, 11, 15]],  # up: each column, top first
         [[3, 2, 1, 0], [7, 6, 5, 4], [11, 10, 9, 8], [15, 14, 13, 12]],  # right
         [[12, 8, 4, 0], [13, 9, 5, 1], [14, 10, 6, 2], [15, 11, 7, 3]],  # down
         [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11], [12, 13, 14, 15]])  # left


def slide(board: list[int], action: int) -> tuple[list[int], int]:
    """The afterstate and merge score of a slide."""
    after, score = board[:], 0
    for cells in LINES[action]:
        line, gained = slide_line(tuple(board[cell] for cell in cells))
        score += gained
        for cell, tile in zip(cells, line, strict=True):
            after[cell] = tile
    return after, score


class PlainNTuple:
    """The n-tuple network as stdlib arrays."""

    def __init__(self, alpha: float) -> None:
        self.features = [(number, [image[cell] for cell in cells]) for number, cells in enumerate(default_tuples(4))
                         for image in symmetries(4)]
        self.tables = [array("f", bytes(4 * 16**6)) for _ in default_tuples(4)]
        self.step = alpha / len(self.features)

    def indices(self, board: list[int]) -> list[tuple[int, int]]:
        """The table and entry of every feature."""
        out = []
        for number, cells in self.features:
            index = 0
            for j, cell in enumerate(cells):
                index |= board[cell] << (4 * j)
            out.append((number, index))
        return out

    def value(self, board: list[int]) -> float:
        """V(board)."""
        tables = self.tables
        return sum(tables[number][index] for number, index in self.indices(board))

    def add(self, board: list[int], delta: float) -> None:
        """Move every feature's weight by delta."""
        for number, index in self.indices(board):
            self.tables[number][index] += delta


def place_tile(board: list[int], rng: random.Random) -> None:
    """A 2 (0.9) or a 4 on a random empty cell."""
    empty = [cell for cell, tile in enumerate(board) if tile == 0]
    board[empty[int(rng.random() * len(empty))]] = 2 if rng.random() < 0.1 else 1


def best(board: list[int], network: PlainNTuple) -> tuple[int, float, list[int], int]:
    """The greedy slide: its index, value r + V(afterstate), afterstate and reward (index -1 when none is legal)."""
    chosen = (-1, 0.0, board, 0)
    for action in range(4):
        after, reward = slide(board, action)
        if after != board:
            value = reward + network.value(after)
            if chosen[0] < 0 or value > chosen[1]:
                chosen = (action, value, after, reward)
    return chosen


def play_game(network: PlainNTuple, rng: random.Random) -> tuple[int, int]:
    """One game of learning; its score and moves."""
    board = [0] * 16
    place_tile(board, rng)
    place_tile(board, rng)
    previous, previous_reward, score, moves = None, 0, 0, 0
    while True:
        action, value, after, reward = best(board, network)
        if previous is not None:
            target = previous_reward + (value if action >= 0 else 0.0)
            network.add(previous, network.step * (target - previous_reward - network.value(previous)))
            if action >= 0:
                action, value, after, reward = best(board, network)
        if action < 0:
            return score, moves
        score, moves = score + reward, moves + 1
        previous, previous_reward, board = after, reward, after[:]
        place_tile(board, rng)


def train(games: int, seed: int = 0, alpha: float = 0.1) -> tuple[int, float]:
    """Train for `games` games; the moves made and the CPU seconds taken."""
    network, rng = PlainNTuple(alpha), random.Random(seed)
    start, moves = time.process_time(), 0
    for _ in range(games):
        moves += play_game(network, rng)[1]
    return moves, time.process_time() - start


def build_parser() -> argparse.ArgumentParser:
    """The script's options."""
    parser = make_parser(__doc__)
    parser.add_argument("--games", type=at_most(positive_int, 10**6), default=20, help="training games")
    parser.add_argument("--seed", type=at_most(non_negative_int, 2**32 - 1), default=0, help="seed of the tiles")
    return parser


def main(argv: list[str] | None = None) -> int:
    """Train and print the moves per second."""
    args = build_parser().parse_args(argv)
    moves, seconds = train(args.games, args.seed)
    print(f"{moves:,} moves in {seconds:.1f} s of CPU time: {moves / seconds:,.0f} moves/s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
