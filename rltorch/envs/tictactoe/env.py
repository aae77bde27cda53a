"""Tic-tac-toe against a fixed opponent, as a single-agent Gymnasium environment.

Rules. The board is a tuple of 9 ints in row-major order (cell = 3 * row + col): 1 is X,
-1 is O, 0 is empty. X moves first. A player who completes a row, column or diagonal wins;
a full board with no line is a draw. The learner's action is a cell 0..8.

One `step` is the learner's move plus the opponent's reply, so three cases arise:
the game ends after our move (reward +1 win or 0 draw); it ends after the reply (-1 loss or
0 draw, always from the learner's point of view); or it goes on (reward 0, and the observation
is the board where the learner chooses again). As O, the opponent's opening move is played
inside `reset`. With `seat="both"` the learner's seat alternates at every reset (a seeded reset
plays X), so one table learns both seats; `env.mark` tells the seat of the current game.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any, Protocol

import gymnasium as gym
from gymnasium import spaces

from rltorch.agents import RandomAgent

X, O, EMPTY = 1, -1, 0
LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6))
LINES_THROUGH = tuple(tuple(line for line in LINES if cell in line) for cell in range(9))
SEATS = {"X": X, "O": O, "both": O}  # "both" flips the mark at every reset, so an unseeded first reset plays X

Board = tuple[int, ...]


def legal_moves(board: Sequence[int]) -> list[int]:
    """The empty cells of `board`."""
    return [cell for cell in range(9) if board[cell] == EMPTY]


def to_move(board: Sequence[int]) -> int:
    """The mark whose turn it is: X when the number of empty cells is odd."""
    return X if board.count(EMPTY) % 2 == 1 else O


def completes_line(board: Sequence[int], cell: int) -> bool:
    """Whether the mark on `cell` is part of a full line."""
    mark = board[cell]
    for a, b, c in LINES_THROUGH[cell]:
        if board[a] == mark and board[b] == mark and board[c] == mark:
            return True
    return False


def winner(board: Sequence[int]) -> int:
    """The mark with a full line (1 or -1), or 0 if none has one."""
    for a, b, c in LINES:
        if board[a] != EMPTY and board[a] == board[b] == board[c]:
            return board[a]
    return 0


def afterstate(board: Board, action: int) -> Board:
    """The board right after the player to move marks `action` (before any reply)."""
    after = list(board)
    after[action] = X if board.count(EMPTY) % 2 == 1 else O
    return tuple(after)


def render_board(board: Sequence[int]) -> str:
    """The board as three text rows, with cell numbers 1-9 on empty cells."""
    symbols = {X: "X", O: "O"}
    cells = [symbols.get(mark, str(cell + 1)) for cell, mark in enumerate(board)]
    rows = [" " + " | ".join(cells[r * 3 : r * 3 + 3]) for r in range(3)]
    return "\n---+---+---\n".join(rows)


class Opponent(Protocol):
    """Anything that picks a cell: `act(board, legal_actions, rng)`; it must not modify its arguments."""

    def act(self, board: Sequence[int], legal_actions: Sequence[int], rng: random.Random | None = None) -> int:
        """Return the chosen cell."""
        ...


class SmartRandomOpponent:
    """With probability `p` takes a winning cell, else a blocking one; otherwise plays at random."""

    def __init__(self, p: float = 0.8) -> None:
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"smart opponent probability must be in [0, 1], got {p}")
        self.p = p

    def act(self, board: Sequence[int], legal_actions: Sequence[int], rng: random.Random | None = None) -> int:
        """Return a winning or blocking cell with probability p, else a random one."""
        rng = rng or random
        if rng.random() < self.p:
            mark = to_move(board)
            for target in (mark, -mark):
                for cell in legal_actions:
                    if _would_complete(board, cell, target):
                        return cell
        return legal_actions[rng.randrange(len(legal_actions))]


def _would_complete(board: Sequence[int], cell: int, mark: int) -> bool:
    """Whether `mark` on the empty `cell` would complete a line."""
    return any(
        sum(board[c] == mark for c in line if c != cell) == 2 for line in LINES_THROUGH[cell]
    )


class TicTacToeEnv(gym.Env):
    """Tic-tac-toe for one learner against a built-in opponent (see the module docstring for the rules)."""

    metadata = {"render_modes": ["ansi"]}

    def __init__(self, opponent: Opponent | None = None, seat: str = "X", render_mode: str | None = None) -> None:
        if seat not in SEATS:
            raise ValueError(f"seat must be 'X', 'O' or 'both', got {seat!r}")
        self.opponent = opponent if opponent is not None else RandomAgent()
        self.seat = seat
        self.mark = SEATS[seat]
        self.render_mode = render_mode
        self.observation_space = spaces.Tuple([spaces.Discrete(3, start=-1)] * 9)
        self.action_space = spaces.Discrete(9)
        self._board = [EMPTY] * 9
        self._empty = list(range(9))
        self._done = True
        self._rng = random.Random()

    afterstate = staticmethod(afterstate)

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Board, dict]:
        """Start a new game (the opponent opens when the learner is O)."""
        super().reset(seed=seed)
        if seed is not None:
            self._rng = random.Random(int(self.np_random.integers(2**63)))
        self._board = [EMPTY] * 9
        self._empty = list(range(9))
        self._done = False
        if self.seat == "both":
            self.mark = X if seed is not None else -self.mark
        if self.mark == O:
            self._reply()
        return tuple(self._board), {}

    def legal_actions(self) -> list[int]:
        """The empty cells of the current board."""
        return self._empty.copy()

    def step(self, action: int) -> tuple[Board, float, bool, bool, dict]:
        """Play our move and the opponent's reply; return (board, reward, terminated, truncated, info)."""
        board = self._board
        if self._done:
            raise ValueError(f"cannot play cell {action}: the game is over; call reset()")
        if not 0 <= action < 9 or board[action] != EMPTY:
            raise ValueError(f"cell {action} is not an empty cell 0..8 of {tuple(board)}")
        board[action] = self.mark
        empty = self._empty
        empty.remove(action)
        # A line needs three marks of one player: none is possible while five or more cells are empty.
        if len(empty) < 5 and completes_line(board, action):
            return self._end(1.0)
        if not empty:
            return self._end(0.0)
        reply = self._reply()
        if len(empty) < 5 and completes_line(board, reply):
            return self._end(-1.0)
        if not empty:
            return self._end(0.0)
        return tuple(board), 0.0, False, False, {}

    def _reply(self) -> int:
        """Let the opponent mark a cell; return it."""
        board, empty = self._board, self._empty
        reply = self.opponent.act(board, empty, self._rng)  # read-only views: no copies on the hot path
        if board[reply] != EMPTY:
            raise RuntimeError(f"opponent played the occupied cell {reply}")
        board[reply] = -self.mark
        empty.remove(reply)
        return reply

    def _end(self, reward: float) -> tuple[Board, float, bool, bool, dict]:
        """Finish the game with `reward` for the learner."""
        self._done = True
        return tuple(self._board), reward, True, False, {}

    def render(self) -> str | None:
        """Return the board as text in 'ansi' mode."""
        if self.render_mode == "ansi":
            return render_board(self._board)
        return None
