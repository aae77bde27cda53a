"""The prediction trainers with a linear value function: one scripted episode worked by hand for each, and resume.

The scripted episode: S0 = 1, then 1 (reward 0), 2 (reward 0), the end (reward 1). Tabular features over the
states 1 and 2 (two groups), weights (0.2, 0.4) before it, α = 0.5, γ = 1, λ = 0.5, n = 2.
"""

from __future__ import annotations

import gymnasium as gym
import pytest
import torch
from gymnasium import spaces

from rltorch.envs.random_walk import JumpWalkEnv, RandomWalkEnv
from rltorch.features import FourierBasis, StateAggregation
from rltorch.mdp import uniform_policy
from rltorch.mdp.linear import linear_yardsticks
from rltorch.trainers.approx_prediction import GradientMC, NStepSemiGradientTD, SemiGradientTD
from rltorch.trainers.traces_prediction import OfflineLambdaReturn, TDLambda, TrueOnlineTDLambda
from rltorch.values import LinearValueFunction

SCRIPT = [(1, 0.0, False), (2, 0.0, False), (3, 1.0, True)]


class ScriptedEnv(gym.Env):
    """Plays SCRIPT from state 1, whatever the action."""

    observation_space, action_space = spaces.Discrete(4), spaces.Discrete(1)

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self.t = 0
        return 1, {}

    def step(self, action):
        self.t += 1
        return (*SCRIPT[self.t - 1], False, {})


def walk(action) -> int:
    """The one action."""
    return 0


def after_one_episode(cls, **settings) -> list[float]:
    """The weights after the scripted episode from (0.2, 0.4)."""
    value_fn = LinearValueFunction(StateAggregation(2, 1, 3), alpha=0.5)
    value_fn.weights[0] = torch.tensor([0.2, 0.4], dtype=torch.float64)
    trainer = cls(ScriptedEnv(), value_fn, gamma=1.0, policy=walk, **settings)
    assert trainer.run_episode(0.0) == 1.0
    return value_fn.weights[0].tolist()


@pytest.mark.parametrize(("cls", "settings", "expected"), [
    # G = 1 at every step: w1 = 0.2 + 0.5 (1 − 0.2) = 0.6, then 0.6 + 0.5 (1 − 0.6) = 0.8; w2 = 0.4 + 0.5 · 0.6.
    (GradientMC, {}, [0.8, 0.7]),
    # targets v(1) = 0.2 (no change), v(2) = 0.4 (w1 = 0.3), then 1 (w2 = 0.7).
    (SemiGradientTD, {}, [0.3, 0.7]),
    # τ = 0: G = 0 + 0 + v(2) = 0.4 → w1 = 0.3; τ = 1: G = 1 → w1 = 0.65; τ = 2: G = 1 → w2 = 0.7.
    (NStepSemiGradientTD, {"n": 2}, [0.65, 0.7]),
    # λ-returns from the weights of the episode: G2 = 1, G1 = 0.5 · 0.4 + 0.5 · 1 = 0.7, G0 = 0.5 · 0.2 + 0.5 · 0.7
    # = 0.45; then w1 = 0.2 + 0.5 (0.45 − 0.2) = 0.325, w1 = 0.325 + 0.5 (0.7 − 0.325) = 0.5125, w2 = 0.7.
    (OfflineLambdaReturn, {"lam": 0.5}, [0.5125, 0.7]),
    # z = (1, 0), δ = 0; z = (1.5, 0), δ = 0.2 → w1 = 0.35; z = (0.75, 1), δ = 0.6 → w += 0.3 z.
    (TDLambda, {"lam": 0.5}, [0.575, 0.7]),
    # Dutch trace: step 1 z = (1, 0), w unchanged (δ + V − V_old = 0.2 = V − V_old); step 2 z = 0.5 + (1 − 0.25) =
    # 1.25 on state 1, w1 += 0.5 · 0.2 · 1.25 = 0.125; step 3 z = (0.625, 1), w += 0.5 · (0.6 + 0.4 − 0.4) z.
    (TrueOnlineTDLambda, {"lam": 0.5}, [0.5125, 0.7]),
])
def test_one_episode_by_hand(cls, settings, expected):
    assert after_one_episode(cls, **settings) == pytest.approx(expected, abs=1e-15)


def test_true_online_and_accumulating_traces_differ_when_a_state_comes_back():
    # From zero weights: TD(λ) ends with w1 = 0.5 · 0.75 = 0.375, true online TD(λ) with 0.5 · 0.625 = 0.3125.
    for cls, first in ((TDLambda, 0.375), (TrueOnlineTDLambda, 0.3125)):
        value_fn = LinearValueFunction(StateAggregation(2, 1, 3), alpha=0.5)
        cls(ScriptedEnv(), value_fn, gamma=1.0, policy=walk, lam=0.5).run_episode(0.0)
        assert value_fn.weights[0].tolist() == [first, 0.5]


TRAINERS = [(GradientMC, {}), (SemiGradientTD, {}), (NStepSemiGradientTD, {"n": 3}),
            (OfflineLambdaReturn, {"lam": 0.8}), (TDLambda, {"lam": 0.8}), (TrueOnlineTDLambda, {"lam": 0.8})]


@pytest.mark.parametrize(("cls", "settings"), TRAINERS)
def test_every_new_algorithm_resumes_bit_for_bit(cls, settings, tmp_path):
    def make():
        env = gym.make("rltorch/RandomWalk19-v0")
        return cls(env, LinearValueFunction(FourierBasis(4, 1, 19), alpha=0.05), gamma=1.0, seed=7, policy=walk,
                   **settings)

    straight = make().train(12, log_every=5, eval_every=0, progress=False)
    first = make().train(7, log_every=5, eval_every=0, progress=False)
    first.save(tmp_path / "run.pt")
    resumed = cls.load(tmp_path / "run.pt", gym.make("rltorch/RandomWalk19-v0"), policy=walk, **settings)
    resumed.train(5, log_every=5, eval_every=0, progress=False)
    assert torch.equal(resumed.value_fn.weights, straight.value_fn.weights)
    assert resumed.steps_done == straight.steps_done and resumed.last_block == straight.last_block
    assert torch.load(tmp_path / "run.pt", weights_only=True)["config"]["algorithm"] == cls.algorithm


def test_exact_scalars_are_logged_while_learning():
    env = RandomWalkEnv(5)
    model = env.model()
    features = StateAggregation(2, 1, 6)
    sticks = linear_yardsticks(model, uniform_policy(model), 1.0, features)
    trainer = TDLambda(env, LinearValueFunction(features, alpha=0.1), gamma=1.0, policy=walk, lam=0.5,
                       exact_eval=sticks.exact_eval)
    trainer.train(20, log_every=10, eval_every=10, eval_games=1, progress=False)
    scalars = sticks.exact_eval(trainer.agent())
    assert scalars["exact/ve_td_fixed_point"] == pytest.approx(sticks.ve(sticks.w_td))
    assert scalars["exact/ve"] == pytest.approx(sticks.ve(trainer.value_fn.weights[0]))


def test_the_1000_state_walk_learns_with_gradient_mc():
    features = StateAggregation(10, 1, 1001)
    trainer = GradientMC(JumpWalkEnv(), LinearValueFunction(features, alpha=0.03), gamma=1.0, seed=1, policy=walk)
    trainer.train(100, eval_every=0, progress=False)
    weights = trainer.value_fn.weights[0]
    assert weights[0] < -0.5 < 0.5 < weights[-1]  # the ends approach -0.83 and 0.83
