"""Exact solvers on small models worked by hand, and cross-checks between independent methods."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from rltorch.errors import RLTorchError
from rltorch.mdp import (
    FiniteModel,
    Transition,
    deterministic_policy,
    epsilon_greedy_policy,
    evaluate_policy,
    expected_return,
    outcome_probabilities,
    q_from_v,
    uniform_policy,
    value_iteration,
)


def two_state_model() -> FiniteModel:
    """X: action 0 ends with reward 1, action 1 goes to Y. Y: action 0 ends with reward 10, action 1 goes back to X."""
    return FiniteModel(
        states=["X", "Y"],
        actions={"X": [0, 1], "Y": [0, 1]},
        transitions={
            ("X", 0): [Transition(1.0, None, 1.0, True)],
            ("X", 1): [Transition(1.0, "Y", 0.0, False)],
            ("Y", 0): [Transition(1.0, None, 10.0, True)],
            ("Y", 1): [Transition(1.0, "X", 0.0, False)],
        },
        start={"X": 1.0},
        name="two states",
    ).validate()


Q_TABLE = {("X", 0): 1.0, ("X", 1): 2.0, ("Y", 0): 10.0, ("Y", 1): 0.0}


def test_epsilon_greedy_probabilities():
    policy = epsilon_greedy_policy(Q_TABLE, two_state_model(), 0.2)
    assert policy["X"] == pytest.approx({0: 0.1, 1: 0.9})
    assert policy["Y"] == pytest.approx({0: 0.9, 1: 0.1})
    tied = epsilon_greedy_policy({("X", 0): 3.0, ("X", 1): 3.0}, two_state_model(), 0.2)
    assert tied["X"] == pytest.approx({0: 0.5, 1: 0.5})
    assert tied["Y"] == pytest.approx({0: 0.5, 1: 0.5})  # missing pairs count as 0.0: both tie
    with pytest.raises(RLTorchError, match="no value for state 'Y', action 0"):
        epsilon_greedy_policy({("X", 0): 3.0, ("X", 1): 3.0}, two_state_model(), 0.2, default=None)


def test_epsilon_greedy_expected_return_by_hand():
    # epsilon = 0.2 over 2 actions: the greedy action has 0.9, the other 0.1 (X prefers 1, Y prefers 0).
    # gamma = 1/2: v(Y) = 0.9 * 10 + 0.1 * (1/2) v(X) = 9 + v(X)/20
    #              v(X) = 0.1 * 1 + 0.9 * (1/2) v(Y) = 0.1 + 0.45 (9 + v(X)/20) = 4.15 + 0.0225 v(X)
    #              => v(X) = 4.15 / 0.9775 = 1660/391
    # gamma = 1:   v(Y) = 9 + 0.1 v(X); v(X) = 0.1 + 0.9 v(Y) = 8.2 + 0.09 v(X) => v(X) = 8.2 / 0.91 = 820/91
    model = two_state_model()
    policy = epsilon_greedy_policy(Q_TABLE, model, 0.2)
    assert expected_return(model, policy, 0.5) == pytest.approx(1660 / 391, abs=1e-12)
    assert expected_return(model, policy, 1.0) == pytest.approx(820 / 91, abs=1e-12)
    v = evaluate_policy(model, policy, 1.0)
    assert v["Y"] == pytest.approx(9 + 0.1 * 820 / 91, abs=1e-12)
    # Ending in X pays 1 and ending in Y pays 10, both wins; a custom label tells them apart.
    # P(end in X) = 0.1 + 0.9 * 0.1 * P(end in X)  =>  0.1 / 0.91.
    ends = outcome_probabilities(model, policy, outcome=lambda reward: "X" if reward == 1.0 else "Y")
    assert ends == pytest.approx({"Y": 1 - 0.1 / 0.91, "X": 0.1 / 0.91}, abs=1e-12)
    assert list(ends) == ["Y", "X"]  # labels come best reward first
    assert outcome_probabilities(model, policy) == pytest.approx({"win": 1.0}, abs=1e-12)


def test_value_iteration_lists_every_tied_action():
    # S: action 0 ends with 1; action 1 pays 0.25 and moves to T, whose only action ends with 0.75 (1 in all);
    # action 2 ends with 0.5. With gamma = 1 actions 0 and 1 tie.
    model = FiniteModel(
        states=["S", "T"],
        actions={"S": [0, 1, 2], "T": [0]},
        transitions={
            ("S", 0): [Transition(1.0, "end", 1.0, True)],
            ("S", 1): [Transition(1.0, "T", 0.25, False)],
            ("S", 2): [Transition(1.0, "end", 0.5, True)],
            ("T", 0): [Transition(1.0, "end", 0.75, True)],
        },
        start={"S": 1.0},
    ).validate()
    solution = value_iteration(model, 1.0)
    assert solution.optimal_actions == {"S": [0, 1], "T": [0]}
    assert solution.policy == {"S": 0, "T": 0}
    assert solution.q == pytest.approx({("S", 0): 1.0, ("S", 1): 1.0, ("S", 2): 0.5, ("T", 0): 0.75}, abs=1e-12)
    # With gamma = 0.5 action 1 is worth 0.25 + 0.5 * 0.75 = 0.625 and only action 0 is optimal.
    assert value_iteration(model, 0.5).optimal_actions["S"] == [0]


def walk_model() -> FiniteModel:
    """1: action 0 ends with reward 4 or moves to 2 with reward 1 (1/2 each). 2 -> 3 with reward 1. 3 ends with 1."""
    return FiniteModel(
        states=[1, 2, 3],
        actions={1: [0], 2: [0], 3: [0]},
        transitions={
            (1, 0): [Transition(0.5, 0, 4.0, True), Transition(0.5, 2, 1.0, False)],
            (2, 0): [Transition(1.0, 3, 1.0, False)],
            (3, 0): [Transition(1.0, 0, 1.0, True)],
        },
        start={1: 1.0},
    ).validate()


def test_finite_horizon_evaluation_by_hand():
    # gamma = 1/2.  One step left:  v1(3) = 1, v1(2) = 1, v1(1) = 1/2 * 4 + 1/2 * 1 = 2.5.
    # Two steps left: v2(3) = 1, v2(2) = 1 + 1/2 * v1(3) = 1.5, v2(1) = 2 + 1/2 (1 + 1/2 * v1(2)) = 2.75.
    # No limit:       v(3) = 1, v(2) = 1.5, v(1) = 2 + 1/2 (1 + 1/2 * 1.5) = 2.875.
    model, policy = walk_model(), deterministic_policy({1: 0, 2: 0, 3: 0})
    assert evaluate_policy(model, policy, 0.5, horizon=0) == {1: 0.0, 2: 0.0, 3: 0.0}
    assert evaluate_policy(model, policy, 0.5, horizon=1) == pytest.approx({1: 2.5, 2: 1.0, 3: 1.0}, abs=1e-12)
    assert evaluate_policy(model, policy, 0.5, horizon=2) == pytest.approx({1: 2.75, 2: 1.5, 3: 1.0}, abs=1e-12)
    assert evaluate_policy(model, policy, 0.5) == pytest.approx({1: 2.875, 2: 1.5, 3: 1.0}, abs=1e-12)
    assert expected_return(model, policy, 0.5, horizon=2) == pytest.approx(2.75, abs=1e-12)
    # Outcomes: within 1 step only the reward-4 end (1/2) has happened; within 3 steps every episode has ended.
    assert outcome_probabilities(model, policy, horizon=1) == pytest.approx({"win": 0.5, "unfinished": 0.5})
    assert outcome_probabilities(model, policy, horizon=3) == pytest.approx({"win": 1.0}, abs=1e-12)
    assert outcome_probabilities(model, policy, outcome=float) == pytest.approx({4.0: 0.5, 1.0: 0.5}, abs=1e-12)


def test_the_best_first_action_depends_on_the_horizon():
    # A: action 0 ends with 1 now; action 1 moves to B (reward 0), which ends with 3. gamma = 1.
    model = FiniteModel(
        states=["A", "B"], actions={"A": [0, 1], "B": [0]},
        transitions={("A", 0): [Transition(1.0, "end", 1.0, True)], ("A", 1): [Transition(1.0, "B", 0.0, False)],
                     ("B", 0): [Transition(1.0, "end", 3.0, True)]},
        start={"A": 1.0},
    ).validate()
    one_step = value_iteration(model, 1.0, horizon=1)
    assert one_step.policy["A"] == 0 and one_step.v["A"] == 1.0 and one_step.q[("A", 1)] == 0.0
    two_steps = value_iteration(model, 1.0, horizon=2)
    assert two_steps.policy["A"] == 1 and two_steps.v["A"] == 3.0
    assert value_iteration(model, 1.0).v["A"] == 3.0


def looping_model(loop_reward: float = 0.0) -> FiniteModel:
    """X: action 0 stays in X (reward `loop_reward`), action 1 ends with reward -1."""
    return FiniteModel(
        states=["X"], actions={"X": [0, 1]},
        transitions={("X", 0): [Transition(1.0, "X", loop_reward, False)],
                     ("X", 1): [Transition(1.0, "end", -1, True)]},
        start={"X": 1.0}, name="loop",
    ).validate()


def test_a_policy_that_never_ends_under_gamma_1_is_an_error():
    model, stay = looping_model(), deterministic_policy({"X": 0})
    for method in ("linear", "iterative", "auto"):
        with pytest.raises(RLTorchError, match="never terminates from state 'X' under gamma=1"):
            evaluate_policy(model, stay, 1.0, method=method)
    with pytest.raises(RLTorchError, match="never terminates"):
        expected_return(model, stay, 1.0)
    assert evaluate_policy(model, stay, 0.9) == {"X": 0.0}
    assert evaluate_policy(model, stay, 1.0, horizon=5) == {"X": 0.0}
    assert outcome_probabilities(model, stay) == {"loss": 0.0, "unfinished": 1.0}  # every possible label is listed
    # Staying forever (0) beats ending (-1): value iteration finds it, and its policy keeps looping.
    assert value_iteration(model, 1.0).policy == {"X": 0}


def test_value_iteration_that_cannot_converge_is_an_error():
    with pytest.raises(RLTorchError, match="value iteration did not reach tol.*give gamma < 1 or a horizon"):
        value_iteration(looping_model(loop_reward=1.0), 1.0, max_sweeps=1000)
    assert value_iteration(looping_model(loop_reward=1.0), 0.5).v["X"] == pytest.approx(2.0, abs=1e-12)


def random_model(num_states: int, num_actions: int, seed: int, end_probability: float = 0.2) -> FiniteModel:
    """Random dense dynamics over `num_states` states, every outcome list ending with some probability."""
    rng = np.random.default_rng(seed)
    transitions = {}
    for state, action in itertools.product(range(num_states), range(num_actions)):
        weights = rng.random(num_states) * (1 - end_probability) / num_states * 2
        weights *= (1 - end_probability) / weights.sum()
        outcomes = [Transition(float(p), int(s), float(rng.normal()), False) for s, p in enumerate(weights)]
        transitions[(state, action)] = outcomes + [Transition(end_probability, "end", float(rng.normal()), True)]
    return FiniteModel(
        states=list(range(num_states)), actions={s: list(range(num_actions)) for s in range(num_states)},
        transitions=transitions, start={0: 0.5, num_states - 1: 0.5}, name=f"random {seed}",
    ).validate()


@pytest.mark.parametrize("gamma", [0.9, 1.0])
def test_iterative_and_linear_evaluation_agree(gamma):
    model = random_model(30, 3, seed=1)
    policy = uniform_policy(model)
    linear = evaluate_policy(model, policy, gamma, method="linear")
    iterative = evaluate_policy(model, policy, gamma, method="iterative", tol=1e-14)
    assert max(abs(linear[s] - iterative[s]) for s in model.states) < 1e-11
    assert len(set(np.round(list(linear.values()), 6))) > 20  # the values are not all alike


@pytest.mark.parametrize("gamma", [0.8, 1.0])
def test_value_iteration_matches_the_best_of_every_deterministic_policy(gamma):
    model = random_model(4, 3, seed=7)
    best = {s: -np.inf for s in model.states}
    for actions in itertools.product(range(3), repeat=4):
        v = evaluate_policy(model, deterministic_policy(dict(enumerate(actions))), gamma, method="linear")
        best = {s: max(best[s], v[s]) for s in model.states}
    solution = value_iteration(model, gamma)
    assert solution.v == pytest.approx(best, abs=1e-12)
    q = q_from_v(model, solution.v, gamma)
    assert q == pytest.approx(solution.q, abs=1e-12)
    for state in model.states:
        assert max(q[(state, a)] for a in range(3)) == pytest.approx(solution.v[state], abs=1e-12)
        assert q[(state, solution.policy[state])] == pytest.approx(solution.v[state], abs=1e-12)
    plain = value_iteration(model, gamma, tol=1e-14, exact=False)
    assert max(abs(plain.v[s] - solution.v[s]) for s in model.states) < 1e-11


def test_bad_arguments():
    model = two_state_model()
    with pytest.raises(RLTorchError, match="gamma must be in"):
        value_iteration(model, 1.5)
    with pytest.raises(RLTorchError, match="method must be"):
        evaluate_policy(model, uniform_policy(model), 0.9, method="exact")
    with pytest.raises(RLTorchError, match="no action probabilities for state 'Y'"):
        evaluate_policy(model, {"X": {0: 1.0}}, 0.9)
    with pytest.raises(RLTorchError, match="state 'X': action probabilities sum to 0.5"):
        evaluate_policy(model, {"X": {0: 0.5}, "Y": {0: 1.0}}, 0.9)
    with pytest.raises(RLTorchError, match="state 'X', action 7: the action is not legal"):
        evaluate_policy(model, {"X": {7: 1.0}, "Y": {0: 1.0}}, 0.9)
    # expected_return only needs the states the policy reaches: ending at once in X never reaches Y.
    assert expected_return(model, {"X": {0: 1.0}}, 1.0) == 1.0
