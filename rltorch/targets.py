"""Learning targets as pure functions of rewards and value estimates, and the tabular update.

Each gives just the reward on a terminal step: there is nothing to bootstrap from. A truncated step
(a time limit) is not terminal: the trainers bootstrap from its next state.

Written once for both forms of an algorithm: the per-step trainers call these functions as Python;
`rltorch.engines.core` registers those named in `NUMBA_TARGETS` with numba, so the batched engine
compiles the same source (`values` there is a numpy array of the legal actions' values). Those keep
to what numba compiles: loops, no generators, no allocation.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from rltorch.policies import greedy

# The functions the batched engine compiles with numba (rltorch.engines.core registers them): a new one joins here.
NUMBA_TARGETS = ("sarsa_target", "q_learning_target", "epsilon_greedy_expectation", "expected_sarsa_target",
                 "n_step_return", "step_toward")


def sarsa_target(reward: float, next_value: float, gamma: float, terminated: bool) -> float:
    """SARSA: `r + gamma * Q(s', a')`, or `r` when the episode ended (any one-step `r + gamma * v` target)."""
    return reward if terminated else reward + gamma * next_value


def q_learning_target(reward: float, next_values: Sequence[float], gamma: float, terminated: bool) -> float:
    """Q-learning: `r + gamma * max_a' Q(s', a')` over the legal a', or `r` when the episode ended."""
    return reward if terminated else reward + gamma * max(next_values)


def epsilon_greedy_expectation(values: Sequence[float], epsilon: float) -> float:
    """`sum_a pi(a) v(a)` for epsilon-greedy pi over `values`: epsilon / n each, plus (1 - epsilon) / k for the k best.

    The floats of `epsilon_greedy_probabilities` summed left to right from 0 (what n-step Expected SARSA
    bootstraps from); ties among the best share the greedy mass, as `Trainer.choose` breaks them at random.
    """
    best = max(values)
    ties = 0
    for value in values:
        ties += value == best
    base = epsilon / len(values)
    greedy = base + (1.0 - epsilon) / ties
    total = 0.0
    for value in values:
        total += (greedy if value == best else base) * value
    return total


def expected_sarsa_target(reward: float, next_values: Sequence[float], epsilon: float, gamma: float,
                          terminated: bool) -> float:
    """Expected SARSA: `r + gamma * sum_a' pi(a'|s') Q(s', a')` for epsilon-greedy pi, or `r` when the episode ended."""
    return reward if terminated else reward + gamma * epsilon_greedy_expectation(next_values, epsilon)


def epsilon_greedy_probabilities(values: Sequence[float], epsilon: float) -> list[float]:
    """pi(a|s) of every index under epsilon-greedy: epsilon / n each, plus (1 - epsilon) / k for each of the k best.

    Ties among the best share the greedy mass equally, as `Trainer.choose` breaks them uniformly at random.
    """
    best, n = max(values), len(values)
    ties = sum(1 for value in values if value == best)
    return [epsilon / n + ((1.0 - epsilon) / ties if value == best else 0.0) for value in values]


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
    for index in range(len(rewards) - 1, -1, -1):
        following = rewards[index] + gamma * following
    return following


def step_toward(value: float, alpha: float, target: float) -> float:
    """The tabular update `value + alpha * (target - value)`, with `QTable.update`'s float operations."""
    return value + alpha * (target - value)


def monte_carlo_returns(rewards: Sequence[float], gamma: float) -> list[float]:
    """Returns `G_t = r_{t+1} + gamma * G_{t+1}` for every step, computed backward from the end."""
    returns = [0.0] * len(rewards)
    following = 0.0
    for t in range(len(rewards) - 1, -1, -1):
        following = rewards[t] + gamma * following
        returns[t] = following
    return returns
