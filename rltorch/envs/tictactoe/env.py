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

Actions. Any integer-like action is taken (an int, a numpy integer, a 0-d integer array, an integral
float such as 4.0); anything else is a TypeError naming it (`rltorch.envs.actions.as_action`). A cell
outside 0..8 is a ValueError. An occupied cell is a ValueError too by default (`illegal_action="raise"`),
which is what learners need: their tables only ever choose among `legal_actions()`, and a bug that
plays an occupied cell should stop the run. With `illegal_action="lose"` an occupied cell instead ends
the game as a loss, reward -1 with `info["illegal_action"] = True` and the board unchanged (PettingZoo's
convention for illegal moves). That makes `step` total on `action_space`, as Gymnasium's API and its
`check_env` assume: the checker steps with `action_space.sample()`, which knows nothing of the board, so
as O (the opponent's opening takes a cell) or after a first move it may sample an occupied cell. Only as X
with the default does `check_env` pass as well, and only because the checker's first, unseeded sample is
taken on the empty board and its seeded samples happen to miss the random opponent's seeded replies.
`reset` takes no options; any option is a ValueError naming it.

Masks. `info["action_mask"]` from `reset` and `step`, and `action_masks()`, give the empty cells of the
board as a new `np.int8` vector of 9 (after the game's end too, like `legal_actions()`; see
`rltorch.envs.actions`). The 512 possible masks are built once as read-only templates in `MASKS`, indexed by
a bitset of the empty cells that `step` keeps up to date, so a step's mask costs one array copy (~0.2 µs).
MaskablePPO (sb3-contrib) reads `action_masks()` and never plays a taken cell; with `illegal_action="lose"`
Stable-Baselines3's `check_env` passes in every seat and its DQN trains (`docs/ecosystem.md`).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from rltorch.envs.actions import action_mask, as_action, reset_options
from rltorch.options import Option

X, O, EMPTY = 1, -1, 0
LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6))
LINES_THROUGH = tuple(tuple(line for line in LINES if cell in line) for cell in range(9))
SEATS = {"X": X, "O": O, "both": O}  # "both" flips the mark at every reset, so an unseeded first reset plays X
ILLEGAL_ACTIONS = ("raise", "lose")  # what `step` does with an occupied cell (see the module docstring)
_NOT_UNIFORM = object()  # `_uniform` when the opponent is not the uniform random one
ALL_EMPTY = (1 << 9) - 1  # the bitset of empty cells (bit c for cell c) of the empty board
MASKS = tuple(action_mask([cell for cell in range(9) if free >> cell & 1], 9) for free in range(ALL_EMPTY + 1))

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


