"""2048 as a Gymnasium env: slide the tiles, merge equal neighbours, a new tile after every move.

The observation is the board as a tuple of tile exponents in row-major order (0 empty, 1 for a 2, 2 for
a 4, ...): hashable, so it can key a table. Actions slide every tile: 0 up, 1 right, 2 down, 3 left; the
legal ones (`legal_actions()`, `info["action_mask"]`, `action_masks()`) are those that change the board.
The reward is the move's merge score (the sum of the new tiles its merges make). After a legal move a tile
appears on a uniformly random empty cell: a 2 with probability 0.9, a 4 with 0.1 (two uniform draws from
`np_random`, as `rltorch.envs.game2048.rules` says); a reset places two. The game ends (terminated) when no
slide changes the board, or (with `goal`, a tile value such as 128: the capped variant the exact
solver handles on 3 x 3) when a tile of at least `goal` appears. An illegal slide changes nothing: reward 0,
no new tile, `info["illegal_action"]`.

`afterstate(board, action)` gives the slid board before the new tile and the move's reward: the reward
belongs to the move (two moves may reach one afterstate with different rewards), so afterstate keys are
`(board, reward)` pairs and a value function reads them as `reward + V(board)`.
"""

from __future__ import annotations

from math import isqrt
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from rltorch.envs.actions import ActionMasks, as_action, reset_options
from rltorch.envs.game2048.rules import (
    ACTION_NAMES,
    MAX_EXPONENT,
    line_tables,
    max_exponent,
    pack,
    place_tile,
    slide,
    unpack,
)
from rltorch.options import Option

SIZES = (2, 3, 4)
EXACT_GOAL_3X3 = 7  # the largest goal (as an exponent: 128) of 3 x 3 solved exactly in minutes
Board = tuple[int, ...]


def board_size(board: Board) -> int:
    """The side of a square board given as a tuple of its cells."""
    size = isqrt(len(board))
    if size * size != len(board) or size not in SIZES:
        raise ValueError(f"a board has 4, 9 or 16 cells, got {len(board)}")
    return size


def afterstate(board: Board, action: int) -> tuple[Board, int]:
    """The board slid by `action` (before the new tile) and the move's merge score."""
    size = board_size(board)
    after, reward = slide(pack(board), action, size, *line_tables(size))
    return unpack(after, size), int(reward)


def legal_moves(board: Board) -> list[int]:
    """The slides that change the board."""
    size = board_size(board)
    packed, tables = pack(board), line_tables(size)
    return [action for action in range(4) if slide(packed, action, size, *tables)[0] != packed]


def render_board(board: Board) -> str:
    """The board as text: one row a line, tiles as numbers, '.' for an empty cell."""
    size = board_size(board)
    cells = [str(1 << tile) if tile else "." for tile in board]
    width = max(len(text) for text in cells)
    return "\n".join(" ".join(text.rjust(width) for text in cells[row * size:(row + 1) * size])
                     for row in range(size)) + "\n"


def goal_exponent(goal: int) -> int:
    """The exponent of a goal tile (0: no goal, the exponent past any tile), or ValueError."""
    if isinstance(goal, bool) or not isinstance(goal, (int, np.integer)):
        raise ValueError(f"goal must be an int, got {goal!r}")
    if goal == 0:
        return MAX_EXPONENT + 1
    if goal < 4 or goal > 1 << MAX_EXPONENT or goal & (goal - 1):
        raise ValueError(f"goal must be 0 or a power of two from 4 to {1 << MAX_EXPONENT}, got {goal}")
    return int(goal).bit_length() - 1


