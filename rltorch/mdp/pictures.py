"""Grid pictures of values and greedy actions: a heat map with arrows, learned beside exact.

`grid_layout(env)` knows the grid worlds: Gymnasium's FrozenLake and CliffWalking, rltorch's windy
grid world and Dyna maze; any other env gives None. Directions are screen directions: an arrow
(dx, dy) points right for dx > 0 and up (toward row 0) for dy > 0. Marked cells carry a letter:
S start, G goal, H hole, C cliff, # obstacle; the cells that end or block an episode (G, H, C, #)
are drawn grey, without a value or arrows. Figures are plain `matplotlib.figure.Figure`s (no
pyplot state), for `rltorch.run.plots.save_png` or `SummaryWriter.add_figure`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import matplotlib

matplotlib.use("Agg")
import numpy as np  # noqa: E402
from matplotlib import patheffects  # noqa: E402
from matplotlib.axes import Axes  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.patches import Rectangle  # noqa: E402

from rltorch.mdp.from_env import model_of  # noqa: E402
from rltorch.mdp.model import FiniteModel  # noqa: E402
from rltorch.mdp.solve import Solution, value_iteration  # noqa: E402
from rltorch.values.base import ValueFunction  # noqa: E402

Cell = tuple[int, int]
QReader = Callable[[Hashable, list[int]], Sequence[float]]
BLOCKED = frozenset("GHC#")  # marks of cells that end or block an episode: no value, no arrows
TIE_TOLERANCE = 1e-12
ARROW_LENGTH = 0.3  # in cells, from a point ARROW_RISE above the centre (the value is written below)
ARROW_RISE = 0.08
COLORMAP = "RdYlGn"
_OUTLINE = [patheffects.withStroke(linewidth=2.0, foreground="white")]


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


def _screen(d_row: int, d_col: int) -> tuple[float, float]:
    """A (row, col) step as a screen direction (dx, dy), dy > 0 meaning up."""
    return float(d_col), float(-d_row)


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
                      {action: _screen(*move) for action, move in moves.items()}, marks)


def _book(unwrapped: Any) -> GridLayout | None:
    """The layout of rltorch's windy grid world or Dyna maze (observations are (row, col)), else None."""
    from rltorch.envs.dyna_maze import env as maze
    from rltorch.envs.windy_gridworld import env as windy

    if isinstance(unwrapped, windy.WindyGridworldEnv):
        moves = windy.MOVES[: unwrapped.n_actions]
        return GridLayout("windy grid world", windy.ROWS, windy.COLS, _as_cell,
                          {action: _screen(*move) for action, move in enumerate(moves)},
                          {windy.START: "S", windy.GOAL: "G"}, wind=tuple(windy.WIND))
    if isinstance(unwrapped, maze.DynaMazeEnv):
        marks = {**dict.fromkeys(maze.OBSTACLES, "#"), maze.START: "S", maze.GOAL: "G"}
        return GridLayout("Dyna maze", maze.ROWS, maze.COLS, _as_cell,
                          {action: _screen(*move) for action, move in enumerate(maze.MOVES)}, marks)
    return None


def _as_cell(state: Hashable) -> Cell:
    """A (row, col) observation as a pair of ints."""
    row, col = state  # type: ignore[misc]
    return int(row), int(col)


def grid_layout(env: Any) -> GridLayout | None:
    """The grid layout of a grid-world env (FrozenLake, CliffWalking, windy grid world, Dyna maze), else None."""
    unwrapped = getattr(env, "unwrapped", env)
    return _toy_text(unwrapped) or _book(unwrapped)


def _reader(q: Any) -> QReader:
    """A function (state, actions) -> action values from a Q table, an agent, a trainer or such a function."""
    if isinstance(q, ValueFunction):
        return lambda state, actions: q.values([(state, action) for action in actions])
    if callable(getattr(q, "action_values", None)):
        return q.action_values
    if callable(getattr(q, "agent", None)):
        return q.agent().action_values
    if callable(q):
        return q
    raise TypeError(f"cannot read action values from {type(q).__name__}: give a QTable, an agent or a function")


def learned_from_q(q: QReader | ValueFunction | Any, model: FiniteModel) -> tuple[dict, dict]:
    """V(s) = max_a Q(s, a) and the greedy actions (ties within 1e-12) of every decision state of `model`."""
    read = _reader(q)
    values: dict[Hashable, float] = {}
    policy: dict[Hashable, list[int]] = {}
    for state in model.states:
        actions = model.legal_actions(state)
        if not actions:
            continue
        action_values = [float(value) for value in read(state, actions)]
        best = max(action_values)
        values[state] = best
        policy[state] = [a for a, value in zip(actions, action_values, strict=True) if value >= best - TIE_TOLERANCE]
    return values, policy


