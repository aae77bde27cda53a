"""Models of Gymnasium's toy-text envs, checked against known optima and independent brute-force methods."""

from __future__ import annotations

from collections import deque

import gymnasium as gym
import pytest

from rltorch.errors import RLTorchError
from rltorch.mdp import (
    FiniteModel,
    Transition,
    deterministic_policy,
    evaluate_policy,
    expected_return,
    from_gymnasium,
    model_of,
    outcome_probabilities,
    value_iteration,
)

ENVS = [
    ("FrozenLake-v1", {}, 16, 100),
    ("FrozenLake-v1", {"is_slippery": False}, 16, 100),
    ("FrozenLake-v1", {"map_name": "8x8"}, 64, 100),
    ("FrozenLake8x8-v1", {}, 64, 200),
    ("CliffWalking-v1", {}, 48, None),
    ("Taxi-v4", {}, 500, 200),
]


@pytest.mark.parametrize(("env_id", "kwargs", "num_states", "horizon"), ENVS)
def test_toy_text_models_validate(env_id, kwargs, num_states, horizon):
    env = gym.make(env_id, **kwargs)
    model = from_gymnasium(env)
    assert model.validate() is model
    assert model.states == list(range(num_states)) and model.horizon == horizon and model.name == env_id
    assert all(model.actions[s] == list(range(env.action_space.n)) for s in model.states)
    assert model_of(env).transitions == model.transitions


def test_start_distributions_and_merged_outcomes():
    assert from_gymnasium(gym.make("FrozenLake-v1")).start == {0: 1.0}
    assert from_gymnasium(gym.make("CliffWalking-v1")).start == {36: 1.0}
    taxi = from_gymnasium(gym.make("Taxi-v4"))
    assert len(taxi.start) == 25 * 4 * 3 and all(p == pytest.approx(1 / 300) for p in taxi.start.values())
    # Slippery LEFT in the top-left corner: down to 4 (1/3), and left or up bump back into 0 (2/3, merged).
    lake = from_gymnasium(gym.make("FrozenLake-v1"))
    merged = [Transition(2 / 3, 0, 0.0, False), Transition(1 / 3, 4, 0.0, False)]
    assert [tuple(t) for t in lake.transitions[(0, 0)]] == [pytest.approx(tuple(t)) for t in merged]
    with pytest.raises(RLTorchError, match="fickle passenger"):
        from_gymnasium(gym.make("Taxi-v4", fickle_passenger=True))


def test_model_of_prefers_the_envs_own_model():
    own = FiniteModel(states=[0], actions={0: [0]}, transitions={(0, 0): [Transition(1.0, 1, 1.0, True)]},
                      start={0: 1.0})

    class WithModel:
        spec = type("Spec", (), {"max_episode_steps": 7})()
        unwrapped = property(lambda self: self)
        P = {0: {0: [(1.0, 0, 0.0, True)]}}

        def model(self):
            return own

    assert model_of(WithModel()) is own and own.horizon == 7
    assert model_of(object()) is None


def test_deterministic_frozen_lake_reaches_the_goal_surely():
    model = from_gymnasium(gym.make("FrozenLake-v1", is_slippery=False))
    solution = value_iteration(model, 1.0)
    assert solution.v[0] == 1.0
    # From the corner all four moves keep the value 1 (two of them bump into the wall and stay) ...
    assert solution.optimal_actions[0] == [0, 1, 2, 3]
    # ... but the policy picks one that reaches the goal (DOWN), so it is a proper policy under gamma = 1.
    policy = deterministic_policy(solution.policy)
    assert solution.policy[0] == 1
    assert expected_return(model, policy, 1.0) == 1.0
    assert outcome_probabilities(model, policy, outcome=goal_or_hole) == {"goal": 1.0, "hole": 0.0}
    # The shortest safe path takes 6 steps: within 5 steps nothing has ended yet.
    assert expected_return(model, policy, 1.0, horizon=6) == 1.0
    assert outcome_probabilities(model, policy, horizon=5, outcome=goal_or_hole) == {"goal": 0.0, "hole": 0.0,
                                                                                     "unfinished": 1.0}


def goal_or_hole(reward: float) -> str:
    return "goal" if reward > 0 else "hole"


