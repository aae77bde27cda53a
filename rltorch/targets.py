"""Learning targets as pure functions of rewards and value estimates.

Each gives just the reward on a terminal step: there is nothing to bootstrap from.
"""

from __future__ import annotations

from collections.abc import Sequence


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


def monte_carlo_returns(rewards: Sequence[float], gamma: float) -> list[float]:
    """Returns `G_t = r_{t+1} + gamma * G_{t+1}` for every step, computed backward from the end."""
    returns = [0.0] * len(rewards)
    following = 0.0
    for t in range(len(rewards) - 1, -1, -1):
        following = rewards[t] + gamma * following
        returns[t] = following
    return returns
