"""Per-env defaults of `rltorch train`, the exact report's honesty, bounds, threads and the last evaluation point."""

import json

import gymnasium as gym
import pytest
import torch

import rltorch.envs  # noqa: F401  (registers rltorch's envs)
from rltorch.envs.tictactoe.encoder import BoardEncoder
from rltorch.mdp import evaluation as exact_report
from rltorch.mdp import model_of
from rltorch.mdp.evaluation import ModelEvaluation, format_model_report
from rltorch.run import plots
from rltorch.run.cli import train, train_parser
from rltorch.run.defaults import ENV_DEFAULTS, env_defaults
from rltorch.run.envs import make_env
from rltorch.run.plots import plot_runs, read_scalars
from rltorch.trainers import TRAINERS
from rltorch.values.networks import QNetwork, VNetwork

ALGORITHMS = ("qlearning", "sarsa", "expected-sarsa", "double-qlearning", "nstep-sarsa", "dyna-q", "mc")
BOOK_AND_TOY_TEXT = ("rltorch/Blackjack-v0", "FrozenLake-v1", "FrozenLake8x8-v1", "CliffWalking-v1",
                     "rltorch/WindyGridworld-v0", "rltorch/RandomWalk-v0", "rltorch/DynaMaze-v0",
                     "rltorch/MaximizationBias-v0")


def taxi_id():
    return next(env_id for env_id in ("Taxi-v4", "Taxi-v3") if env_id in gym.registry)


def parsed(env_id, algorithm, argv=()):
    """The options of `rltorch train --env env_id --algo algorithm` with the env's defaults set."""
    parser = train_parser(None, None)
    parser.set_defaults(**env_defaults(env_id, algorithm))
    return parser, parser.parse_args(["--env", env_id, "--algo", algorithm, *argv])


# --- the table --------------------------------------------------------------------------------------
def test_every_registered_rltorch_env_and_the_toy_text_worlds_have_defaults():
    rltorch_ids = [env_id for env_id in gym.registry if env_id.startswith("rltorch/")]
    assert rltorch_ids and set(rltorch_ids) <= set(ENV_DEFAULTS)
    assert set(BOOK_AND_TOY_TEXT) | {taxi_id()} <= set(ENV_DEFAULTS)


def test_tictactoe_keeps_the_course_defaults_and_an_unknown_env_gets_none():
    assert env_defaults("rltorch/TicTacToe-v0", "sarsa") == {} == env_defaults("my_module:Mine-v0", None)
    assert env_defaults("rltorch.envs:CliffWalking-v1", "qlearning") == env_defaults("CliffWalking-v1", "qlearning")


@pytest.mark.parametrize("env_id", sorted(ENV_DEFAULTS))
def test_each_default_is_an_option_of_train_that_its_own_check_accepts(env_id):
    for algorithm in (*ALGORITHMS, None):
        defaults = env_defaults(env_id, algorithm)
        parser = train_parser(None, algorithm)
        actions = {action.dest: action for action in parser._actions}
        for dest, value in defaults.items():
            assert dest in actions, (env_id, algorithm, dest)
            kind = actions[dest].type
            if dest == "env_option":  # KEY=VALUE pairs
                assert [kind(f"{key}={item}") for key, item in value] == list(value)
            elif kind is not None:
                for item in value if isinstance(value, list) else [value]:
                    assert kind(str(item)) == item, (env_id, dest, item)
        if "eval_every" in defaults:
            assert 0 < defaults["eval_every"] <= defaults["episodes"]


def test_the_defaults_reach_the_parser_its_help_and_its_options_still_win():
    parser, args = parsed("CliffWalking-v1", "qlearning")
    assert (args.episodes, args.gamma, args.alpha, args.epsilon_start) == (500, 1.0, 0.5, 0.1)
    assert "(default: 500)" in parser.format_help()
    _, args = parsed("CliffWalking-v1", "qlearning", ["--gamma", "0.9", "--episodes", "7"])
    assert (args.episodes, args.gamma) == (7, 0.9)
    _, args = parsed("rltorch/TicTacToe-v0", "sarsa")
    assert (args.episodes, args.gamma, args.epsilon_schedule) == (100_000, 0.9, "exponential")


def test_algorithm_specific_defaults_apply_only_to_their_algorithm():
    assert env_defaults("FrozenLake-v1", "dyna-q")["alpha"] < env_defaults("FrozenLake-v1", "qlearning")["alpha"]
    assert env_defaults("FrozenLake-v1", "mc")["sample_average"] is True
    assert "sample_average" not in env_defaults("FrozenLake-v1", "qlearning")
    # Monte Carlo learns nothing within an episode: on a world without a time limit its episodes are cut
    _, args = parsed("CliffWalking-v1", "mc", ["--env-option", "max_episode_steps=50"])
    assert dict(args.env_option)["max_episode_steps"] == 50
    assert "env_option" not in env_defaults("CliffWalking-v1", "qlearning")


