"""Exact tic-tac-toe: negamax values of every reachable position, a perfect player, and key counts.

Values are from the point of view of the player to move: +1 a forced win, 0 a draw, -1 a forced
loss. Exact play against other players (random, perfect, expectimax) lives in
`rltorch.envs.tictactoe.exact`.
"""

from __future__ import annotations

import random
from collections.abc import Hashable, Sequence
from functools import cache

from rltorch.envs.tictactoe.env import EMPTY, SEATS, Board, afterstate, legal_moves, to_move, winner

EMPTY_BOARD: Board = (EMPTY,) * 9
KEY_KINDS = ("q", "afterstate")


def is_over(board: Board) -> bool:
    """Whether someone has a line or the board is full."""
    return winner(board) != 0 or EMPTY not in board


def seat_mark(seat: str) -> int:
    """The mark (1 for X, -1 for O) of a seat name."""
    if seat not in SEATS:
        raise ValueError(f"seat must be 'X' or 'O', got {seat!r}")
    return SEATS[seat]


def value(board: Board) -> int:
    """The negamax value of `board` for the player to move: +1 win, 0 draw, -1 loss."""
    return _value(tuple(board))


@cache
def _value(board: Board) -> int:
    """`value` on a tuple board, memoized."""
    if winner(board) != 0:
        return -1  # the player who just moved completed a line
    moves = legal_moves(board)
    if not moves:
        return 0
    return max(-_value(afterstate(board, move)) for move in moves)


def move_value(board: Board, move: int) -> int:
    """The value of playing `move` on `board`, for the player making it."""
    return -_value(afterstate(tuple(board), move))


@cache
def _optimal_moves(board: Board) -> tuple[int, ...]:
    """The moves achieving the negamax value, as a cached tuple."""
    if is_over(board):
        return ()
    best = _value(board)
    return tuple(move for move in legal_moves(board) if move_value(board, move) == best)


def optimal_moves(board: Board) -> list[int]:
    """All moves achieving the negamax value of `board` (empty when the game is over)."""
    return list(_optimal_moves(tuple(board)))


def successors(board: Board) -> list[Board]:
    """The boards one move after `board` (none when the game is over)."""
    if is_over(board):
        return []
    return [afterstate(board, move) for move in legal_moves(board)]


def reachable_positions() -> set[Board]:
    """Every board reachable from the empty board by legal play, terminal boards included."""
    seen = {EMPTY_BOARD}
    frontier = [EMPTY_BOARD]
    while frontier:
        board = frontier.pop()
        for child in successors(board):
            if child not in seen:
                seen.add(child)
                frontier.append(child)
    return seen


class PerfectAgent:
    """Plays uniformly at random among the minimax-optimal moves, from either seat."""

    def choices(self, board: Sequence[int]) -> list[int]:
        """The moves this agent picks among on `board`, each with equal probability."""
        return optimal_moves(board)

    def act(self, board: Sequence[int], legal_actions: Sequence[int], rng: random.Random | None = None) -> int:
        """Return a random optimal move for the player to move on `board`."""
        rng = rng or random
        legal = set(legal_actions)
        choices = [move for move in _optimal_moves(tuple(board)) if move in legal]
        if not choices:
            raise ValueError(f"no optimal legal move on {tuple(board)} among {list(legal_actions)}")
        return choices[rng.randrange(len(choices))]


def learner_positions(seat: str) -> list[Board]:
    """The reachable boards where the `seat` player is to move and the game is not over."""
    mark = seat_mark(seat)
    return [board for board in reachable_positions() if not is_over(board) and to_move(board) == mark]


def reachable_keys(seat: str, kind: str) -> set[Hashable]:
    """The keys a learner in `seat` can write against a random opponent ("q" pairs or afterstates)."""
    if kind not in KEY_KINDS:
        raise ValueError(f"kind must be one of {KEY_KINDS}, got {kind!r}")
    positions = learner_positions(seat)
    if kind == "q":
        return {(board, move) for board in positions for move in legal_moves(board)}
    return {afterstate(board, move) for board in positions for move in legal_moves(board)}


def count_reachable_keys(seat: str, kind: str) -> int:
    """How many distinct keys of `kind` a learner in `seat` can meet against a random opponent."""
    return len(reachable_keys(seat, kind))


__all__ = [
    "EMPTY_BOARD",
    "KEY_KINDS",
    "PerfectAgent",
    "count_reachable_keys",
    "is_over",
    "learner_positions",
    "move_value",
    "optimal_moves",
    "reachable_keys",
    "reachable_positions",
    "seat_mark",
    "successors",
    "value",
]
