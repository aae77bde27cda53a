"""`rltorch train --algo gradient-mc | semi-gradient-td | ... | true-online-td-lambda`: prediction, by command.

Each learns v̂(s) of the uniform random policy (drawn from the trainer's seeded generator; the walks have one
action) keyed by the states, logs the exact yardsticks of `rltorch.mdp.linear.linear_yardsticks` at every
evaluation, reports them at the end and in `rltorch evaluate`, resumes bit for bit, and refuses what makes no
sense in one line before any file is made.
"""

from __future__ import annotations

import json
import random
import re
import shutil
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
import torch
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

from rltorch.features import StateAggregation
from rltorch.mdp import uniform_policy
from rltorch.mdp.linear import linear_yardsticks
from rltorch.run.cli import main, train_parser
from rltorch.run.envs import make_env
from rltorch.trainers import TRAINERS
from rltorch.trainers.approx_prediction import GradientMC
from rltorch.trainers.traces_prediction import TDLambda
from rltorch.values import VTable
from rltorch.values.linear import LinearValueFunction
from tests.test_resume import same

ROOT = Path(__file__).resolve().parents[1]
WALK19, WALK1000 = "rltorch/RandomWalk19-v0", "rltorch/RandomWalk1000-v0"
PREDICTION = ["gradient-mc", "semi-gradient-td", "nstep-semi-gradient-td", "offline-lambda-return", "td-lambda",
              "true-online-td-lambda"]
YARDSTICKS = {"exact/ve", "exact/ve_mc_limit", "exact/ve_td_fixed_point"}
QUIET = ["--no-progress", "--test-games", "5"]


def scalars(run_dir: Path) -> dict[str, list[tuple[int, float]]]:
    """Every scalar of a run folder: tag -> [(step, value)]."""
    events = EventAccumulator(str(run_dir), size_guidance={"scalars": 0})
    events.Reload()
    return {tag: [(e.step, e.value) for e in events.Scalars(tag)] for tag in events.Tags()["scalars"]}


def data(path: Path) -> dict:
    """A checkpoint's learned state and generators."""
    saved = torch.load(path, weights_only=True)
    return {key: saved[key] for key in ("episodes", "steps", "value_fn_state", "rng_state", "env_rng", "block")}


def walk19_yardsticks(groups: int):
    """The 19-state walk's yardsticks for `--value-fn aggregation --groups G` (the walk's feature box [1, 20])."""
    model = make_env(WALK19).unwrapped.model()
    return linear_yardsticks(model, uniform_policy(model), 1.0, StateAggregation(groups, [1.0], [20.0]))


def test_the_prediction_algorithms_are_offered_with_their_options_and_policy():
    assert [name for name, cls in TRAINERS.items() if cls.predicts_state_values] == PREDICTION
    assert all(TRAINERS[name].algorithm == name for name in PREDICTION)
    text = " ".join(train_parser(None, None).format_help().split())
    assert all(name in text for name in PREDICTION) and "uniform random policy over the env's legal actions" in text
    actions = {action.dest: action for action in train_parser(None, None)._actions}
    assert actions["lam"].option_strings == ["--lambda"] and actions["n"].option_strings == ["--n"]


def test_the_run_layer_switches_on_no_prediction_algorithm_name():
    pattern = re.compile("|".join(f'"{name}"' for name in PREDICTION))
    for path in (ROOT / "rltorch" / "run").glob("*.py"):
        assert not [line for line in path.read_text().splitlines() if pattern.search(line)], path


