"""The exact yardsticks of linear features (μ, VE, the gradient-MC limit, the TD fixed point) and the 1000-state walk.

The five-state walk's numbers are worked by hand: from the centre, the expected visits to states 1..5 are
1, 2, 3, 2, 1 (the walk's Green's function 2 min(3, k)(6 − max(3, k)) / 6), so μ = (1, 2, 3, 2, 1) / 9 and an
episode lasts 9 steps on average.
"""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from rltorch.envs.random_walk import JumpWalkEnv, RandomWalkEnv
from rltorch.errors import RLTorchError
from rltorch.features import StateAggregation
from rltorch.mdp import FiniteModel, Transition, evaluate_policy, uniform_policy
from rltorch.mdp.linear import linear_yardsticks, on_policy_distribution


def five_state(features):
    """The yardsticks of the five-state walk (rewards 0 and 1, γ = 1)."""
    model = RandomWalkEnv(5).model().validate()
    return linear_yardsticks(model, uniform_policy(model), 1.0, features)


def test_the_on_policy_distribution_of_the_five_state_walk():
    model = RandomWalkEnv(5).model()
    mu = on_policy_distribution(model, uniform_policy(model))
    assert [mu[s] for s in range(1, 6)] == pytest.approx(np.array([1, 2, 3, 2, 1]) / 9, abs=1e-15)
    assert five_state(StateAggregation(5, 1, 6)).steps == pytest.approx(9.0, abs=1e-12)


def test_two_groups_by_hand():
    # Groups {1, 2, 3} and {4, 5}; v = s / 6. MC limit: μ-weighted group means, (1·1 + 2·2 + 3·3) / 36 = 7/18 and
    # (2·4 + 1·5) / 18 = 13/18. TD: with η = (1, 2, 3, 2, 1), A = Σ η x (x − E x')ᵀ = [[2, −1.5], [−1, 1.5]] and
    # b = (0, 1/2), so w_TD = (1/2, 2/3).
    sticks = five_state(StateAggregation(2, 1, 6))
    assert sticks.w_mc == pytest.approx([7 / 18, 13 / 18], abs=1e-14)
    assert sticks.w_td == pytest.approx([1 / 2, 2 / 3], abs=1e-14)
    assert sticks.a_td * 9 == pytest.approx(np.array([[2, -1.5], [-1, 1.5]]), abs=1e-13)
    assert sticks.ve(np.zeros(2)) == pytest.approx(93 / 324, abs=1e-15)  # Σ μ v² = (1 + 8 + 27 + 32 + 25) / 324
    v_hat = np.array([7, 7, 7, 13, 13]) / 18
    assert sticks.ve(sticks.w_mc) == pytest.approx(float(sticks.mu @ (np.arange(1, 6) / 6 - v_hat) ** 2), abs=1e-15)
    scalars = sticks.scalars(np.array([0.5, 2 / 3]))
    assert scalars["exact/ve"] == pytest.approx(scalars["exact/ve_td_fixed_point"], abs=1e-15)
    assert scalars["exact/ve_mc_limit"] < scalars["exact/ve_td_fixed_point"]


def test_expected_weights_after_a_run_follow_the_mean_update():
    sticks = five_state(StateAggregation(2, 1, 6))
    assert sticks.expected_weights("td", 0.1, 0) == pytest.approx([0, 0])
    assert sticks.expected_weights("td", 0.1, 1) == pytest.approx(0.1 * sticks.a_td @ sticks.w_td)  # α b
    assert sticks.expected_weights("mc", 0.1, 10**6) == pytest.approx(sticks.w_mc, abs=1e-12)


def test_tabular_features_recover_v_pi_exactly_in_both_limits():
    model = JumpWalkEnv(200, 20).model().validate()
    sticks = linear_yardsticks(model, uniform_policy(model), 1.0, StateAggregation(200, 1, 201))
    v = evaluate_policy(model, uniform_policy(model), 1.0)
    truth = np.array([v[s] for s in model.states])
    assert np.abs(sticks.v - truth).max() < 1e-12
    assert np.abs(sticks.w_mc - truth).max() < 1e-9 and np.abs(sticks.w_td - truth).max() < 1e-9
    assert sticks.v[0] == pytest.approx(-sticks.v[-1], abs=1e-12) and sticks.mu.sum() == pytest.approx(1.0)
    assert sticks.mu.argmax() == 99  # the start state, 100


def test_a_policy_that_never_ends_has_no_on_policy_distribution():
    loop = FiniteModel([0], {0: [0]}, {(0, 0): [Transition(1.0, 0, 0.0, False)]}, {0: 1.0}, name="loop")
    with pytest.raises(RLTorchError, match="do not end"):
        on_policy_distribution(loop, uniform_policy(loop))


def test_the_1000_state_walk_model_by_hand():
    env = JumpWalkEnv()
    outcomes = env.model().validate().transitions
    first = outcomes[(1, 0)]  # 100 of the 200 jumps leave on the left: one terminal outcome of probability 1/2
    assert first[0] == Transition(0.5, 0, -1.0, True) and [o.next_state for o in first[1:]] == list(range(2, 102))
    middle = outcomes[(500, 0)]
    assert len(middle) == 200 and {o.probability for o in middle} == {0.005}
    assert outcomes[(950, 0)][-1] == Transition(50 / 200, 1001, 1.0, True)


class FixedDraw:
    """A generator whose random() returns a given number."""

    def __init__(self, u: float) -> None:
        self.u = u

    def random(self) -> float:
        return self.u


@pytest.mark.parametrize(("start", "u", "expected"), [(500, 0.0, (400, 0.0, False)), (500, 0.4999, (499, 0.0, False)),
                                                     (500, 0.5, (501, 0.0, False)), (500, 0.99999, (600, 0.0, False)),
                                                     (30, 0.0, (0, -1.0, True)), (990, 0.96, (1001, 1.0, True))])
def test_the_1000_state_walk_jumps_as_its_docstring_says(start, u, expected):
    env = JumpWalkEnv()
    check_env(env)
    env.reset(seed=0, options={"state": start})
    env.np_random = FixedDraw(u)
    assert env.step(0)[:3] == expected
