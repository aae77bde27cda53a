"""The windy grid world of Sutton & Barto's Example 6.5, with Exercise 6.9's king's moves and 6.10's stochastic wind.

Rules. The grid has 7 rows (0 at the top) and 10 columns (0 at the left). Every episode starts
in (3, 0) and ends on reaching the goal (3, 7). Every step, the one into the goal included, gives
reward -1, so the return is minus the number of steps; there is no time limit.

Actions: 0 up, 1 right, 2 down, 3 left. With `king_moves=True` (Exercise 6.9) also 4 up-right,
5 down-right, 6 down-left, 7 up-left, and with `stay=True` as well (only with king's moves) a
ninth action, 8, that moves the agent only by the wind.

Wind. Each column has a wind strength, (0, 0, 0, 1, 1, 1, 2, 2, 1, 0) from left to right, that
pushes the agent that many rows up (toward row 0). The wind that acts on a step is the one of
the column the agent LEAVES (its column before the move), as the book's numbers assume: from
(3, 6), moving right lands in (1, 7), two rows up. The move and the wind are added together and
the result is then clipped to the grid, so nothing ever moves the agent off it: a push past the
top edge leaves it in row 0.

Stochastic wind (`stochastic_wind=True`, Exercise 6.10): in a column with wind strength w > 0
the push is w - 1, w or w + 1 rows up, each with probability 1/3 (the book: a third of the time
exactly the column's value, a third one cell above that, a third one cell below). The book leaves
windless columns ambiguous; here they stay calm, with no push at all (the common reading), so
only columns 3..8 are stochastic.

The optimal episode takes 15 steps with the four moves and 7 with the king's moves.

Observation: `(row, col)` as a tuple of plain ints. Action: an int (any integer-like value: a
Python int, a numpy integer or an integral float); anything else raises TypeError, an action out
of range ValueError, and so does a step after the episode ended.
`reset(options={"state": (row, col)})` starts from any cell except the goal. Infos hold `action_mask`:
every move while the episode runs, none after it, like `legal_actions()` (`rltorch.envs.actions`).
The exact model is `env.model()`, a `FiniteModel` whose states are every cell but the goal; the layout for
pictures is `env.grid_layout()`.
"""

from __future__ import annotations

import operator
from typing import Any

import gymnasium as gym
from gymnasium import spaces

from rltorch.envs.actions import StartOptions, as_action
from rltorch.envs.grid import GridLayout, as_cell, screen
from rltorch.mdp.model import FiniteModel, Transition

ENV_ID = "rltorch/WindyGridworld-v0"
ENV_KWARGS: dict[str, Any] | None = None
ENV_ID_KINGS = "rltorch/WindyGridworldKings-v0"
ENV_KWARGS_KINGS: dict[str, Any] = {"king_moves": True}
ENV_ID_STOCHASTIC = "rltorch/WindyGridworldStochastic-v0"
ENV_KWARGS_STOCHASTIC: dict[str, Any] = {"king_moves": True, "stochastic_wind": True}

ROWS, COLS = 7, 10
START, GOAL = (3, 0), (3, 7)
WIND = (0, 0, 0, 1, 1, 1, 2, 2, 1, 0)
STEP_REWARD = -1.0
UP, RIGHT, DOWN, LEFT, UP_RIGHT, DOWN_RIGHT, DOWN_LEFT, UP_LEFT, STAY = range(9)
MOVES = ((-1, 0), (0, 1), (1, 0), (0, -1), (-1, 1), (1, 1), (1, -1), (-1, -1), (0, 0))
ACTION_NAMES = ("up", "right", "down", "left", "up-right", "down-right", "down-left", "up-left", "stay")

Cell = tuple[int, int]


def moved(cell: Cell, action: int, push: int) -> Cell:
    """Where `action` from `cell` lands when the wind pushes `push` rows up, clipped to the grid."""
    d_row, d_col = MOVES[action]
    row = min(max(cell[0] + d_row - push, 0), ROWS - 1)
    col = min(max(cell[1] + d_col, 0), COLS - 1)
    return row, col