def test_slippery_frozen_lake_optimum():
    env = gym.make("FrozenLake-v1")
    model = from_gymnasium(env)
    solution = value_iteration(model, 1.0)
    assert solution.v[0] == pytest.approx(14 / 17, abs=1e-12)  # 0.823529..., numerically 14/17
    plain = value_iteration(model, 1.0, tol=1e-15, exact=False)
    assert max(abs(plain.v[s] - solution.v[s]) for s in model.states) < 1e-12
    policy = deterministic_policy(solution.policy)
    linear = evaluate_policy(model, policy, 1.0, method="linear")
    iterative = evaluate_policy(model, policy, 1.0, method="iterative", tol=1e-15)
    assert max(abs(linear[s] - iterative[s]) for s in model.states) < 1e-12
    assert outcome_probabilities(model, policy, outcome=goal_or_hole) == pytest.approx(
        {"goal": 14 / 17, "hole": 3 / 17}, abs=1e-12)
    # Within the env's 100 steps: the stationary policy, forward-propagated on P by hand, and the best
    # non-stationary play by a memoised recursion on P (Gymnasium's registry notes "optimum = 0.74").
    within = expected_return(model, policy, 1.0, horizon=100)
    assert within == pytest.approx(success_within(env.unwrapped.P, solution.policy, 0, 100), abs=1e-12)
    assert within == pytest.approx(0.74016489775870, abs=1e-12)
    best_within = value_iteration(model, 1.0, horizon=100).v[0]
    assert best_within == pytest.approx(best_success_within(env.unwrapped.P, 100), abs=1e-12)
    assert best_within == pytest.approx(0.74419028782927, abs=1e-12)


def test_frozen_lake_8x8_optimum():
    env = gym.make("FrozenLake8x8-v1")
    model = from_gymnasium(env)
    # Without a time limit the goal can be reached surely (hugging the walls); with the 200 steps
    # of the env the best play succeeds 91.3% of the time (the registry notes "optimum = 0.91").
    assert value_iteration(model, 1.0).v[0] == pytest.approx(1.0, abs=1e-12)
    best_within = value_iteration(model, 1.0, horizon=200).v[0]
    assert best_within == pytest.approx(best_success_within(env.unwrapped.P, 200), abs=1e-12)
    assert best_within == pytest.approx(0.91322015020163, abs=1e-12)


def success_within(table, policy, start, steps):
    """Probability of reaching the goal within `steps`, pushing the state distribution forward through P."""
    distribution, success = {start: 1.0}, 0.0
    for _ in range(steps):
        following = {}
        for state, mass in distribution.items():
            for probability, next_state, reward, terminated in table[state][policy[state]]:
                if terminated:
                    success += mass * probability * reward
                else:
                    following[next_state] = following.get(next_state, 0.0) + mass * probability
        distribution = following
    return success


def best_success_within(table, steps):
    """The best probability of reaching the goal from state 0 within `steps`, by backward induction on P's dicts."""
    best = dict.fromkeys(table, 0.0)
    for _ in range(steps):
        best = {state: max(sum(p * (r if done else r + best[s2]) for p, s2, r, done in outcomes)
                           for outcomes in actions.values())
                for state, actions in table.items()}
    return best[0]


def test_cliff_walking_optimum_is_minus_13():
    model = from_gymnasium(gym.make("CliffWalking-v1"))
    solution = value_iteration(model, 1.0)
    # Up, eleven steps right along the cliff edge, down: 13 steps at -1 each.
    assert solution.v[36] == -13.0
    assert expected_return(model, deterministic_policy(solution.policy), 1.0) == -13.0


def taxi_shortest_returns(env):
    """Each start state's optimal return by breadth-first search on P: 20 for the drop-off, -1 per earlier step."""
    table = env.unwrapped.P
    steps, frontier, before = {}, deque(), {s: set() for s in table}
    for state, actions in table.items():
        for outcomes in actions.values():
            for _, next_state, _, terminated in outcomes:
                if terminated:
                    steps.setdefault(state, 1)
                elif next_state != state:
                    before[next_state].add(state)
    frontier.extend(steps)
    while frontier:
        state = frontier.popleft()
        for earlier in before[state]:
            if earlier not in steps:
                steps[earlier] = steps[state] + 1
                frontier.append(earlier)
    return {state: 20 - (steps[state] - 1) for state in table}


def test_taxi_optimum_matches_breadth_first_search():
    env = gym.make("Taxi-v4")
    model = from_gymnasium(env)
    shortest = taxi_shortest_returns(env)
    expected = sum(p * shortest[s] for s, p in model.start.items())
    solution = value_iteration(model, 1.0, tol=1e-10)
    assert all(solution.v[s] == pytest.approx(shortest[s], abs=1e-9) for s in model.states)
    assert expected == pytest.approx(7.93, abs=1e-12)
    policy = deterministic_policy(solution.policy)
    assert expected_return(model, policy, 1.0) == pytest.approx(expected, abs=1e-12)
    # Every start needs at most 18 steps, so the 200-step limit changes nothing.
    assert expected_return(model, policy, 1.0, horizon=200) == pytest.approx(expected, abs=1e-12)
    best_within = value_iteration(model, 1.0, horizon=200)
    assert sum(p * best_within.v[s] for s, p in model.start.items()) == pytest.approx(expected, abs=1e-12)
    assert outcome_probabilities(model, policy) == pytest.approx({"win": 1.0}, abs=1e-12)
