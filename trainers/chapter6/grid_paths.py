"""Greedy paths on grid worlds: follow a learned agent from the start, and draw the paths on the grid.

The layout (size, marked cells, wind) comes from `rltorch.envs.grid.grid_layout`: the layout rltorch's windy
grid world and Dyna maze offer, or the one it reads off Gymnasium's CliffWalking.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from typing import Any

import gymnasium as gym
from matplotlib.axes import Axes
from matplotlib.patches import Rectangle

from rltorch.envs.grid import BLOCKED, GridLayout, grid_layout
from rltorch.run.output import refuse_to_run

COLORS = ("tab:blue", "tab:red", "tab:green", "tab:purple")


def greedy_path(env: gym.Env, agent: Any, cap: int = 200) -> tuple[list[Hashable], bool]:
    """The states met following `agent.act` from a reset (start included); whether the episode ended within `cap`."""
    state, _ = env.reset()
    path = [state]
    for _ in range(cap):
        state, _, terminated, truncated, _ = env.step(agent.act(state, legal_actions(env)))
        path.append(state)
        if terminated or truncated:
            return path, terminated
    return path, False


def legal_actions(env: gym.Env) -> list[int]:
    """The env's legal actions now: its `legal_actions()` where it has one, else every action of its space."""
    legal = getattr(env.unwrapped, "legal_actions", None)
    return legal() if legal is not None else list(range(int(env.action_space.n)))


def path_length(path: Sequence[Hashable], finished: bool) -> int | None:
    """The number of steps of a finished path, None for one that never reached the end."""
    return len(path) - 1 if finished else None


def draw_grid(axis: Axes, layout: GridLayout) -> None:
    """The grid's cells, blocked cells grey with their letter, the start and goal lettered, the wind below."""
    for row in range(layout.rows):
        for col in range(layout.cols):
            mark = layout.marks.get((row, col))
            colour = "#bdbdbd" if mark in BLOCKED - {"G"} else "#f7f7f7"
            axis.add_patch(Rectangle((col - 0.5, row - 0.5), 1, 1, facecolor=colour, edgecolor="#c8c8c8"))
            if mark:
                axis.text(col, row, mark, ha="center", va="center", fontsize=11, fontweight="bold", color="#444")
    axis.set_xlim(-0.5, layout.cols - 0.5)
    axis.set_ylim(layout.rows - 0.5, -0.5)
    axis.set_aspect("equal")
    axis.set_xticks(range(layout.cols))
    axis.set_yticks(range(layout.rows))
    axis.tick_params(length=0, labelsize=7)
    if layout.wind is not None:
        axis.set_xticklabels([str(strength) for strength in layout.wind])
        axis.set_xlabel("wind (rows pushed up)", fontsize=8)


def draw_paths(axis: Axes, layout: GridLayout, paths: Mapping[str, Sequence[Hashable]], title: str) -> None:
    """The grid with each path as a line through its cells' centres (slightly offset so that paths stay apart)."""
    draw_grid(axis, layout)
    for index, (label, path) in enumerate(paths.items()):
        offset = 0.12 * (index - (len(paths) - 1) / 2)
        cells = [layout.cell(state) for state in path]
        axis.plot([col + offset for _, col in cells], [row + offset for row, _ in cells],
                  color=COLORS[index % len(COLORS)], linewidth=2.2, marker="o", markersize=3, label=label)
    if not paths:
        axis.text(0.5, 0.5, "no greedy path reaches the end", transform=axis.transAxes, ha="center", fontsize=9)
    else:
        axis.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.08 if layout.wind is None else -0.16),
                    frameon=False)
    axis.set_title(title, fontsize=10)


def layout_of(env: gym.Env) -> GridLayout:
    """The env's grid layout (it must be a grid world `grid_layout` knows)."""
    layout = grid_layout(env)
    if layout is None:
        raise ValueError(f"{type(env.unwrapped).__name__} is not a grid world that rltorch can draw")
    return layout


if __name__ == "__main__":
    refuse_to_run(__file__, "cliff_walking.py (and windy_gridworld.py)", "trainers/chapter6/cliff_walking.py")