@pytest.mark.parametrize("algo", PREDICTION)
def test_each_algorithm_logs_the_exact_yardsticks_of_its_state_values(algo, tmp_path, monkeypatch, capsys):
    # mutants: V keyed by (state, action) (two weight rows), no yardsticks, limits not linear_yardsticks' own
    monkeypatch.chdir(tmp_path)
    argv = ["train", "--env", WALK19, "--algo", algo, "--value-fn", "aggregation", "--groups", "4", "--alpha", "0.05",
            "--gamma", "1", "--episodes", "20", "--log-every", "5", "--eval-every", "10", "--run-name", "r",
            "--json", "m.json", *QUIET]
    assert main(argv) == 0
    out = capsys.readouterr().out
    events, sticks = scalars(tmp_path / "runs" / "r"), walk19_yardsticks(4)
    assert YARDSTICKS <= events.keys() and "eval/mean_return" not in events
    assert [step for step, _ in events["exact/ve"]] == [10, 20]
    assert events["exact/ve_mc_limit"][-1][1] == float(np.float32(sticks.ve(sticks.w_mc)))  # TensorBoard's float32
    assert events["exact/ve_td_fixed_point"][-1][1] == float(np.float32(sticks.ve(sticks.w_td)))
    saved = torch.load(tmp_path / "checkpoints" / "r.pt", weights_only=True)
    weights = saved["value_fn_state"]["weights"]
    assert weights.shape == (1, 4) and saved["config"]["keys"] == "state" and saved["config"]["algorithm"] == algo
    metrics = json.loads((tmp_path / "m.json").read_text())
    assert metrics["value_errors"] == {"ve": sticks.ve(weights[0]), "ve_mc_limit": sticks.ve(sticks.w_mc),
                                       "ve_td_fixed_point": sticks.ve(sticks.w_td)}
    assert "test_episodes" not in metrics and "greedy" not in out
    assert "exact value error of v̂ under UniformRandomPolicy(): VE" in out
    assert main(["evaluate", "checkpoints/r.pt", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == metrics["value_errors"]


def test_a_table_learns_v_of_the_states_and_the_end_of_the_run_reports_it(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["train", "--env", WALK19, "--algo", "td-lambda", "--value-fn", "table", "--alpha", "0.1",
                 "--episodes", "20", "--run-name", "t", *QUIET]) == 0
    saved = torch.load(tmp_path / "checkpoints" / "t.pt", weights_only=True)
    assert saved["value_fn_config"]["class"] == "VTable" and saved["config"]["policy"] == "UniformRandomPolicy()"
    events = scalars(tmp_path / "runs" / "t")
    assert YARDSTICKS <= events.keys() and events["exact/ve_mc_limit"][-1][1] < 1e-20  # a table's limits: v_π
    out = capsys.readouterr().out
    assert "table: 19 entries" in out and "exact value error of v̂" in out
    evaluated = main(["evaluate", "checkpoints/t.pt"])
    assert evaluated == 0 and "exact value error of v̂ under UniformRandomPolicy(): VE" in capsys.readouterr().out
    assert main(["figure", "checkpoints/t.pt", "--out", "figures"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "rank no action" in err and not (tmp_path / "figures").exists()


def test_gradient_mc_learns_in_a_network_and_logs_its_value_error(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["train", "--env", WALK19, "--algo", "gradient-mc", "--value-fn", "mlp", "--hidden", "8",
                 "--episodes", "10", "--eval-every", "10", "--run-name", "m", *QUIET]) == 0
    saved = torch.load(tmp_path / "checkpoints" / "m.pt", weights_only=True)
    assert saved["value_fn_config"]["class"] == "VNetwork"
    events = scalars(tmp_path / "runs" / "m")
    assert "exact/ve" in events and not (YARDSTICKS - {"exact/ve"}) & events.keys()  # no linear limits


def test_the_command_line_gradient_mc_is_gradient_mc_fed_the_same_seed(tmp_path, monkeypatch):
    # mutants: the policy or the env seeded otherwise than the trainer, a draw for the walk's one action
    monkeypatch.chdir(tmp_path)
    assert main(["train", "--env", WALK1000, "--algo", "gradient-mc", "--value-fn", "aggregation", "--groups", "10",
                 "--alpha", "0.002", "--gamma", "1", "--episodes", "30", "--seed", "7", "--eval-every", "10",
                 "--run-name", "g", *QUIET]) == 0
    by_hand = GradientMC(gym.make(WALK1000), LinearValueFunction(StateAggregation(10, [1.0], [1001.0]), alpha=0.002),
                         gamma=1.0, seed=7)
    by_hand.train(30, eval_every=0, progress=False)
    weights = torch.load(tmp_path / "checkpoints" / "g.pt", weights_only=True)["value_fn_state"]["weights"]
    assert weights.abs().sum() > 0 and torch.equal(weights, by_hand.value_fn.weights)
    assert by_hand.rng.getstate() == random.Random(7).getstate()  # the walk's one action: the policy drew nothing


def test_the_uniform_policy_draws_from_the_runs_seed(tmp_path, monkeypatch):
    # mutant: the policy drawing from an unseeded generator (two runs of one seed then differ, and differ by hand)
    monkeypatch.chdir(tmp_path)
    common = ["--env", "Taxi-v4", "--algo", "td-lambda", "--value-fn", "table", "--alpha", "0.1", "--lambda",
              "0.8", "--gamma", "0.9", "--episodes", "20", "--eval-every", "10", *QUIET]
    for name, seed in (("a", "3"), ("b", "3"), ("c", "4")):
        assert main(["train", *common, "--seed", seed, "--run-name", name]) == 0
    a, b, c = (data(tmp_path / "checkpoints" / f"{name}.pt") for name in "abc")
    assert same(a, b) and not same(a["value_fn_state"], c["value_fn_state"])
    by_hand = TDLambda(gym.make("Taxi-v4"), VTable(alpha=0.1), gamma=0.9, seed=3, lam=0.8)
    by_hand.train(20, eval_every=0, progress=False)
    assert same(a["value_fn_state"], by_hand.value_fn.state_dict()) and a["rng_state"] == by_hand.rng.getstate()


@pytest.mark.parametrize("setting", [
    ["--env", WALK1000, "--algo", "gradient-mc", "--value-fn", "aggregation", "--alpha", "0.002"],
    ["--env", "Taxi-v4", "--algo", "true-online-td-lambda", "--value-fn", "table", "--gamma", "0.9"],
    ["--env", "Taxi-v4", "--algo", "nstep-semi-gradient-td", "--n", "3", "--value-fn", "table", "--gamma", "0.9"],
], ids=["walk-gradient-mc", "taxi-true-online", "taxi-nstep"])
def test_a_run_stopped_at_episode_k_and_resumed_is_the_straight_run(setting, tmp_path, monkeypatch):
    # mutant: the policy drawing from a generator of its own that the checkpoint does not hold
    monkeypatch.chdir(tmp_path)
    common = [*setting, "--seed", "5", "--log-every", "5", "--eval-every", "10", *QUIET]
    assert main(["train", *common, "--episodes", "13", "--run-name", "cut"]) == 0
    shutil.copy(tmp_path / "checkpoints" / "cut.pt", tmp_path / "first.pt")
    assert main(["train", "--resume", "checkpoints/cut.pt", "--episodes", "30", "--log-every", "5", "--eval-every",
                 "10", *QUIET]) == 0
    assert main(["train", *common, "--episodes", "30", "--run-name", "whole"]) == 0
    cut, whole = data(tmp_path / "checkpoints" / "cut.pt"), data(tmp_path / "checkpoints" / "whole.pt")
    assert cut["episodes"] == 30 and same(cut, whole)
    assert not same(cut["value_fn_state"], data(tmp_path / "first.pt")["value_fn_state"])  # it learned on
    resumed, straight = scalars(tmp_path / "runs" / "cut"), scalars(tmp_path / "runs" / "whole")
    assert YARDSTICKS <= straight.keys()
    for tag in YARDSTICKS:  # the cut run also evaluated where it ended, at 13
        assert [point for point in resumed[tag] if point[0] != 13] == straight[tag], tag


@pytest.mark.parametrize(("extra", "says"), [
    (["--algo", "td-lambda", "--values", "afterstate"], "drop --values afterstate"),
    (["--algo", "gradient-mc", "--runs", "3"], "has none there"),
    (["--algo", "semi-gradient-td", "--sweep", "alpha=0.1,0.2"], "has none there"),
    (["--algo", "true-online-td-lambda", "--value-fn", "mlp"], "keeps a trace over the weights"),
    (["--algo", "td-lambda", "--lambda", "1.5"], "--lambda"),
    (["--algo", "nstep-semi-gradient-td", "--n", "0"], "--n"),
])
def test_what_makes_no_sense_is_one_line_exit_2_and_no_files(extra, says, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    try:
        status = main(["train", "--env", WALK19, *extra, "--episodes", "5", *QUIET])
    except SystemExit as stop:  # argparse's own refusal
        status = stop.code
    err = capsys.readouterr().err
    assert status == 2 and err.count("\n") == 1 and says in err and "Traceback" not in err, err
    assert list(tmp_path.iterdir()) == []


def test_testing_the_uniform_policy_plays_it_on_the_evaluation_env_and_leaves_training_alone():
    # mutant: the test's draws from the trainer's generator, or the policy asked for the training env's actions
    lake = TDLambda(gym.make("FrozenLake-v1"), VTable(alpha=0.1), gamma=0.9, seed=3, lam=0.8)
    before = lake.rng.getstate()
    assert lake.test(20).episodes == 20 and lake.rng.getstate() == before
    walk = GradientMC(gym.make(WALK19), VTable(alpha=0.1), gamma=1.0, seed=0).train(3, eval_every=0, progress=False)
    stats = walk.test(4)
    assert stats.episodes == 4 and -1.0 <= stats.mean_return <= 1.0 and stats.mean_length >= 9