def test_a_default_run_reaches_the_exact_optimum(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    argv = ["--env", "CliffWalking-v1", "--algo", "qlearning", "--no-progress", "--eval-every", "0",
            "--json", "m.json"]
    assert train(argv, **env_defaults("CliffWalking-v1", "qlearning")) == 0
    exact = json.loads((tmp_path / "m.json").read_text())["exact"]
    assert exact["optimum"] == -13.0 and abs(exact["return_gap"]) < 1e-9
    assert "gap 0.00000" in capsys.readouterr().out


# --- the exact report ---------------------------------------------------------------------------------
def test_a_gap_that_rounds_to_zero_prints_as_zero():
    fixed = exact_report.fixed
    assert fixed(-1.7763568394002505e-15) == "0.00000" and fixed(-1e-12, sign=True) == "+0.00000"
    assert fixed(-0.25) == "-0.25000" and fixed(7.93, sign=True) == "+7.93000"
    report = {"horizon": 200, "expected_return": 7.93 + 1.8e-15, "optimum": 7.93, "return_gap": -1.8e-15,
              "return_gamma": 1.0, "gamma": 1.0, "policy_agreement": 1.0, "rms_error": 0.0}
    assert "gap 0.00000)" in format_model_report(report) and "-0.0" not in format_model_report(report)


def test_a_discounted_learner_is_told_what_it_can_converge_to():
    evaluation = ModelEvaluation(model_of(make_env("FrozenLake-v1")), 0.9)
    report = evaluation.report(SolutionAgent(evaluation))
    assert report["discounted_optimal_return"] == pytest.approx(0.729766, abs=1e-6)
    text = format_model_report(report)
    assert "discounts (gamma 0.9)" in text and "+0.72977" in text and "gap 0.01442" in text
    undiscounted = ModelEvaluation(model_of(make_env("CliffWalking-v1")), 1.0)
    report = undiscounted.report(SolutionAgent(undiscounted))
    assert "discounted_optimal_return" not in report and "discounts" not in format_model_report(report)


class SolutionAgent:
    """Plays the evaluation's own optimal policy for its gamma, with q* as its values."""

    def __init__(self, evaluation):
        self.evaluation = evaluation

    def act(self, state, legal):
        return self.evaluation.solution.policy[state]

    def action_values(self, state, legal):
        return [self.evaluation.solution.q[(state, action)] for action in legal]


# --- bounds ---------------------------------------------------------------------------------------
def test_a_minibatch_larger_than_the_replay_buffer_is_refused_before_any_file(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    status = train(["--env", "rltorch/TicTacToe-v0", "--algo", "dqn", "--value-fn", "mlp",
                    "--replay-size", "16", "--batch-size", "32", "--episodes", "1"])
    err = capsys.readouterr().err
    assert status == 1 and err.count("\n") == 1 and "--batch-size 32 is larger than --replay-size 16" in err
    assert not list(tmp_path.iterdir())


# --- threads --------------------------------------------------------------------------------------
def test_a_network_built_in_python_runs_on_one_thread_like_the_command_line():
    before = torch.get_num_threads()
    try:
        torch.set_num_threads(2)
        network = QNetwork(BoardEncoder(), 9, hidden=(8,))
        assert torch.get_num_threads() == 1
        torch.set_num_threads(2)
        VNetwork(BoardEncoder(), (8,), threads=None)
        QNetwork.from_config(network.config())  # a checkpoint's network leaves the process setting alone
        assert torch.get_num_threads() == 2
        with pytest.raises(ValueError, match="threads"):
            VNetwork(BoardEncoder(), (8,), threads=0)
    finally:
        torch.set_num_threads(before)


# --- the last evaluation point and its plot -----------------------------------------------------------
def run_short(tmp_path, name, episodes, eval_every):
    """A short Q-learning run on the maximization-bias MDP; its folder."""
    argv = ["--env", "rltorch/MaximizationBias-v0", "--algo", "qlearning", "--episodes", str(episodes),
            "--eval-every", str(eval_every), "--eval-games", "5", "--test-games", "5", "--no-progress",
            "--log-dir", str(tmp_path), "--run-name", name, "--checkpoint", str(tmp_path / f"{name}.pt")]
    assert train(argv) == 0
    return tmp_path / name


def test_a_run_ends_with_an_evaluation_point_once(tmp_path, capsys):
    assert read_scalars(run_short(tmp_path, "short", 30, 5000), "eval/mean_return")[0] == [30]
    assert read_scalars(run_short(tmp_path, "even", 20, 10), "eval/mean_return")[0] == [10, 20]
    assert read_scalars(run_short(tmp_path, "odd", 25, 10), "eval/mean_return")[0] == [10, 20, 25]
    out = plot_runs([tmp_path / "short"], ["eval/mean_return"], tmp_path / "one.png")
    assert out.read_bytes()[:4] == b"\x89PNG"


def test_a_curve_of_few_points_gets_markers():
    assert plots.line_style(1)["marker"] and plots.line_style(20)["marker"] and plots.line_style(500) == {}


def test_every_algorithm_named_here_is_a_trainer():
    assert set(ALGORITHMS) <= set(TRAINERS)
