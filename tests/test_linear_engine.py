"""The batched linear prediction engine against the per-step trainers fed the same draws, exactly.

Lane l of `run_linear_prediction` draws from its run's stream; the per-step trainer plays `StreamEnv`, the walk's
model as an env drawing its outcomes from the same stream (`tests.test_batched_engine`). Both must end with the
same weights (float64, compared exactly), having taken the same number of draws, and the lane's recorded error
must be the exact VE of its weights.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

from rltorch.engines.draws import uniforms
from rltorch.engines.linear_prediction import Quadratic, basis_of, run_linear_prediction
from rltorch.envs.random_walk import JumpWalkEnv
from rltorch.errors import RLTorchError
from rltorch.features import FourierBasis, StateAggregation, TileCoder
from rltorch.mdp import uniform_policy
from rltorch.mdp.linear import linear_yardsticks
from rltorch.trainers.approx_prediction import GradientMC, NStepSemiGradientTD, SemiGradientTD
from rltorch.trainers.traces_prediction import OfflineLambdaReturn, TDLambda, TrueOnlineTDLambda
from rltorch.values import LinearValueFunction
from tests.test_batched_engine import Stream, StreamEnv

MODEL = JumpWalkEnv(40, 8).model().validate()
FEATURES = {"aggregation": StateAggregation(5, 1, 41), "fourier": FourierBasis(3, 1, 40),
            "tiles": TileCoder(1, 41, tilings=4, tiles=3)}
METHODS = {"gradient-mc": (GradientMC, None), "nstep-semi-gradient-td": (NStepSemiGradientTD, "n"),
           "offline-lambda-return": (OfflineLambdaReturn, "lam"), "td-lambda": (TDLambda, "lam"),
           "true-online-td-lambda": (TrueOnlineTDLambda, "lam")}
SEED, EPISODES = 5, 12


def per_step(cls, features, alpha: float, settings: dict, draws: np.ndarray) -> tuple[torch.Tensor, int]:
    """The trainer's weights after EPISODES episodes on the stream `draws`, and how many draws it took."""
    env = StreamEnv(MODEL)
    trainer = cls(env, LinearValueFunction(features, alpha), gamma=1.0, policy=lambda state: 0, **settings)
    env.stream = Stream(draws)
    for _ in range(EPISODES):
        trainer.run_episode(0.0)
    return trainer.value_fn.weights[0], env.stream.position


@pytest.mark.parametrize("kind", list(FEATURES))
@pytest.mark.parametrize("algorithm", list(METHODS))
def test_a_lane_equals_the_per_step_trainer_fed_the_same_draws(algorithm, kind):
    # Mutants of the engine that fail here (each tried): TD(λ)'s trace decayed after adding x; true online TD(λ)
    # without its −α(V − V_old)x term; the offline λ-return with λ and 1 − λ swapped; n-step TD bootstrapping at h = T.
    features, (cls, name) = FEATURES[kind], METHODS[algorithm]
    sticks = linear_yardsticks(MODEL, uniform_policy(MODEL), 1.0, features)
    alphas, params = np.array([0.05, 0.2, 0.1]), np.array([3.0, 1.0, 2.0] if name == "n" else [0.0, 0.5, 0.9])
    result = run_linear_prediction(MODEL, basis_of(features, MODEL), algorithm, alphas, params, EPISODES,
                                   Quadratic(*sticks.quadratic()), seed=SEED, run_index=np.array([4, 0, 9]))
    for lane, run in enumerate([4, 0, 9]):
        settings = {} if name is None else {name: int(params[lane]) if name == "n" else float(params[lane])}
        draws = uniforms(SEED, run, int(result.draws[lane]) + 1)
        weights, taken = per_step(cls, features, float(alphas[lane]), settings, draws)
        assert torch.equal(result.weights[lane], weights), f"lane {lane}: weights differ"
        assert taken == int(result.draws[lane]) == int(result.lengths[lane].sum())  # one draw a step
        assert float(result.errors[lane, -1]) == pytest.approx(sticks.ve(weights), rel=1e-9, abs=1e-15)


def test_one_step_td_is_nstep_td_with_n_1():
    features = FEATURES["aggregation"]
    sticks = linear_yardsticks(MODEL, uniform_policy(MODEL), 1.0, features)
    result = run_linear_prediction(MODEL, basis_of(features, MODEL), "nstep-semi-gradient-td", np.array([0.1]),
                                   np.array([1.0]), EPISODES, Quadratic(*sticks.quadratic()), seed=SEED)
    weights, _ = per_step(SemiGradientTD, features, 0.1, {}, uniforms(SEED, 0, int(result.draws[0]) + 1))
    assert torch.equal(result.weights[0], weights)


def test_lanes_do_not_depend_on_their_neighbours():
    features = FEATURES["fourier"]
    quadratic = Quadratic(*linear_yardsticks(MODEL, uniform_policy(MODEL), 1.0, features).quadratic())
    basis = basis_of(features, MODEL)
    both = run_linear_prediction(MODEL, basis, "td-lambda", np.array([0.1, 0.3]), np.array([0.5, 0.9]), 5, quadratic,
                                 run_index=np.array([2, 3]))
    alone = run_linear_prediction(MODEL, basis, "td-lambda", np.array([0.3]), np.array([0.9]), 5, quadratic,
                                  run_index=np.array([3]))
    assert torch.equal(both.weights[1], alone.weights[0]) and torch.equal(both.errors[1], alone.errors[0])


def test_unknown_algorithms_and_ragged_lanes_are_refused():
    basis, quadratic = basis_of(FEATURES["aggregation"], MODEL), Quadratic(np.eye(5), np.zeros(5), 0.0)
    with pytest.raises(RLTorchError, match="unknown algorithm"):
        run_linear_prediction(MODEL, basis, "sarsa", np.array([0.1]), np.array([0.0]), 1, quadratic)
    with pytest.raises(RLTorchError, match="one entry per lane"):
        run_linear_prediction(MODEL, basis, "td-lambda", np.array([0.1, 0.2]), np.array([0.0]), 1, quadratic)
    with pytest.raises(RLTorchError, match="n must be an integer >= 1"):
        run_linear_prediction(MODEL, basis, "nstep-semi-gradient-td", np.array([0.1]), np.array([0.5]), 1, quadratic)
    with pytest.raises(RLTorchError, match="λ must be in"):
        run_linear_prediction(MODEL, basis, "td-lambda", np.array([0.1]), np.array([1.5]), 1, quadratic)