class Game2048Env(ActionMasks, gym.Env):
    """2048 on a `size` x `size` board (2 to 4; see the module docstring for the rules)."""

    metadata = {"render_modes": ["ansi"], "render_fps": 4}
    options = (  # `rltorch train` offers these as --size and --goal
        Option("size", int, 4, "the board's side: 2, 3 or 4"),
        Option("goal", int, 0, "end the game when a tile this large appears (a power of two from 4; 0: never, "
               "the full game)"),
    )

    def __init__(self, size: int = 4, render_mode: str | None = None, goal: int = 0) -> None:
        if isinstance(size, bool) or not isinstance(size, (int, np.integer)) or int(size) not in SIZES:
            raise ValueError(f"board size must be 2, 3 or 4, got {size!r}")
        self.goal = goal_exponent(goal)
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode must be None or 'ansi', got {render_mode!r}")
        self.size = int(size)
        self.render_mode = render_mode
        self.observation_space = spaces.Tuple([spaces.Discrete(16)] * self.size**2)
        self.action_space = spaces.Discrete(4)
        self._tables = line_tables(self.size)
        self._board = 0
        self._done = True

    afterstate = staticmethod(afterstate)

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Board, dict]:
        """Start a game with two random tiles (four uniform draws); there are no options."""
        if options is not None:
            reset_options(options, ())
        super().reset(seed=seed)
        draws = self.np_random.random(4)
        board = place_tile(0, self.size, draws[0], draws[1])
        self._board = place_tile(board, self.size, draws[2], draws[3])
        self._done = False
        return self.board, self._mask_info()

    @property
    def board(self) -> Board:
        """The current board as a tuple of exponents."""
        return unpack(self._board, self.size)

    def legal_actions(self) -> list[int]:
        """The slides that change the current board (none once the game is over: stuck, or the goal reached)."""
        packed, size, tables = self._board, self.size, self._tables
        if max_exponent(packed, size) >= self.goal:
            return []
        return [action for action in range(4) if slide(packed, action, size, *tables)[0] != packed]

    def step(self, action: int) -> tuple[Board, float, bool, bool, dict]:
        """Slide, merge, place a new tile; return (board, merge score, terminated, truncated, info)."""
        if type(action) is not int:
            action = as_action(action, "an integer action 0..3")
        if not 0 <= action < 4:
            raise ValueError(f"action {action} is not one of 0 up, 1 right, 2 down, 3 left")
        if self._done:
            raise ValueError(f"cannot slide {ACTION_NAMES[action]}: the game is over; call reset()")
        after, reward = slide(self._board, action, self.size, *self._tables)
        if after == self._board:
            return self.board, 0.0, False, False, {**self._mask_info(), "illegal_action": True}
        draws = self.np_random.random(2)
        self._board = place_tile(after, self.size, draws[0], draws[1])
        info = self._mask_info()
        self._done = not info["action_mask"].any()
        return self.board, float(reward), self._done, False, info

    def render(self) -> str | None:
        """The board as text in 'ansi' mode."""
        return render_board(self.board) if self.render_mode == "ansi" else None

    # --- optional capabilities rltorch reads (`rltorch.envs.capabilities`) ---
    def play_in_terminal(self, agent: Any, seat: str | None = None) -> None:
        """A game in the terminal: the person slides (w a s d), or watches `agent` play when `seat` is 'agent'."""
        from rltorch.envs.game2048.play import TerminalGame

        TerminalGame(self.size, agent).run(watch=seat == "agent")

    def encoder(self) -> Any:
        """Features of `(board, reward)` keys for networks: one-hot exponents per cell, and the reward."""
        from rltorch.envs.game2048.encoder import AfterstateEncoder

        return AfterstateEncoder(self.size)

    def exact_scalars(self, agent: Any) -> dict[str, float]:
        """None during training: one exact evaluation lists up to millions of boards (it is in the final report)."""
        return {}

    def exact_report(self, agent: Any) -> dict[str, Any] | None:
        """The agent's exact expected score beside the optimum, where the boards fit: 2 x 2, or 3 x 3 to a goal of 128.

        The full 3 x 3 game has too many boards for this machine, and 4 x 4 far too many (None).
        """
        if not (self.size == 2 or (self.size == 3 and self.goal <= EXACT_GOAL_3X3)):
            return None
        from rltorch.envs.game2048.solver import agent_report

        return agent_report(self.size, self.goal, agent)

    def format_exact_report(self, report: dict[str, Any]) -> str:
        """The report as text."""
        return (f"exact expected score of the greedy policy: {report['expected_score']:.3f} "
                f"(optimum {report['optimum']:.3f}, gap {report['gap']:.3f})")