class TicTacToeEnv(gym.Env):
    """Tic-tac-toe for one learner against a built-in opponent (see the module docstring for the rules)."""

    metadata = {"render_modes": ["ansi"]}

    is_game = True  # returns are +1 win, 0 draw, -1 loss
    options = (  # `rltorch train` offers these as --opponent, --seat, --smart-p, --self-play-every
        Option("opponent", str, "random", "random | smart | perfect | self (a frozen copy of the learner), or a "
               "mixture by weight drawn per move, such as random:0.5,perfect:0.5"),
        Option("seat", str, "X", "the learner's mark (X moves first); both: alternate every game",
               choices=("X", "O", "both")),
        Option("smart_p", float, 0.8, "how often the smart opponent wins or blocks"),
        Option("self_play_every", int, 1000, "episodes between refreshes of the self-play opponent's frozen copy"),
    )

    def __init__(
        self,
        opponent: Any = "random",
        seat: str = "X",
        render_mode: str | None = None,
        *,
        smart_p: float = 0.8,
        self_play_every: int = 1000,
        illegal_action: str = "raise",
    ) -> None:
        from rltorch.envs.tictactoe.opponents import RandomOpponent, build_opponent

        if seat not in SEATS:
            raise ValueError(f"seat must be 'X', 'O' or 'both', got {seat!r}")
        if self_play_every < 1:
            raise ValueError(f"self_play_every must be >= 1, got {self_play_every}")
        if illegal_action not in ILLEGAL_ACTIONS:
            raise ValueError(f"illegal_action must be 'raise' or 'lose', got {illegal_action!r}")
        self.illegal_action = illegal_action
        if isinstance(opponent, str):
            self.opponent, self.self_play = build_opponent(opponent, smart_p)
        else:
            self.opponent, self.self_play = opponent, []
        self.self_play_every = self_play_every
        # `step` draws the uniform opponent's reply itself while `opponent` is still this RandomOpponent
        self._uniform = self.opponent if type(self.opponent) is RandomOpponent else _NOT_UNIFORM
        self._last_refresh = 0
        self.seat = seat
        self.mark = SEATS[seat]
        self.render_mode = render_mode
        self.observation_space = spaces.Tuple([spaces.Discrete(3, start=-1)] * 9)
        self.action_space = spaces.Discrete(9)
        self._board = [EMPTY] * 9
        self._empty = list(range(9))
        self._free = ALL_EMPTY  # the cells of `_empty` as a bitset: the index of the board's mask in MASKS
        self._done = True
        self._rng = random.Random()

    afterstate = staticmethod(afterstate)

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Board, dict]:
        """Start a new game (the opponent opens when the learner is O); there are no options."""
        if options is not None:
            reset_options(options, ())
        if seed is not None:  # (gym.Env.reset only seeds np_random, and only when given a seed)
            super().reset(seed=seed)
            self._rng = random.Random(int(self.np_random.integers(2**63)))
        self._board = [EMPTY] * 9
        self._empty = list(range(9))
        self._free = ALL_EMPTY
        self._done = False
        if self.seat == "both":
            self.mark = X if seed is not None else -self.mark
        if self.mark == O:
            self._free ^= 1 << self._reply()
        return tuple(self._board), {"action_mask": MASKS[self._free].copy()}

    def legal_actions(self) -> list[int]:
        """The empty cells of the current board."""
        return self._empty.copy()

    def action_masks(self) -> np.ndarray:
        """The empty cells of the current board as a fresh `np.int8` 0/1 vector (sb3-contrib's MaskablePPO hook)."""
        return MASKS[self._free].copy()

    def step(self, action: int) -> tuple[Board, float, bool, bool, dict]:
        """Play our move and the opponent's reply; return (board, reward, terminated, truncated, info)."""
        if type(action) is not int:
            action = as_action(action, "an integer cell 0..8")
        board = self._board
        if self._done:
            raise ValueError(f"cannot play cell {action}: the game is over; call reset()")
        if not 0 <= action < 9 or board[action] != EMPTY:
            return self._illegal(action)
        board[action] = self.mark
        empty = self._empty
        empty.remove(action)
        # A line needs three marks of one player: none is possible while five or more cells are empty.
        if len(empty) < 5 and completes_line(board, action):
            return self._end(1.0, 1 << action)
        if not empty:
            return self._end(0.0, 1 << action)
        if self.opponent is self._uniform:  # RandomOpponent.act's one draw, inlined: the same call, the same generator
            reply = empty[self._rng.randrange(len(empty))]
        else:  # `_reply`, inlined on the hot path
            reply = self.opponent.act(board, empty, self._rng)
            if board[reply] != EMPTY:
                raise RuntimeError(f"opponent played the occupied cell {reply}")
        board[reply] = -self.mark
        empty.remove(reply)
        filled = 1 << action | 1 << reply
        if len(empty) < 5 and completes_line(board, reply):
            return self._end(-1.0, filled)
        if not empty:
            return self._end(0.0, filled)
        self._free ^= filled
        return tuple(board), 0.0, False, False, {"action_mask": MASKS[self._free].copy()}

    def _illegal(self, action: int) -> tuple[Board, float, bool, bool, dict]:
        """Refuse a cell off the board or taken: ValueError, or (a taken cell, illegal_action="lose") a lost game."""
        if self.illegal_action == "lose" and 0 <= action < 9:
            self._done = True
            info = {"illegal_action": True, "action_mask": MASKS[self._free].copy()}
            return tuple(self._board), -1.0, True, False, info
        raise ValueError(f"cell {action} is not an empty cell 0..8 of {tuple(self._board)}")

    def _reply(self) -> int:
        """Let the opponent mark a cell; return it."""
        board, empty = self._board, self._empty
        reply = self.opponent.act(board, empty, self._rng)  # read-only views: no copies on the hot path
        if board[reply] != EMPTY:
            raise RuntimeError(f"opponent played the occupied cell {reply}")
        board[reply] = -self.mark
        empty.remove(reply)
        return reply

    def _end(self, reward: float, filled: int) -> tuple[Board, float, bool, bool, dict]:
        """Finish the game with `reward` for the learner; `filled` is the bitset of the cells this step marked."""
        self._done = True
        self._free ^= filled
        return tuple(self._board), reward, True, False, {"action_mask": MASKS[self._free].copy()}

    def render(self) -> str | None:
        """Return the board as text in 'ansi' mode."""
        if self.render_mode == "ansi":
            return render_board(self._board)
        return None

    # --- optional capabilities rltorch reads (`rltorch.envs.capabilities`; README: "add your own environment") ---
    def refresh_opponent(self, value_fn: Any, keys: Any, episodes_done: int) -> None:
        """Copy the learner's values into the self-play opponent every `self_play_every` episodes."""
        if self.self_play and episodes_done - self._last_refresh >= self.self_play_every:
            self.self_play[0].refresh(value_fn, keys)
            self._last_refresh = episodes_done

    def evaluation_env(self) -> TicTacToeEnv:
        """Tests and evaluations play the uniform random opponent from the same seat."""
        return TicTacToeEnv(seat=self.seat)

    def reachable_keys(self, kind: str) -> int:
        """How many keys of `kind` ("q" or "afterstate") a learner in this seat can meet against random."""
        from rltorch.envs.tictactoe.evaluation import reachable_key_count

        return reachable_key_count(self.seat, kind)

    def play_in_terminal(self, agent: Any, seat: str | None = None) -> None:
        """A game against `agent` in the terminal (the human picks X or O when `seat` is None)."""
        from rltorch.envs.tictactoe.play import TerminalGame

        TerminalGame(agent).run(seat)

    def encoder(self) -> Any:
        """The board's features for a network: three one-hot planes."""
        from rltorch.envs.tictactoe.encoder import BoardEncoder

        return BoardEncoder()

    def exact_scalars(self, agent: Any) -> dict[str, float]:
        """Exact win/draw/loss of the agent's greedy play against the random opponent (per seat with 'both')."""
        from rltorch.envs.tictactoe.evaluation import ExactScalars

        return ExactScalars(self.seat)(agent)

    def exact_report(self, agent: Any) -> dict[str, Any]:
        """Exact outcomes against random and the lines lost to perfect play, per seat."""
        from rltorch.envs.tictactoe.evaluation import exact_report

        return exact_report(agent, self.seat)

    def exact_policy_report(self, distribution: Any) -> dict[str, Any]:
        """Anyone's policy (deterministic or not), per seat: exact outcomes against random, lines lost to perfect."""
        from rltorch.envs.tictactoe.evaluation import policy_report

        return policy_report(distribution, self.seat)

    def format_exact_report(self, report: dict[str, Any]) -> str:
        """The exact report as lines of text."""
        from rltorch.envs.tictactoe.evaluation import format_report

        return format_report(report)
