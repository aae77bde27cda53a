"""Grid pictures: layouts of the five grid worlds, arrow directions, figures, PNGs and TensorBoard images."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from matplotlib.patches import Rectangle
from matplotlib.quiver import Quiver

import rltorch.envs  # noqa: F401  (registers the rltorch/ envs)
from rltorch import QLearningTrainer, QTable
from rltorch.envs.context import EnvContext
from rltorch.envs.grid import GridLayout, grid_layout
from rltorch.logger import NullLogger, TensorBoardLogger
from rltorch.mdp import model_of, value_iteration
from rltorch.policies import ConstantSchedule
from rltorch.run.pictures import ARROW_RISE, GridImages, compare_figure, grid_figures, learned_from_q, policy_figure
from rltorch.run.plots import save_png

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
RIGHT, UP = (1.0, 0.0), (0.0, 1.0)


def cells_marked(layout: GridLayout, mark: str) -> set[tuple[int, int]]:
    return {cell for cell, letter in layout.marks.items() if letter == mark}


def arrows_at(figure, x: float, y: float) -> list[tuple[float, float]]:
    """The (U, V) of every arrow drawn from the cell at column x, row y, over all panels."""
    found = []
    for axis in figure.axes:
        for quiver in (artist for artist in axis.collections if isinstance(artist, Quiver)):
            at = np.isclose(quiver.X, x) & np.isclose(quiver.Y, y - ARROW_RISE)
            found += [(float(u), float(v)) for u, v in zip(quiver.U[at], quiver.V[at], strict=True)]
    return found


def test_frozen_lake_layouts():
    layout = grid_layout(gym.make("FrozenLake-v1"))
    assert (layout.rows, layout.cols) == (4, 4)
    assert cells_marked(layout, "H") == {(1, 1), (1, 3), (2, 3), (3, 0)}
    assert cells_marked(layout, "G") == {(3, 3)} and cells_marked(layout, "S") == {(0, 0)}
    assert layout.cell(14) == (3, 2) and layout.cell(np.int64(5)) == (1, 1)
    assert layout.directions == {0: (-1.0, 0.0), 1: (0.0, -1.0), 2: RIGHT, 3: UP}
    big = grid_layout(gym.make("FrozenLake-v1", map_name="8x8"))
    assert (big.rows, big.cols) == (8, 8) and len(cells_marked(big, "H")) == 10 and big.cell(63) == (7, 7)


def test_cliff_walking_layout():
    layout = grid_layout(gym.make("CliffWalking-v1"))
    assert (layout.rows, layout.cols) == (4, 12)
    assert cells_marked(layout, "C") == {(3, col) for col in range(1, 11)}
    assert cells_marked(layout, "S") == {(3, 0)} and cells_marked(layout, "G") == {(3, 11)}
    assert layout.cell(47) == (3, 11) and layout.cell(13) == (1, 1)
    assert layout.directions == {0: UP, 1: RIGHT, 2: (0.0, -1.0), 3: (-1.0, 0.0)}


def test_book_layouts():
    windy = grid_layout(gym.make("rltorch/WindyGridworld-v0"))
    assert (windy.rows, windy.cols, windy.wind) == (7, 10, (0, 0, 0, 1, 1, 1, 2, 2, 1, 0))
    assert windy.marks == {(3, 0): "S", (3, 7): "G"} and windy.cell((3, 4)) == (3, 4)
    assert windy.directions == {0: UP, 1: RIGHT, 2: (0.0, -1.0), 3: (-1.0, 0.0)}
    kings = grid_layout(gym.make("rltorch/WindyGridworldKings-v0", stay=True))
    assert len(kings.directions) == 9 and kings.directions[4] == (1.0, 1.0) and kings.directions[8] == (0.0, 0.0)
    maze = grid_layout(gym.make("rltorch/DynaMaze-v0"))
    assert (maze.rows, maze.cols) == (6, 9)
    assert cells_marked(maze, "#") == {(1, 2), (2, 2), (3, 2), (4, 5), (0, 7), (1, 7), (2, 7)}
    assert cells_marked(maze, "S") == {(2, 0)} and cells_marked(maze, "G") == {(0, 8)}


@pytest.mark.parametrize("env_id, kwargs", [
    ("FrozenLake-v1", {"is_slippery": False}),
    ("CliffWalking-v1", {}),
    ("rltorch/WindyGridworldKings-v0", {}),
    ("rltorch/DynaMaze-v0", {}),
])
def test_directions_follow_the_dynamics(env_id, kwargs):
    """Every move the model makes goes the way its arrow points (the wind and the cliff's reset aside)."""
    env = gym.make(env_id, **kwargs)
    layout, model = grid_layout(env), model_of(env)
    checked = 0
    for (state, action), outcomes in model.transitions.items():
        (_, next_state, reward, _), = outcomes
        (row, col), (next_row, next_col) = layout.cell(state), layout.cell(next_state)
        windy = layout.wind is not None and layout.wind[col] > 0
        if (row, col) == (next_row, next_col) or windy or reward == -100:
            continue
        moved, pointed = (np.sign(next_col - col), np.sign(row - next_row)), np.sign(layout.directions[action])
        assert all(m == p for m, p in zip(moved, pointed, strict=True) if m), (state, action)  # an edge clips a part
        checked += 1
    assert checked > 20


def test_right_arrow_at_state_14():
    env = gym.make("FrozenLake-v1", is_slippery=False)
    layout = grid_layout(env)
    solution = value_iteration(model_of(env), 0.9)
    assert solution.optimal_actions[14] == [2]
    assert layout.directions[2] == RIGHT
    figure = policy_figure(layout, solution.v, solution.optimal_actions, "exact")
    assert arrows_at(figure, x=2, y=3) == [RIGHT]
    assert arrows_at(figure, x=3, y=3) == [] and arrows_at(figure, x=1, y=1) == []  # goal and hole: no arrows


def test_learned_from_q_reads_functions_tables_and_ties():
    env = gym.make("FrozenLake-v1", is_slippery=False)
    model = model_of(env)
    values, policy = learned_from_q(lambda state, actions: [1.0, 2.0, 2.0 - 1e-13, 0.5], model)
    assert values[0] == 2.0 and policy[0] == [1, 2] and set(policy) == set(model.states)
    table = QTable(alpha=0.5)
    table.update((14, 2), 1.0)
    values, policy = learned_from_q(table, model)
    assert values[14] == 0.5 and policy[14] == [2] and policy[0] == [0, 1, 2, 3]


def test_compare_figure_flags_non_optimal_cells():
    env = gym.make("FrozenLake-v1", is_slippery=False)
    layout, solution = grid_layout(env), value_iteration(model_of(env), 0.9)
    learned_policy = dict(solution.optimal_actions)
    learned_policy[14] = [0]  # left, not optimal
    figure = compare_figure(layout, solution.v, learned_policy, solution.v, solution.optimal_actions)
    learned, exact = figure.axes[:2]
    assert "1 cell not optimal" in learned.get_title() and exact.get_title() == "exact"
    flagged = [patch for patch in learned.patches if isinstance(patch, Rectangle) and patch.get_edgecolor()[0] == 1]
    assert [patch.get_xy() for patch in flagged] == [(2 - 0.47, 3 - 0.47)]
    assert learned.images[0].get_clim() == exact.images[0].get_clim()
    assert arrows_at(figure, x=2, y=3) == [(-1.0, 0.0), RIGHT]


def test_grid_figures_png_and_tensorboard(tmp_path):
    import matplotlib.pyplot as plt

    open_before = plt.get_fignums()  # other tests' pyplot figures may still be open
    env = gym.make("FrozenLake-v1", is_slippery=False)
    trainer = QLearningTrainer(env, QTable(alpha=0.5), gamma=0.9, schedule=ConstantSchedule(0.3), seed=0)
    trainer.train(300, eval_every=0, progress=False)
    context = EnvContext(env, 0.9)
    figures = grid_figures(context, trainer.value_fn)
    assert set(figures) == {"grid/learned", "grid/compare"}
    for tag, figure in figures.items():
        path = save_png(figure, tmp_path / f"{tag.split('/')[1]}.png")
        data = path.read_bytes()
        assert len(data) > 1000 and data.startswith(PNG_SIGNATURE)
    assert set(grid_figures(context, trainer)) == set(grid_figures(context, trainer.agent())) == set(figures)
    logger = TensorBoardLogger(tmp_path / "run")
    for tag, figure in figures.items():
        logger.figure(tag, figure, step=300)
    logger.close()
    assert images_in(tmp_path / "run") == {"grid/learned": [300], "grid/compare": [300]}
    assert plt.get_fignums() == open_before  # plain Figures: nothing added to pyplot


@pytest.mark.parametrize("env_id", ["Taxi-v4", "Blackjack-v1", "rltorch/TicTacToe-v0", "rltorch/Blackjack-v0"])
def test_non_grid_envs_give_nothing(env_id):
    if env_id not in gym.registry:
        pytest.skip(f"{env_id} is not registered in this Gymnasium")
    env = gym.make(env_id)
    assert grid_layout(env) is None
    assert grid_figures(EnvContext(env, 1.0), lambda state, actions: [0.0] * len(actions)) == {}


def images_in(run_dir):
    """{tag: [steps]} of the images logged in a run folder."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    events = EventAccumulator(str(run_dir))
    events.Reload()
    return {tag: [event.step for event in events.Images(tag)] for tag in events.Tags()["images"]}


class FailingWriter:
    """A SummaryWriter whose disk is full."""

    def add_figure(self, *args, **kwargs):
        raise OSError(28, "No space left on device")

    def flush(self):
        pass

    def close(self):
        pass


def test_a_failing_figure_write_stops_logging_with_one_warning(tmp_path, capsys):
    env = gym.make("FrozenLake-v1", is_slippery=False)
    figures = grid_figures(EnvContext(env, 0.9), lambda state, actions: [0.0] * len(actions))
    logger = TensorBoardLogger(tmp_path / "run")
    logger.writer.close()
    logger.writer = FailingWriter()
    for step in (1, 2):
        for tag, figure in figures.items():
            logger.figure(tag, figure, step)
    logger.close()
    warnings = [line for line in capsys.readouterr().err.splitlines() if line.startswith("warning")]
    assert len(warnings) == 1 and "No space left on device" in warnings[0]
    assert logger.failure is not None
    NullLogger().figure("grid/learned", figures["grid/learned"], 0)  # quiet loggers take figures too


def test_grid_images_draw_from_the_context_without_solving_again(monkeypatch):
    env = gym.make("FrozenLake-v1", is_slippery=False)
    context = EnvContext(env, 0.9)
    trainer = QLearningTrainer(env, QTable(alpha=0.5), gamma=0.9, schedule=ConstantSchedule(0.3), seed=0,
                               exact_eval=context.exact.scalars)
    logged = []
    monkeypatch.setattr(trainer.logger, "figure", lambda tag, figure, step: logged.append((tag, step)), raising=False)
    trainer.exact_eval = GridImages(trainer.exact_eval, context, trainer)
    monkeypatch.setattr("rltorch.envs.context.value_iteration", None)  # a second solve would fail
    monkeypatch.setattr("rltorch.envs.context.model_of", None)
    trainer.train(40, eval_every=20, eval_games=2, progress=False)
    assert logged == [("grid/learned", 20), ("grid/compare", 20), ("grid/learned", 40), ("grid/compare", 40)]