def _value_grid(layout: GridLayout, values: Mapping[Hashable, float]) -> np.ndarray:
    """[rows, cols] of the values, NaN where there is no state or the cell is blocked."""
    grid = np.full((layout.rows, layout.cols), np.nan)
    for state, value in values.items():
        row, col = layout.cell(state)
        if layout.marks.get((row, col)) not in BLOCKED:
            grid[row, col] = value
    return grid


def _limits(*grids: np.ndarray) -> tuple[float, float]:
    """A colour range covering the finite values of every grid (never empty)."""
    finite = np.concatenate([grid[np.isfinite(grid)] for grid in grids])
    if finite.size == 0:
        return 0.0, 1.0
    low, high = float(finite.min()), float(finite.max())
    return (low - 0.5, high + 0.5) if low == high else (low, high)


def _arrows(layout: GridLayout, policy: Mapping[Hashable, Sequence[int]]) -> tuple[np.ndarray, ...]:
    """X, Y (cell centres) and U, V (unit screen directions) of one arrow per greedy action; 'stay' is left out."""
    rows = []
    for state, actions in policy.items():
        row, col = layout.cell(state)
        if layout.marks.get((row, col)) in BLOCKED:
            continue
        for action in actions:
            dx, dy = layout.directions[int(action)]
            length = math.hypot(dx, dy)
            if length > 0:
                rows.append((col, row, dx / length, dy / length))
    return tuple(np.array(column, dtype=float) for column in zip(*rows, strict=True)) if rows else (np.zeros(0),) * 4


def _stays(layout: GridLayout, policy: Mapping[Hashable, Sequence[int]]) -> list[Cell]:
    """The cells whose greedy actions include one that does not move (the windy grid world's 'stay')."""
    return [layout.cell(state) for state, actions in policy.items()
            if layout.marks.get(layout.cell(state)) not in BLOCKED
            and any(layout.directions[int(a)] == (0.0, 0.0) for a in actions)]


def _draw(axis: Axes, layout: GridLayout, values: Mapping[Hashable, float], policy: Mapping[Hashable, Sequence[int]],
          limits: tuple[float, float], title: str, flagged: Sequence[Cell] = ()) -> Any:
    """Draw one panel (heat map, values, arrows, marks, flagged cells outlined in red); return the image."""
    grid = _value_grid(layout, values)
    cmap = matplotlib.colormaps[COLORMAP].with_extremes(bad="#d9d9d9")
    image = axis.imshow(grid, cmap=cmap, vmin=limits[0], vmax=limits[1], origin="upper", alpha=0.85)
    x, y, u, v = _arrows(layout, policy)
    if x.size:
        axis.quiver(x, y - ARROW_RISE, u, v, angles="uv", pivot="tail", units="xy", scale_units="xy",
                    scale=1 / ARROW_LENGTH, width=0.045, headwidth=3.2, headlength=3.2, headaxislength=2.8,
                    color="black", zorder=3)
    stays = _stays(layout, policy)
    if stays:
        axis.scatter([c for _, c in stays], [r - ARROW_RISE for r, _ in stays], s=18, color="black", zorder=3)
    small = 6.5 if max(layout.rows, layout.cols) <= 12 else 5.0  # points, for the cell sizes `_figure` picks
    for row in range(layout.rows):
        for col in range(layout.cols):
            mark = layout.marks.get((row, col))
            if mark in BLOCKED:
                axis.text(col, row, mark, ha="center", va="center", fontsize=small * 2, fontweight="bold", color="#333")
                continue
            if mark:
                axis.text(col - 0.44, row - 0.44, mark, ha="left", va="top", fontsize=small * 1.3, fontweight="bold",
                          path_effects=_OUTLINE, zorder=4)
            if np.isfinite(grid[row, col]):
                axis.text(col, row + 0.46, _number(grid[row, col]), ha="center", va="bottom", fontsize=small,
                          path_effects=_OUTLINE, zorder=4)
    for row, col in flagged:
        axis.add_patch(Rectangle((col - 0.47, row - 0.47), 0.94, 0.94, fill=False, edgecolor="red", linewidth=2,
                                 zorder=5))
    axis.set_xticks(range(layout.cols))
    axis.set_yticks(range(layout.rows))
    axis.set_xticks(np.arange(-0.5, layout.cols), minor=True)
    axis.set_yticks(np.arange(-0.5, layout.rows), minor=True)
    axis.grid(which="minor", color="white", linewidth=1)
    axis.tick_params(which="both", length=0, labelsize=7)
    if layout.wind is not None:
        axis.set_xticklabels([str(strength) for strength in layout.wind])
        axis.set_xlabel("wind (rows pushed up)", fontsize=8)
    axis.set_title(title, fontsize=10)
    return image


