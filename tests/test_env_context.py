"""Env capabilities resolved once per run: one model, one solve, shared by training, reports, pictures and
`rltorch.external`."""

import json
import sys
from collections import Counter

import gymnasium as gym
import pytest

import rltorch.mdp.model
import rltorch.mdp.solve
from rltorch.envs.capabilities import (
    DeclaresOptions,
    ExactEvaluation,
    ExactPolicyEvaluation,
    GridWorld,
    HasAfterstates,
    HasLegalActions,
    HasModel,
    SelfPlay,
)
from rltorch.envs.context import EnvContext
from rltorch.mdp.evaluation import ModelEvaluation, format_model_report
from rltorch.run import cli
from tests.helpers import run_main


def count_calls(monkeypatch, function):
    """Count every call of `function`, wherever rltorch imported it by name; returns a Counter of (args, kwargs)."""
    calls = Counter()

    def counted(*args, **kwargs):
        calls[(args[1:], tuple(sorted(kwargs.items())))] += 1
        return function(*args, **kwargs)

    for name, module in list(sys.modules.items()):
        if name.startswith(("rltorch", "trainers")):
            for attribute, value in list(vars(module).items()):
                if value is function:
                    monkeypatch.setattr(module, attribute, counted)
    return calls


def test_one_frozen_lake_run_builds_its_model_once_and_solves_each_question_once(tmp_path, monkeypatch):
    import rltorch.run.commands  # noqa: F401  (imported before counting, as `rltorch train` imports it)

    built = []
    post_init = rltorch.mdp.model.FiniteModel.__post_init__
    monkeypatch.setattr(rltorch.mdp.model.FiniteModel, "__post_init__", lambda self: (built.append(self.name),
                                                                                      post_init(self))[1])
    solves = count_calls(monkeypatch, rltorch.mdp.solve.value_iteration)
    images = []
    monkeypatch.setattr("rltorch.logger.TensorBoardLogger.figure", lambda self, tag, figure, step: images.append(tag))
    result = run_main(cli.main, "train", "--env", "FrozenLake-v1", "--algo", "qlearning", "--episodes", 40,
                      "--eval-every", 20, "--eval-games", 2, "--test-games", 2, "--no-progress",
                      "--log-dir", tmp_path, "--checkpoint", tmp_path / "lake.pt", "--json", tmp_path / "m.json",
                      cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "exact evaluation of the greedy policy" in result.stdout
    assert json.loads((tmp_path / "m.json").read_text())["exact"]["optimum"] == pytest.approx(0.744190287829)
    assert images.count("grid/compare") == 2  # the pictures of both evaluations were drawn
    assert built == ["FrozenLake-v1"]  # one model for training, pictures, the final report and its text
    # q* (gamma 0.99, no time limit) and the optimum within the 100-step limit: two questions, each solved once
    assert sorted(solves.values()) == [1, 1] and len(solves) == 2, solves


def test_a_frozen_lake_figure_solves_the_model_once(tmp_path, monkeypatch):
    trained = run_main(cli.main, "train", "--env", "FrozenLake-v1", "--algo", "qlearning", "--episodes", 20,
                       "--eval-every", 0, "--test-games", 1, "--no-progress", "--log-dir", tmp_path,
                       "--checkpoint", tmp_path / "lake.pt", cwd=tmp_path)
    assert trained.returncode == 0, trained.stderr
    solves = count_calls(monkeypatch, rltorch.mdp.solve.value_iteration)
    drawn = run_main(cli.main, "figure", tmp_path / "lake.pt", "--out", tmp_path / "figures", cwd=tmp_path)
    assert drawn.returncode == 0, drawn.stderr
    assert sum(solves.values()) == 1, solves


def test_the_protocols_name_what_each_env_offers():
    lake, walk, game = (gym.make(env_id).unwrapped for env_id in
                        ("FrozenLake-v1", "rltorch/WindyGridworld-v0", "rltorch/TicTacToe-v0"))
    assert not isinstance(lake, HasModel) and not isinstance(lake, GridWorld)  # rltorch.envs.grid adapts it
    assert isinstance(walk, HasModel) and isinstance(walk, GridWorld) and isinstance(walk, HasLegalActions)
    assert isinstance(game, HasAfterstates) and isinstance(game, ExactEvaluation) and not isinstance(game, HasModel)
    assert isinstance(game, ExactPolicyEvaluation) and isinstance(game, SelfPlay) and not isinstance(walk, SelfPlay)
    assert isinstance(type(game), DeclaresOptions) and not isinstance(type(walk), DeclaresOptions)


def test_the_context_resolves_a_grid_world_and_an_env_without_a_model():
    from tests.chain_env import ChainEnv

    lake = EnvContext(gym.make("FrozenLake-v1"), 0.99)
    assert lake.model is not None and lake.model is lake.model  # built once, kept
    assert lake.grid is not None and (lake.grid.rows, lake.grid.cols) == (4, 4)
    assert lake.exact is not None and lake.solution is lake.exact.solution  # the evaluation's q*, not a new solve
    assert lake.exact.describe is format_model_report and isinstance(lake.exact.scalars, ModelEvaluation)
    chain = EnvContext(ChainEnv(), 1.0)
    assert chain.model is None and chain.exact is None and chain.grid is None and chain.solution is None
    assert chain.policy_evaluation is None and chain.refresh_opponent is None and chain.terminal_game is None


def test_own_capabilities_win_over_the_generic_ones():
    game = EnvContext(gym.make("rltorch/TicTacToe-v0", seat="O"), 1.0)
    assert game.model is None and game.exact is not None and game.exact.solution is None
    assert game.exact.describe.__self__ is game.unwrapped  # the env's own report text
    assert game.evaluation_env().seat == "O" and game.reachable_keys("q") > 0
    assert game.policy_evaluation is not None and game.terminal_game is not None
    walk = EnvContext(gym.make("rltorch/RandomWalk-v0"), 1.0)
    assert walk.exact is not None and walk.exact.solution is not None and walk.policy_evaluation is None
