"""Learning targets as pure functions of rewards and value estimates.

Each gives just the reward on a terminal step: there is nothing to bootstrap from.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from rltorch.policies import greedy


def sarsa_target(reward: float, next_value: float, gamma: float, terminated: bool) -> float:
    """SARSA: `r + gamma * Q(s', a')`, or `r` when the episode ended."""
    return reward if terminated else reward + gamma * next_value


def q_learning_target(reward: float, next_values: Sequence[float], gamma: float, terminated: bool) -> float:
    """Q-learning: `r + gamma * max_a' Q(s', a')` over the legal a', or `r` when the episode ended."""
    return reward if terminated else reward + gamma * max(next_values)


def expected_sarsa_target(
    reward: float, next_values: Sequence[float], probabilities: Sequence[float], gamma: float, terminated: bool
) -> float:
    """Expected SARSA: `r + gamma * sum_a' pi(a'|s') Q(s', a')`, or `r` when the episode ended."""
    if terminated:
        return reward
    return reward + gamma * sum(p * v for p, v in zip(probabilities, next_values, strict=True))


def epsilon_greedy_probabilities(values: Sequence[float], epsilon: float) -> list[float]:
    """pi(a|s) of every index under epsilon-greedy: epsilon / n each, plus (1 - epsilon) / k for each of the k best.

    Ties among the best share the greedy mass equally, as `Trainer.choose` breaks them uniformly at random.
    """
    best, n = max(values), len(values)
    ties = sum(1 for value in values if value == best)
    return [epsilon / n + ((1.0 - epsilon) / ties if value == best else 0.0) for value in values]


def expected_value(values: Sequence[float], probabilities: Sequence[float]) -> float:
    """`sum_a pi(a|s) Q(s, a)`: the state's value under the policy, what n-step Expected SARSA bootstraps from."""
    return sum(p * v for p, v in zip(probabilities, values, strict=True))


def double_q_learning_target(
    reward: float, own_values: Sequence[float], other_values: Sequence[float], gamma: float, terminated: bool,
    rng: random.Random,
) -> float:
    """Double Q-learning: `r + gamma * Q_other(s', argmax_a Q_own(s', a))`, or `r` at the end.

    `own_values` are the updated estimate's values of the legal a' (they pick the action), `other_values` the
    other estimate's (they value it). Ties in the argmax break uniformly at random with `rng`, as acting does
    (`policies.greedy`: one `rng.randrange(ties)`, drawn only when the episode goes on and several a' tie).
    """
    if terminated:
        return reward
    return reward + gamma * other_values[greedy(list(own_values), rng)]


def n_step_return(rewards: Sequence[float], gamma: float, bootstrap: float | None) -> float:
    """`R_1 + gamma R_2 + ... + gamma^(k-1) R_k + gamma^k * bootstrap` (no last term for None), computed from the end.

    With one reward this is `r + gamma * bootstrap` exactly, the one-step targets' float.
    """
    following = 0.0 if bootstrap is None else bootstrap
    for reward in reversed(rewards):
        following = reward + gamma * following
    return following


def monte_carlo_returns(rewards: Sequence[float], gamma: float) -> list[float]:
    """Returns `G_t = r_{t+1} + gamma * G_{t+1}` for every step, computed backward from the end."""
    returns = [0.0] * len(rewards)
    following = 0.0
    for t in range(len(rewards) - 1, -1, -1):
        following = rewards[t] + gamma * following
        returns[t] = following
    return returns
