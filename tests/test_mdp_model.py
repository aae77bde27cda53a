"""FiniteModel: validation errors, the array form, and a 3-state model solved by hand."""

from __future__ import annotations

import math

import numpy as np
import pytest

from rltorch.errors import RLTorchError
from rltorch.mdp import FiniteModel, Transition, deterministic_policy, evaluate_policy, q_from_v, value_iteration

GAMMA = 0.9


def chain_model() -> FiniteModel:
    """A: action 0 -> B (reward 1), action 1 ends (reward 5). B: action 0 -> C (reward 0) or back to A (reward 2),
    1/2 each. C: action 0 ends with reward 20."""
    return FiniteModel(
        states=["A", "B", "C"],
        actions={"A": [0, 1], "B": [0], "C": [0]},
        transitions={
            ("A", 0): [Transition(1.0, "B", 1.0, False)],
            ("A", 1): [Transition(1.0, "end", 5.0, True)],
            ("B", 0): [Transition(0.5, "C", 0.0, False), Transition(0.5, "A", 2.0, False)],
            ("C", 0): [Transition(1.0, "end", 20.0, True)],
        },
        start={"A": 1.0},
        name="chain",
    )


# By hand, gamma = 0.9, taking action 0 in A:
#   v(C) = 20
#   v(B) = 1/2 (0 + 0.9 * 20) + 1/2 (2 + 0.9 v(A)) = 10 + 0.45 v(A)
#   v(A) = 1 + 0.9 v(B) = 1 + 9 + 0.405 v(A)  =>  v(A) = 10 / 0.595 = 2000/119
#   v(B) = 10 + 0.45 * 2000/119 = 2090/119
#   q(A, 0) = 1 + 0.9 * 2090/119 = 2000/119 ~ 16.8 > q(A, 1) = 5, so action 0 is optimal.
V_A, V_B, V_C = 2000 / 119, 2090 / 119, 20.0


def test_chain_values_by_hand():
    model = chain_model().validate()
    v = evaluate_policy(model, deterministic_policy({"A": 0, "B": 0, "C": 0}), GAMMA)
    assert v["A"] == pytest.approx(V_A, abs=1e-12)
    assert v["B"] == pytest.approx(V_B, abs=1e-12)
    assert v["C"] == pytest.approx(V_C, abs=1e-12)
    q = q_from_v(model, v, GAMMA)
    assert q == pytest.approx({("A", 0): V_A, ("A", 1): 5.0, ("B", 0): V_B, ("C", 0): V_C}, abs=1e-12)


def test_chain_optimum_by_hand():
    solution = value_iteration(chain_model(), GAMMA)
    assert solution.v == pytest.approx({"A": V_A, "B": V_B, "C": V_C}, abs=1e-12)
    assert solution.q[("A", 1)] == pytest.approx(5.0, abs=1e-12)
    assert solution.optimal_actions == {"A": [0], "B": [0], "C": [0]}
    assert solution.policy == {"A": 0, "B": 0, "C": 0}


def test_ending_at_a_beats_the_loop_when_the_discount_is_steep():
    # gamma = 0.1: q(A, 0) = 1 + 0.1 v(B) with v(B) = 1/2 (0.1 * 20) + 1/2 (2 + 0.1 * 5) = 2.25, so q(A, 0) = 1.225 < 5.
    solution = value_iteration(chain_model(), 0.1)
    assert solution.policy["A"] == 1
    assert solution.v["A"] == pytest.approx(5.0, abs=1e-12)
    assert solution.q[("A", 0)] == pytest.approx(1.225, abs=1e-12)