class WindyGridworldEnv(StartOptions, gym.Env):
    """The windy grid world: reach the goal against an upward wind (rules in the module docstring)."""

    metadata = {"render_modes": ["ansi"], "render_fps": 4}
    start_state = START

    def __init__(
        self,
        king_moves: bool = False,
        stay: bool = False,
        stochastic_wind: bool = False,
        render_mode: str | None = None,
    ) -> None:
        if stay and not king_moves:
            raise ValueError("stay=True adds a ninth action to the king's moves; it needs king_moves=True")
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode must be None or 'ansi', got {render_mode!r}")
        self.king_moves, self.stay, self.stochastic_wind = king_moves, stay, stochastic_wind
        self.render_mode = render_mode
        self.n_actions = 9 if stay else 8 if king_moves else 4
        self.observation_space = spaces.Tuple((spaces.Discrete(ROWS), spaces.Discrete(COLS)))
        self.action_space = spaces.Discrete(self.n_actions)
        self._state: Cell = START
        self._done = True

    def pushes(self, col: int) -> tuple[int, ...]:
        """The equally likely wind pushes (rows up) on a step that leaves column `col`."""
        strength = WIND[col]
        if self.stochastic_wind and strength > 0:
            return strength - 1, strength, strength + 1
        return (strength,)

    def _checked_start(self, state: Any) -> Cell:
        """`options["state"]` as a start, once checked."""
        try:
            row, col = (operator.index(x) for x in state)
        except (TypeError, ValueError):
            raise ValueError(f"options['state'] must be a (row, col) pair of ints, got {state!r}") from None
        if not (0 <= row < ROWS and 0 <= col < COLS) or (row, col) == GOAL:
            raise ValueError(f"options['state'] must be a cell of the {ROWS}x{COLS} grid other than the goal {GOAL}, "
                             f"got {state!r}")
        return row, col

    def legal_actions(self) -> list[int]:
        """Every move while the episode runs, none after it ended."""
        return [] if self._done else list(range(self.n_actions))

    def step(self, action: Any) -> tuple[Cell, float, bool, bool, dict]:
        """Move, pushed by the wind of the column left; return (observation, reward, terminated, truncated, info)."""
        value = as_action(action)
        if self._done:
            raise ValueError(f"cannot take action {action!r}: the episode is over; call reset()")
        if not 0 <= value < self.n_actions:
            raise ValueError(f"action {action!r} is not one of the moves 0..{self.n_actions - 1}")
        pushes = self.pushes(self._state[1])
        push = pushes[int(self.np_random.integers(len(pushes)))] if len(pushes) > 1 else pushes[0]
        self._state = moved(self._state, value, push)
        self._done = self._state == GOAL
        return self._state, STEP_REWARD, self._done, False, self._mask_info()

    def model(self) -> FiniteModel:
        """The exact model: every cell but the goal, each move's (merged) outcomes under the wind."""
        states = [(row, col) for row in range(ROWS) for col in range(COLS) if (row, col) != GOAL]
        actions = list(range(self.n_actions))
        transitions = {(cell, action): self._outcomes(cell, action) for cell in states for action in actions}
        return FiniteModel(
            states=states,
            actions={cell: list(actions) for cell in states},
            transitions=transitions,
            start={START: 1.0},
            name=self._name(),
        )

    def grid_layout(self) -> GridLayout:
        """The grid for pictures: start and goal marked, one direction per move, the wind under each column."""
        directions = {action: screen(*move) for action, move in enumerate(MOVES[: self.n_actions])}
        return GridLayout("windy grid world", ROWS, COLS, as_cell, directions, {START: "S", GOAL: "G"}, wind=WIND)

    def _outcomes(self, cell: Cell, action: int) -> list[Transition]:
        """The transitions of `action` from `cell`, pushes that land in the same cell merged into one."""
        pushes = self.pushes(cell[1])
        landing: dict[Cell, float] = {}
        for push in pushes:
            target = moved(cell, action, push)
            landing[target] = landing.get(target, 0.0) + 1.0 / len(pushes)
        return [Transition(p, target, STEP_REWARD, target == GOAL) for target, p in landing.items()]

    def _name(self) -> str:
        """A short description of the variant, for the model's name."""
        moves = "king's moves and stay" if self.stay else "king's moves" if self.king_moves else "four moves"
        return f"windy grid world ({moves}, {'stochastic' if self.stochastic_wind else 'steady'} wind)"

    def render(self) -> str | None:
        """Return the grid as text in 'ansi' mode: A the agent, S the start, G the goal, the wind below."""
        if self.render_mode != "ansi":
            return None
        marks = {START: "S", GOAL: "G", self._state: "A"}
        rows = ["".join(marks.get((row, col), ".") for col in range(COLS)) for row in range(ROWS)]
        return "\n".join([*rows, "".join(str(strength) for strength in WIND)])