def _number(value: float) -> str:
    """A value as short text: two decimals below 10, one below 100, none above."""
    size = abs(round(value, 2))
    return f"{value:.2f}" if size < 10 else f"{value:.1f}" if size < 100 else f"{value:.0f}"


def _figure(layout: GridLayout, panels: int) -> tuple[Figure, list[Axes]]:
    """A figure with `panels` grid panels side by side, sized to the grid."""
    cell = 0.55 if max(layout.rows, layout.cols) <= 12 else 0.35
    width, height = layout.cols * cell + 0.8, layout.rows * cell + 1.0
    figure = Figure(figsize=(panels * width + 0.9, height), layout="constrained")
    return figure, list(figure.subplots(1, panels, squeeze=False)[0])


def policy_figure(layout: GridLayout, values: Mapping[Hashable, float], policy: Mapping[Hashable, Sequence[int]],
                  title: str = "") -> Figure:
    """A heat map of `values` with an arrow for every greedy action in `policy`, marked cells lettered."""
    figure, (axis,) = _figure(layout, 1)
    image = _draw(axis, layout, values, policy, _limits(_value_grid(layout, values)), title or layout.name)
    figure.colorbar(image, ax=axis, shrink=0.8, label="value")
    return figure


def compare_figure(layout: GridLayout, learned_values: Mapping[Hashable, float],
                   learned_policy: Mapping[Hashable, Sequence[int]], exact_values: Mapping[Hashable, float],
                   exact_policy: Mapping[Hashable, Sequence[int]], title: str = "") -> Figure:
    """Learned (left, cells with a non-optimal greedy action outlined red) beside exact (right), one colour scale."""
    flagged = [layout.cell(state) for state, actions in learned_policy.items()
               if layout.marks.get(layout.cell(state)) not in BLOCKED and state in exact_policy
               and not set(actions) <= set(exact_policy[state])]
    limits = _limits(_value_grid(layout, learned_values), _value_grid(layout, exact_values))
    figure, axes = _figure(layout, 2)
    suffix = f" ({len(flagged)} cell{'s' if len(flagged) != 1 else ''} not optimal)" if flagged else ""
    _draw(axes[0], layout, learned_values, learned_policy, limits, "learned" + suffix, flagged)
    image = _draw(axes[1], layout, exact_values, exact_policy, limits, "exact")
    figure.colorbar(image, ax=axes, shrink=0.8, label="value")
    figure.suptitle(title or layout.name, fontsize=11)
    return figure


def grid_figures(env: Any, value_fn_or_agent: Any, gamma: float, *, model: FiniteModel | None = None,
                 exact: Solution | None = None) -> dict[str, Figure]:
    """{"grid/learned", "grid/compare"} figures of a grid env with a finite model; {} for any other env.

    `value_fn_or_agent` is a QTable keyed by (state, action), a greedy agent, a trainer, or a function
    (state, actions) -> values; the exact side is `value_iteration(model, gamma)` unless `exact` is given.
    """
    layout = grid_layout(env)
    if layout is None:
        return {}
    model = model if model is not None else model_of(env)
    if model is None:
        return {}
    exact = exact if exact is not None else value_iteration(model, gamma)
    values, policy = learned_from_q(value_fn_or_agent, model)
    return {
        "grid/learned": policy_figure(layout, values, policy, f"{layout.name}: learned greedy actions"),
        "grid/compare": compare_figure(layout, values, policy, exact.v, exact.optimal_actions,
                                       f"{layout.name}, gamma={gamma:g}"),
    }


def log_grid_figures(logger: Any, figures: Mapping[str, Figure], step: int) -> None:
    """Add `figures` as TensorBoard images at `step` through a logger's `writer` (a no-op for loggers without one)."""
    writer = getattr(logger, "writer", None)
    if writer is None:
        return
    for tag, figure in figures.items():
        writer.add_figure(tag, figure, step)