def test_arrays_of_the_chain():
    arrays = chain_model().arrays()
    assert arrays.prob.shape == arrays.next_index.shape == arrays.reward.shape == arrays.terminal.shape == (3, 2, 2)
    np.testing.assert_array_equal(arrays.legal, [[True, True], [True, False], [True, False]])
    np.testing.assert_array_equal(arrays.start, [1.0, 0.0, 0.0])
    np.testing.assert_array_equal(arrays.prob[0], [[1.0, 0.0], [1.0, 0.0]])
    np.testing.assert_array_equal(arrays.prob[1], [[0.5, 0.5], [0.0, 0.0]])
    np.testing.assert_array_equal(arrays.next_index[1, 0], [2, 0])
    np.testing.assert_array_equal(arrays.reward[1, 0], [0.0, 2.0])
    assert not arrays.terminal[0, 0, 0] and arrays.next_index[0, 0, 0] == 1
    assert arrays.terminal[0, 1, 0] and arrays.reward[0, 1, 0] == 5.0
    assert arrays.terminal[1, 1].all() and arrays.terminal[0, 0, 1]  # padding and the illegal action end
    np.testing.assert_array_equal(arrays.expected_reward(), [[1.0, 5.0], [1.0, 0.0], [20.0, 0.0]])


def broken(edit) -> FiniteModel:
    model = chain_model()
    edit(model)
    return model


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda m: m.transitions.update({("B", 0): [Transition(0.5, "C", 0, False), Transition(0.4, "A", 2, False)]}),
         "state 'B', action 0: probabilities sum to 0.9"),
        (lambda m: m.transitions.update({("A", 1): [Transition(1.0, "nowhere", 5.0, False)]}),
         "state 'A', action 1: non-terminal next state 'nowhere' is not one of the model's states"),
        (lambda m: m.transitions.update({("C", 0): [Transition(1.0, "end", math.nan, True)]}),
         "state 'C', action 0: reward nan is not finite"),
        (lambda m: m.transitions.update({("A", 0): [Transition(-0.5, "B", 1, False), Transition(1.5, "C", 0, False)]}),
         "state 'A', action 0: probability -0.5 is negative"),
        (lambda m: m.transitions.update({("A", 0): [Transition(math.inf, "B", 1.0, False)]}),
         "state 'A', action 0: probability inf is negative or not finite"),
        (lambda m: m.transitions.pop(("C", 0)), "no transitions for state 'C', action 0"),
        (lambda m: m.actions.update({"C": [0, -1]}), "state 'C', action -1: actions must be non-negative ints"),
        (lambda m: setattr(m, "start", {"A": 0.5}), "start distribution sums to 0.5, not 1"),
        (lambda m: setattr(m, "start", {"Z": 1.0}), "start distribution names 'Z', which is not one of"),
        (lambda m: setattr(m, "start", {"A": 1.5, "B": -0.5}), "probability -0.5 of state 'B' is negative"),
    ],
)
def test_bad_models_name_the_state_and_action(edit, message):
    with pytest.raises(RLTorchError, match="chain: .*") as caught:
        broken(edit).validate()
    assert message in str(caught.value)


def test_unhashable_states_are_refused():
    with pytest.raises(RLTorchError, match="observations must be hashable.*state \\[1, 2\\].*list"):
        FiniteModel(states=[[1, 2]], actions={}, transitions={}, start={}).validate()
    model = chain_model()
    model.states.append({"a": 1})
    with pytest.raises(RLTorchError, match="observations must be hashable"):
        model.validate()


def test_duplicate_states_and_repeated_actions_are_refused():
    with pytest.raises(RLTorchError, match="duplicates"):
        broken(lambda m: m.states.append("A")).validate()
    with pytest.raises(RLTorchError, match="state 'A', action 0: the action is listed twice"):
        broken(lambda m: m.actions.update({"A": [0, 0]})).validate()


def test_validate_returns_the_model_and_terminal_next_states_need_not_be_states():
    model = chain_model()
    assert model.validate() is model
    assert "end" not in model.index and model.index == {"A": 0, "B": 1, "C": 2}


def test_an_absorbing_state_is_worth_nothing_and_ends_the_episode():
    # D has no actions: entering it is the end, so v(A) = 3 + gamma * 0 for any gamma, even gamma = 1.
    model = FiniteModel(
        states=["A", "D"], actions={"A": [0], "D": []},
        transitions={("A", 0): [Transition(1.0, "D", 3.0, False)]}, start={"A": 1.0},
    ).validate()
    assert model.arrays().terminal[0, 0, 0]
    assert evaluate_policy(model, deterministic_policy({"A": 0}), 1.0) == {"A": 3.0, "D": 0.0}
