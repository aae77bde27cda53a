"""Grid pictures of values and greedy actions: a heat map with arrows, learned beside exact.

The layout comes from the env (`rltorch.envs.grid.grid_layout`: a `GridWorld`'s own, or Gymnasium's
FrozenLake and CliffWalking); the model and its solution from the run's `EnvContext`, so a picture never
builds or solves a model again. Directions are screen directions: an arrow (dx, dy) points right for
dx > 0 and up (toward row 0) for dy > 0. Marked cells carry a letter: S start, G goal, H hole, C cliff,
# obstacle; the cells that end or block an episode (G, H, C, #) are drawn grey, without a value or
arrows. Figures are plain `matplotlib.figure.Figure`s (no pyplot state) with a fixed layout, for
`rltorch.run.plots.save_png` or a logger's `figure`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Mapping, Sequence
from typing import Any

import matplotlib

matplotlib.use("Agg")
import numpy as np  # noqa: E402
from matplotlib import patheffects  # noqa: E402
from matplotlib.axes import Axes  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.patches import Rectangle  # noqa: E402

from rltorch.envs.context import EnvContext  # noqa: E402
from rltorch.envs.grid import BLOCKED, Cell, GridLayout, grid_layout  # noqa: E402
from rltorch.mdp.model import FiniteModel  # noqa: E402
from rltorch.values.base import ValueFunction  # noqa: E402

QReader = Callable[[Hashable, list[int]], Sequence[float]]
TIE_TOLERANCE = 1e-12
ARROW_LENGTH = 0.3  # in cells, from a point ARROW_RISE above the centre (the value is written below)
ARROW_RISE = 0.08
COLORMAP = "RdYlGn"
_OUTLINE = [patheffects.withStroke(linewidth=2.0, foreground="white")]
# the fixed layout, in inches: room for the row labels, between panels, the colour bar and its label, titles
LEFT, GAP, BAR, BAR_WIDTH = 0.35, 0.3, 0.9, 0.14
BOTTOM, WIND_LABEL, TITLE, SUPTITLE = 0.3, 0.22, 0.32, 0.24

__all__ = ["BLOCKED", "GridImages", "GridLayout", "compare_figure", "grid_figures", "grid_layout", "learned_from_q",
           "policy_figure"]


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
    # cell borders as two line collections (minor ticks and a grid made a dozen artists per line)
    axis.vlines(np.arange(0.5, layout.cols - 1), -0.5, layout.rows - 0.5, color="white", linewidth=1)
    axis.hlines(np.arange(0.5, layout.rows - 1), -0.5, layout.cols - 0.5, color="white", linewidth=1)
    axis.set_xlim(-0.5, layout.cols - 0.5)
    axis.set_ylim(layout.rows - 0.5, -0.5)
    axis.tick_params(length=0, labelsize=7)
    if layout.wind is not None:
        axis.set_xticklabels([str(strength) for strength in layout.wind])
        axis.set_xlabel("wind (rows pushed up)", fontsize=8)
    axis.set_title(title, fontsize=10)
    return image


def _number(value: float) -> str:
    """A value as short text: two decimals below 10, one below 100, none above."""
    size = abs(round(value, 2))
    return f"{value:.2f}" if size < 10 else f"{value:.1f}" if size < 100 else f"{value:.0f}"


def _figure(layout: GridLayout, panels: int, suptitle: bool = False) -> tuple[Figure, list[Axes], Axes]:
    """A figure with `panels` grid panels side by side and a colour bar, sized to the grid, every box placed by hand.

    A fixed layout: matplotlib's constrained layout gave the same picture at twice the cost.
    """
    cell = 0.55 if max(layout.rows, layout.cols) <= 12 else 0.35
    grid_width, grid_height = layout.cols * cell, layout.rows * cell
    bottom = BOTTOM + (WIND_LABEL if layout.wind is not None else 0.0)
    width = LEFT + panels * grid_width + (panels - 1) * GAP + BAR
    height = bottom + grid_height + TITLE + (SUPTITLE if suptitle else 0.0)
    figure = Figure(figsize=(width, height))
    axes = [figure.add_axes(((LEFT + panel * (grid_width + GAP)) / width, bottom / height, grid_width / width,
                             grid_height / height)) for panel in range(panels)]
    bar_left = width - BAR + 0.15
    colour_bar = figure.add_axes((bar_left / width, (bottom + 0.1 * grid_height) / height, BAR_WIDTH / width,
                                  0.8 * grid_height / height))
    return figure, axes, colour_bar


def _colour_bar(figure: Figure, image: Any, axis: Axes) -> None:
    """The value scale of `image` in `axis`, lettered small enough for the fixed margin."""
    figure.colorbar(image, cax=axis).set_label("value", fontsize=8)
    axis.tick_params(labelsize=7)


def policy_figure(layout: GridLayout, values: Mapping[Hashable, float], policy: Mapping[Hashable, Sequence[int]],
                  title: str = "") -> Figure:
    """A heat map of `values` with an arrow for every greedy action in `policy`, marked cells lettered."""
    figure, (axis,), colour_bar = _figure(layout, 1)
    image = _draw(axis, layout, values, policy, _limits(_value_grid(layout, values)), title or layout.name)
    _colour_bar(figure, image, colour_bar)
    return figure


def compare_figure(layout: GridLayout, learned_values: Mapping[Hashable, float],
                   learned_policy: Mapping[Hashable, Sequence[int]], exact_values: Mapping[Hashable, float],
                   exact_policy: Mapping[Hashable, Sequence[int]], title: str = "") -> Figure:
    """Learned (left, cells with a non-optimal greedy action outlined red) beside exact (right), one colour scale."""
    flagged = [layout.cell(state) for state, actions in learned_policy.items()
               if layout.marks.get(layout.cell(state)) not in BLOCKED and state in exact_policy
               and not set(actions) <= set(exact_policy[state])]
    limits = _limits(_value_grid(layout, learned_values), _value_grid(layout, exact_values))
    figure, axes, colour_bar = _figure(layout, 2, suptitle=True)
    suffix = f" ({len(flagged)} cell{'s' if len(flagged) != 1 else ''} not optimal)" if flagged else ""
    _draw(axes[0], layout, learned_values, learned_policy, limits, "learned" + suffix, flagged)
    image = _draw(axes[1], layout, exact_values, exact_policy, limits, "exact")
    _colour_bar(figure, image, colour_bar)
    figure.suptitle(title or layout.name, fontsize=11, y=1 - 0.06 / figure.get_figheight(), va="top")
    return figure


def grid_figures(context: EnvContext, learned: Any) -> dict[str, Figure]:
    """{"grid/learned", "grid/compare"} figures of a grid world with a finite model; {} for any other env.

    `learned` is a QTable keyed by (state, action), a greedy agent, a trainer, or a function
    (state, actions) -> values; the exact side is the context's solution (q* at its gamma), solved once.
    """
    layout = context.grid
    model = context.model if layout is not None else None
    exact = context.solution if model is not None else None
    if layout is None or model is None or exact is None:
        return {}
    values, policy = learned_from_q(learned, model)
    return {
        "grid/learned": policy_figure(layout, values, policy, f"{layout.name}: learned greedy actions"),
        "grid/compare": compare_figure(layout, values, policy, exact.v, exact.optimal_actions,
                                       f"{layout.name}, gamma={context.gamma:g}"),
    }


class GridImages:
    """Exact scalars that also log the learned and exact policies of a grid world as images at each evaluation."""

    def __init__(self, scalars: Callable[[Any], dict[str, float]], context: EnvContext, trainer: Any) -> None:
        self.scalars, self.context, self.trainer = scalars, context, trainer

    def __call__(self, agent: Any) -> dict[str, float]:
        """The exact scalars; the grid pictures go to the trainer's logger (`figure`) at its episode count."""
        for tag, figure in grid_figures(self.context, agent).items():
            self.trainer.logger.figure(tag, figure, self.trainer.episodes_done)
        return self.scalars(agent)
