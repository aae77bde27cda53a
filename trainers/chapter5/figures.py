"""Sutton & Barto's Figures 5.1, 5.2 and 5.3, learned with rltorch's Monte Carlo trainers and drawn with matplotlib.

Each `figure_5_x(...)` runs its experiment and returns the figure(s) by file stem plus the numbers
behind them; `trainers/chapter5/blackjack_figures.py` saves them as PNG and logs them to TensorBoard.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from typing import Any

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from matplotlib.colors import ListedColormap  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from tqdm import tqdm  # noqa: E402

from rltorch.envs.blackjack.env import HIT, STICK  # noqa: E402
from rltorch.envs.blackjack.evaluation import StickAtLeast  # noqa: E402
from rltorch.envs.blackjack.importance_sampling import (  # noqa: E402
    ordinary_mse,
    ratio_return_distribution,
    weighted_mse,
)
from rltorch.envs.blackjack.solver import optimal_policy, policy_value, states, v_star  # noqa: E402
from rltorch.run.many_runs import run_seeds  # noqa: E402
from rltorch.run.output import refuse_to_run
from trainers.chapter5.methods import BOOK_START_STATE, make_trainer  # noqa: E402

SUMS = np.arange(12, 22)
DEALER = np.arange(1, 11)
ACE_ROWS = ((1, "usable ace"), (0, "no usable ace"))


def value_grid(values: Mapping[Hashable, float], usable: int) -> np.ndarray:
    """A 10 x 10 array [player sum - 12, dealer card - 1] of the values of one ace case."""
    return np.array([[values[(s, d, usable)] for d in DEALER] for s in SUMS], dtype=float)


def _surface(ax: Any, grid: np.ndarray, title: str) -> None:
    """A 3-D surface of a value grid over (dealer showing, player sum)."""
    dealer, player = np.meshgrid(DEALER, SUMS)
    ax.plot_surface(dealer, player, grid, cmap="viridis", vmin=-1, vmax=1, edgecolor="k", linewidth=0.2)
    ax.set_zlim(-1, 1)
    ax.set_xlabel("dealer showing")
    ax.set_ylabel("player sum")
    ax.set_title(title, fontsize=9)
    ax.view_init(elev=30, azim=-130)


def _heatmap(ax: Any, grid: np.ndarray, title: str) -> Any:
    """A value grid as a heatmap, player sum upward."""
    image = ax.imshow(grid, origin="lower", cmap="RdYlGn", vmin=-1, vmax=1,
                      extent=(0.5, 10.5, 11.5, 21.5), aspect="auto")
    ax.set_xticks(DEALER, ["A", *map(str, DEALER[1:])])
    ax.set_yticks(SUMS)
    ax.set_xlabel("dealer showing")
    ax.set_ylabel("player sum")
    ax.set_title(title, fontsize=9)
    return image


def prediction_snapshots(episodes: tuple[int, ...], seed: int = 0,
                         progress: bool = False) -> dict[int, dict[Hashable, float]]:
    """First-visit MC prediction of stick-on-20 in one run; V over the 200 states after each count of episodes."""
    trainer = make_trainer("prediction", seed=seed)
    snapshots = {}
    for count in sorted(episodes):
        trainer.train(count - trainer.episodes_done, progress=progress, eval_every=0, log_every=10_000)
        snapshots[count] = dict(zip(states(), trainer.value_fn.values(states()), strict=True))
    return snapshots


def figure_5_1(episodes: tuple[int, ...] = (10_000, 500_000), seed: int = 0,
               progress: bool = False) -> tuple[dict[str, Figure], dict]:
    """Figure 5.1: V of stick-on-20 after each count of episodes, beside the exact v_pi (surfaces and heatmaps)."""
    snapshots = prediction_snapshots(episodes, seed, progress)
    truth = policy_value(StickAtLeast(20))
    columns = [(f"after {count:,} episodes", values) for count, values in snapshots.items()]
    columns.append(("exact v_pi", truth))
    surfaces = plt.figure(figsize=(4.2 * len(columns), 7.5))
    heatmaps, axes = plt.subplots(2, len(columns), figsize=(3.6 * len(columns), 6.8), squeeze=False,
                                  layout="constrained")
    for row, (usable, ace_name) in enumerate(ACE_ROWS):
        for column, (name, values) in enumerate(columns):
            grid = value_grid(values, usable)
            ax = surfaces.add_subplot(2, len(columns), row * len(columns) + column + 1, projection="3d")
            _surface(ax, grid, f"{ace_name}, {name}")
            image = _heatmap(axes[row][column], grid, f"{ace_name}, {name}")
    heatmaps.colorbar(image, ax=axes, shrink=0.8, label="value")
    for figure in (surfaces, heatmaps):
        figure.suptitle("Figure 5.1: first-visit MC prediction of 'stick on 20 or 21'")
    errors = {count: _rms(values, truth) for count, values in snapshots.items()}
    return {"figure_5_1": surfaces, "figure_5_1_heatmaps": heatmaps}, {"rms_error": errors}


def _rms(values: Mapping[Hashable, float], truth: Mapping[Hashable, float]) -> float:
    """Root mean squared error over the keys of `truth`."""
    return float(np.sqrt(np.mean([(values[key] - value) ** 2 for key, value in truth.items()])))


def _policy_panel(ax: Any, policy: Mapping[Hashable, int], optimal: Mapping[Hashable, int], usable: int,
                  title: str) -> None:
    """The greedy policy as a grid (dark: hit), crosses where it differs from pi*."""
    grid = np.array([[policy[(s, d, usable)] for d in DEALER] for s in SUMS])
    ax.imshow(grid, origin="lower", cmap=ListedColormap(["#f4e3b5", "#3b6ea5"]), vmin=STICK, vmax=HIT,
              extent=(0.5, 10.5, 11.5, 21.5), aspect="auto")
    for s in SUMS:
        for d in DEALER:
            if policy[(s, d, usable)] != optimal[(s, d, usable)]:
                ax.plot(d, s, "rx", markersize=9, markeredgewidth=2)
    ax.set_xticks(DEALER, ["A", *map(str, DEALER[1:])])
    ax.set_yticks(SUMS)
    ax.set_xlabel("dealer showing")
    ax.set_ylabel("player sum")
    ax.set_title(title, fontsize=9)


def figure_5_2(episodes: int = 2_000_000, seed: int = 0, progress: bool = False) -> tuple[dict[str, Figure], dict]:
    """Figure 5.2: the policy and state values MC ES finds (dark = hit, red x = differs from pi*), beside v*."""
    trainer = make_trainer("es", seed=seed)
    trainer.train(episodes, progress=progress, eval_every=0, log_every=10_000)
    agent, optimal = trainer.agent(), optimal_policy()
    policy = {state: agent.act(state, (STICK, HIT)) for state in states()}
    values = {state: max(agent.action_values(state, (STICK, HIT))) for state in states()}
    exact = v_star()
    figure = plt.figure(figsize=(13, 8.5), layout="constrained")
    for row, (usable, ace_name) in enumerate(ACE_ROWS):
        _policy_panel(figure.add_subplot(2, 3, 3 * row + 1), policy, optimal, usable, f"greedy policy, {ace_name}")
        _surface(figure.add_subplot(2, 3, 3 * row + 2, projection="3d"), value_grid(values, usable),
                 f"max_a Q(s, a), {ace_name}")
        _surface(figure.add_subplot(2, 3, 3 * row + 3, projection="3d"), value_grid(exact, usable),
                 f"exact v*, {ace_name}")
    figure.suptitle(f"Figure 5.2: Monte Carlo ES after {episodes:,} episodes (dark: hit; red x: differs from pi*)")
    scalars = trainer.exact_eval(agent)
    report = {"episodes": episodes, **{key.split("/")[1]: value for key, value in scalars.items()},
              "disagreeing_states": [f"{s}/{d}/{u}" for s, d, u in states() if policy[(s, d, u)] != optimal[(s, d, u)]]}
    return {"figure_5_2": figure}, report


def importance_sampling_errors(runs: int = 100, episodes: int = 10_000, seed: int = 0,
                               progress: bool = False) -> dict[str, np.ndarray]:
    """Squared error of V(13, dealer 2, usable ace) after every episode, per run, for ordinary and weighted IS.

    Both estimators of a run learn from the same behaviour episodes (same seed, random behaviour).
    """
    truth = policy_value(StickAtLeast(20))[BOOK_START_STATE]
    errors = {}
    for kind, weighted in (("ordinary", False), ("weighted", True)):
        squared = np.empty((runs, episodes))
        seeds = tqdm(run_seeds(seed, runs), desc=f"{kind} IS runs", unit="run", disable=not progress)
        for run, run_seed in enumerate(seeds):
            trainer = make_trainer("off-policy-prediction", seed=run_seed, weighted=weighted,
                                   start_state=BOOK_START_STATE)
            value, run_episode = trainer.value_fn.value, trainer.run_episode
            for episode in range(episodes):
                run_episode(1.0)
                squared[run, episode] = (value(BOOK_START_STATE) - truth) ** 2
        errors[kind] = squared
    return errors


def expected_importance_sampling_errors(episodes: int = 10_000) -> dict[str, np.ndarray]:
    """The exact expected squared errors of both estimators after 1..`episodes` episodes (the dashed curves)."""
    distribution = ratio_return_distribution(BOOK_START_STATE, StickAtLeast(20))
    weighted, _ = weighted_mse(distribution, episodes)
    return {"ordinary": ordinary_mse(distribution, np.arange(1, episodes + 1)), "weighted": weighted}


def figure_5_3(runs: int = 100, episodes: int = 10_000, seed: int = 0,
               progress: bool = False) -> tuple[dict[str, Figure], dict]:
    """Figure 5.3: mean squared error of ordinary and weighted importance sampling over `runs` runs.

    Log x axis as in the book, and beside it log-log; dashed: the exact expected squared error
    (`rltorch.envs.blackjack.importance_sampling`).
    """
    errors = importance_sampling_errors(runs, episodes, seed, progress)
    expected = expected_importance_sampling_errors(episodes)
    figure, (linear, logarithmic) = plt.subplots(1, 2, figsize=(12, 4.5))
    x = np.arange(1, episodes + 1)
    for ax in (linear, logarithmic):
        for kind, color in (("ordinary", "tab:red"), ("weighted", "tab:green")):
            ax.plot(x, errors[kind].mean(axis=0), color=color, label=f"{kind} importance sampling")
            ax.plot(x, expected[kind], color=color, linestyle="--", linewidth=1, label=f"{kind}: exact expectation")
        ax.set_xscale("log")
        ax.set_xlabel("episodes (log scale)")
    linear.set_ylabel(f"mean squared error (average over {runs} runs)")
    linear.set_ylim(0, 1.1 * max(errors["ordinary"].mean(axis=0).max(), expected["weighted"].max()))
    linear.legend()
    logarithmic.set_yscale("log")
    logarithmic.set_title("the same on log axes")
    figure.suptitle("Figure 5.3: off-policy estimate of v(usable ace, 13, dealer 2) under stick-on-20")
    marks = [n for n in (1, 10, 100, 1000, 10_000) if n <= episodes]
    report = {kind: {n: float(errors[kind][:, n - 1].mean()) for n in marks} for kind in errors}
    exact = {kind: {n: float(expected[kind][n - 1]) for n in marks} for kind in expected}
    return {"figure_5_3": figure}, {"runs": runs, "episodes": episodes, "mse": report, "expected_mse": exact}


if __name__ == "__main__":
    refuse_to_run(__file__, "blackjack_figures.py", "trainers/chapter5/blackjack_figures.py")
