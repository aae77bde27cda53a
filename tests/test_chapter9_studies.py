"""The chapter 9 and chapter 12 prediction studies run small in-process and write their PNG, JSON and Markdown; the
numbers are checked against the per-step trainer and the exact yardsticks where that is cheap."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from rltorch.engines.draws import uniforms
from rltorch.envs.random_walk import JumpWalkEnv
from rltorch.features import StateAggregation
from rltorch.trainers.approx_prediction import GradientMC
from rltorch.values import LinearValueFunction
from tests.helpers import load_script
from tests.test_batched_engine import Stream, StreamEnv
from tests.test_chapter_studies import run_small
from trainers.chapter9.lanes import walk, yardsticks

figure_9_1 = load_script("trainers/chapter9/figure_9_1.py")
figure_9_2_left = load_script("trainers/chapter9/figure_9_2_left.py")
figure_9_2_right = load_script("trainers/chapter9/figure_9_2_right.py")
figure_9_5 = load_script("trainers/chapter9/figure_9_5.py")
figure_9_10 = load_script("trainers/chapter9/figure_9_10.py")
figure_12_3 = load_script("trainers/chapter12/figure_12_3.py")
figure_12_8 = load_script("trainers/chapter12/figure_12_8.py")

pytestmark = pytest.mark.usefixtures("one_thread")


def test_figure_9_1_run_0_is_the_per_step_trainer_and_is_checked_against_the_exact_limit(tmp_path):
    numbers = run_small(figure_9_1, "figure_9_1_gradient_mc_aggregation", tmp_path, "--runs", 1, "--episodes", 15,
                        "--alpha", 0.01, "--seed", 3)
    env = StreamEnv(walk("1000")[0])
    trainer = GradientMC(env, LinearValueFunction(StateAggregation(10, 1, 1001), 0.01), gamma=1.0, policy=lambda s: 0)
    env.stream = Stream(uniforms(3, 0, 20_000))
    for _ in range(15):
        trainer.run_episode(0.0)
    assert numbers["weights"]["mean"] == trainer.value_fn.weights[0].tolist()
    sticks = yardsticks("1000", StateAggregation(10, 1, 1001))
    assert numbers["w_mc"] == sticks.w_mc.tolist() and numbers["mu"] == sticks.mu.tolist()
    assert numbers["expected_after_run"] == pytest.approx(sticks.expected_weights("mc", 0.01, 15 * sticks.steps))
    assert numbers["ve_final"]["mean"] == pytest.approx(sticks.ve(trainer.value_fn.weights[0]))


def test_figure_9_2_left_compares_with_the_td_fixed_point(tmp_path):
    numbers = run_small(figure_9_2_left, "figure_9_2_left_semi_gradient_td", tmp_path, "--runs", 3, "--episodes", 10)
    sticks = yardsticks("1000", StateAggregation(10, 1, 1001))
    assert numbers["w_td"] == sticks.w_td.tolist() and numbers["alpha"] == 2e-4
    mean, se = np.array(numbers["weights"]["mean"]), np.array(numbers["weights"]["se"])
    expected = np.array(numbers["expected_after_run"])
    assert numbers["distance_in_se"] == pytest.approx((np.abs(mean - expected) / se).tolist())
    assert numbers["agrees"] == bool((np.array(numbers["distance_in_se"]) <= 4).all())


def test_figure_9_2_right_runs_small(tmp_path):
    numbers = run_small(figure_9_2_right, "figure_9_2_right_nstep_td", tmp_path, "--runs", 3, "--episodes", 2,
                        "--ns", "1,4", "--alphas", "0,0.4")
    at_zero = numbers["rms_error"]["1"]["mean"][0]  # α = 0: the weights stay 0, the RMS of v_π over the states
    assert at_zero == pytest.approx(float(np.sqrt(np.mean(yardsticks("1000", StateAggregation(20, 1, 1001)).v ** 2))))
    assert numbers["rms_error"]["4"]["mean"][0] == at_zero and numbers["rms_error"]["1"]["se"][0] == 0.0
    assert numbers["rms_error"]["4"]["mean"][1] < at_zero


def test_figures_9_5_and_9_10_run_small(tmp_path):
    numbers = run_small(figure_9_5, "figure_9_5_polynomial_fourier", tmp_path / "a", "--runs", 2, "--episodes", 3)
    assert len(numbers["methods"]) == 6 and numbers["methods"]["Fourier, order 20"]["size"] == 21
    assert all(len(m["root_ve"]["mean"]) == 3 for m in numbers["methods"].values())
    numbers = run_small(figure_9_10, "figure_9_10_tilings", tmp_path / "b", "--runs", 2, "--episodes", 3)
    one, fifty = numbers["methods"]["1 tiling"], numbers["methods"]["50 tilings"]
    assert one["alpha"] == 1e-4 and fifty["alpha"] == 2e-6 and fifty["features"]["tilings"] == 50
    assert fifty["root_ve_best_limit"] < one["root_ve_best_limit"]


@pytest.mark.parametrize(("script", "stem"), [(figure_12_3, "figure_12_3_offline_lambda_return"),
                                              (figure_12_8, "figure_12_8_true_online_td_lambda")])
def test_chapter_12_grids_run_small(script, stem, tmp_path):
    numbers = run_small(script, stem, tmp_path, "--runs", 3, "--episodes", 2, "--lambdas", "0,0.8",
                        "--alphas", "0,0.5")
    start = float(np.sqrt(np.mean((np.arange(1, 20) / 10 - 1) ** 2)))  # weights 0 against v = -0.9 .. 0.9
    assert numbers["rms_error"]["0.0"]["mean"][0] == pytest.approx(start)
    best = numbers["best_alpha_by_lambda"]["0.8"]
    assert best["alpha"] == 0.5 and best["rms_error"] == numbers["rms_error"]["0.8"]["mean"][1] < start


def test_bad_study_options_are_one_line_refusals(capsys):
    with pytest.raises(SystemExit) as stop:
        figure_12_3.main(["--lambdas", "0,1.5"])
    assert stop.value.code == 2 and "λ values in [0, 1]" in capsys.readouterr().err


def test_td_lambda_with_lambda_0_is_semi_gradient_td():
    from rltorch.engines.linear_prediction import Quadratic, basis_of, run_linear_prediction
    model = JumpWalkEnv(30, 5).model().validate()
    features = StateAggregation(6, 1, 31)
    basis, quadratic = basis_of(features, model), Quadratic(np.eye(6), np.zeros(6), 0.0)
    runs = [run_linear_prediction(model, basis, algorithm, np.array([0.1]), np.array([param]), 8, quadratic)
            for algorithm, param in (("td-lambda", 0.0), ("nstep-semi-gradient-td", 1.0))]
    assert torch.equal(runs[0].weights, runs[1].weights)
