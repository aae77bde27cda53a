"""The Dyna maze of Sutton & Barto's Example 8.1 (Figure 8.2).

Rules. The maze is a grid of 6 rows (0 at the top) and 9 columns (0 at the left) with obstacles
in (1, 2), (2, 2), (3, 2), (4, 5), (0, 7), (1, 7) and (2, 7). Every episode starts in (2, 0)
and ends on reaching the goal (0, 8). The four actions move the agent one cell: 0 up, 1 right,
2 down, 3 left. A move into an obstacle or off the grid leaves the agent where it is. The reward
is 0 on every transition except the one into the goal, which gives +1. There is no time limit
(the book's experiments discount with gamma = 0.95, which is up to the learner).

The shortest path from the start to the goal takes 14 steps.

Observation: `(row, col)` as a tuple of plain ints. Action: an int (any integer-like value: a
Python int, a numpy integer or an integral float); anything else raises TypeError, an action out
of range ValueError, and so does a step after the episode ended.
`reset(options={"state": (row, col)})` starts from any free cell except the goal. Infos hold `action_mask`:
the four moves while the episode runs, none after it, like `legal_actions()` (`rltorch.envs.actions`).
The exact model is `env.model()`, a deterministic `FiniteModel` whose states are the free cells
other than the goal; the layout for pictures is `env.grid_layout()`.
"""

from __future__ import annotations

import operator
from typing import Any

import gymnasium as gym
from gymnasium import spaces

from rltorch.envs.actions import StartOptions, as_action
from rltorch.envs.grid import GridLayout, as_cell, screen
from rltorch.mdp.model import FiniteModel, Transition

ENV_ID = "rltorch/DynaMaze-v0"
ENV_KWARGS: dict[str, Any] | None = None

ROWS, COLS = 6, 9
START, GOAL = (2, 0), (0, 8)
OBSTACLES = frozenset({(1, 2), (2, 2), (3, 2), (4, 5), (0, 7), (1, 7), (2, 7)})
GOAL_REWARD = 1.0
UP, RIGHT, DOWN, LEFT = range(4)
MOVES = ((-1, 0), (0, 1), (1, 0), (0, -1))

Cell = tuple[int, int]


def is_free(cell: Cell) -> bool:
    """Whether `cell` is on the grid and not an obstacle."""
    return 0 <= cell[0] < ROWS and 0 <= cell[1] < COLS and cell not in OBSTACLES


def moved(cell: Cell, action: int) -> Cell:
    """Where `action` from `cell` lands: the neighbouring cell, or `cell` itself if that is blocked or off the grid."""
    d_row, d_col = MOVES[action]
    target = (cell[0] + d_row, cell[1] + d_col)
    return target if is_free(target) else cell


class DynaMazeEnv(StartOptions, gym.Env):
    """The Dyna maze: find the goal past the obstacles, rewarded +1 on arrival (rules in the module docstring)."""

    metadata = {"render_modes": ["ansi"], "render_fps": 4}
    start_state = START

    def __init__(self, render_mode: str | None = None) -> None:
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode must be None or 'ansi', got {render_mode!r}")
        self.render_mode = render_mode
        self.observation_space = spaces.Tuple((spaces.Discrete(ROWS), spaces.Discrete(COLS)))
        self.action_space = spaces.Discrete(len(MOVES))
        self._state: Cell = START
        self._done = True

    def _checked_start(self, state: Any) -> Cell:
        """`options["state"]` as a start, once checked."""
        try:
            row, col = (operator.index(x) for x in state)
        except (TypeError, ValueError):
            raise ValueError(f"options['state'] must be a (row, col) pair of ints, got {state!r}") from None
        if not is_free((row, col)) or (row, col) == GOAL:
            raise ValueError(f"options['state'] must be a free cell of the {ROWS}x{COLS} maze other than the goal "
                             f"{GOAL}, got {state!r}")
        return row, col

    def legal_actions(self) -> list[int]:
        """The four moves while the episode runs, none after it ended."""
        return [] if self._done else list(range(len(MOVES)))

    def step(self, action: Any) -> tuple[Cell, float, bool, bool, dict]:
        """Move one cell unless blocked; return (observation, reward, terminated, truncated, info)."""
        value = as_action(action)
        if self._done:
            raise ValueError(f"cannot take action {action!r}: the episode is over; call reset()")
        if not 0 <= value < len(MOVES):
            raise ValueError(f"action {action!r} is not one of the moves 0..{len(MOVES) - 1}")
        self._state = moved(self._state, value)
        self._done = self._state == GOAL
        return self._state, GOAL_REWARD if self._done else 0.0, self._done, False, self._mask_info()

    def model(self) -> FiniteModel:
        """The exact, deterministic model: every free cell but the goal, each move's single outcome."""
        cells = [(row, col) for row in range(ROWS) for col in range(COLS)]
        states = [cell for cell in cells if is_free(cell) and cell != GOAL]
        transitions = {(cell, action): [_outcome(cell, action)] for cell in states for action in range(len(MOVES))}
        return FiniteModel(
            states=states,
            actions={cell: list(range(len(MOVES))) for cell in states},
            transitions=transitions,
            start={START: 1.0},
            name="Dyna maze",
        )

    def grid_layout(self) -> GridLayout:
        """The maze for pictures: obstacles, start and goal marked, one direction per move."""
        marks = {**dict.fromkeys(OBSTACLES, "#"), START: "S", GOAL: "G"}
        return GridLayout("Dyna maze", ROWS, COLS, as_cell, {a: screen(*move) for a, move in enumerate(MOVES)}, marks)

    def render(self) -> str | None:
        """Return the maze as text in 'ansi' mode: A the agent, S the start, G the goal, # the obstacles."""
        if self.render_mode != "ansi":
            return None
        marks = {**dict.fromkeys(OBSTACLES, "#"), START: "S", GOAL: "G", self._state: "A"}
        return "\n".join("".join(marks.get((row, col), ".") for col in range(COLS)) for row in range(ROWS))


def _outcome(cell: Cell, action: int) -> Transition:
    """The single transition of `action` from `cell`."""
    target = moved(cell, action)
    reached = target == GOAL
    return Transition(1.0, target, GOAL_REWARD if reached else 0.0, reached)
