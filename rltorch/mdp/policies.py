"""Stochastic policies over a `FiniteModel`: `{state: {action: probability}}` mappings and their array form."""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping

import numpy as np

from rltorch.errors import RLTorchError
from rltorch.mdp.arrays import ModelArrays
from rltorch.mdp.model import PROBABILITY_TOLERANCE, FiniteModel

PolicyDistribution = Mapping[Hashable, Mapping[int, float]]


def deterministic_policy(choice: Mapping[Hashable, int]) -> dict[Hashable, dict[int, float]]:
    """The policy that takes `choice[s]` with probability 1 in each state `s`."""
    return {state: {int(action): 1.0} for state, action in choice.items()}


def uniform_policy(model: FiniteModel) -> dict[Hashable, dict[int, float]]:
    """The equiprobable random policy over each decision state's legal actions."""
    return {s: {a: 1.0 / len(acts) for a in acts} for s in model.states if (acts := model.legal_actions(s))}


def epsilon_greedy_policy(
    q: Mapping[tuple[Hashable, int], float],
    model: FiniteModel,
    epsilon: float,
    *,
    default: float | None = 0.0,
    tie_tol: float = 0.0,
) -> dict[Hashable, dict[int, float]]:
    """Epsilon-greedy in `q`: epsilon spread over the legal actions, 1 - epsilon shared by the greedy ones.

    Greedy actions are those within `tie_tol` of the state's largest value; they share the greedy
    mass equally. A pair missing from `q` counts as `default` (an untouched table entry), or raises
    `RLTorchError` when `default` is None. States with no legal actions are skipped.
    """
    if not 0.0 <= epsilon <= 1.0:
        raise RLTorchError(f"epsilon must be in [0, 1], got {epsilon!r}")
    policy: dict[Hashable, dict[int, float]] = {}
    for state in model.states:
        actions = model.legal_actions(state)
        if not actions:
            continue
        values = [_q_value(q, state, action, default) for action in actions]
        best = max(values)
        greedy = [action for action, value in zip(actions, values, strict=True) if value >= best - tie_tol]
        policy[state] = {action: epsilon / len(actions) for action in actions}
        for action in greedy:
            policy[state][action] += (1.0 - epsilon) / len(greedy)
    return policy


def _q_value(q: Mapping[tuple[Hashable, int], float], state: Hashable, action: int, default: float | None) -> float:
    """q[(state, action)], or `default` when missing (an error when `default` is None)."""
    value = q.get((state, action), default)
    if value is None:
        raise RLTorchError(f"q has no value for state {state!r}, action {action!r}")
    return float(value)


def policy_array(model: FiniteModel, arrays: ModelArrays, policy: PolicyDistribution) -> tuple[np.ndarray, np.ndarray]:
    """`pi[S, A]` action probabilities and `covered[S]` (whether `policy` names the state; absorbing ones always do).

    Raises `RLTorchError` for an illegal action given positive probability, a probability that is
    negative or not finite, or a state's probabilities that do not sum to 1.
    """
    pi = np.zeros(arrays.legal.shape)
    covered = ~arrays.has_action
    for i, state in enumerate(model.states):
        legal = model.legal_actions(state)
        distribution = policy.get(state) if legal else None
        if distribution is None:
            continue
        covered[i] = True
        total = 0.0
        for action, probability in distribution.items():
            p = float(probability)
            if not math.isfinite(p) or p < 0:
                raise RLTorchError(f"policy: state {state!r}, action {action!r}: probability {probability!r} "
                                   f"is negative or not finite")
            if p > 0 and action not in legal:
                raise RLTorchError(f"policy: state {state!r}, action {action!r}: the action is not legal "
                                   f"(legal: {legal})")
            if p > 0:
                pi[i, action] += p
            total += p
        if abs(total - 1.0) > PROBABILITY_TOLERANCE:
            raise RLTorchError(f"policy: state {state!r}: action probabilities sum to {total!r}, not 1")
    return pi, covered


def require_covered(model: FiniteModel, covered: np.ndarray, needed: np.ndarray) -> None:
    """Raise `RLTorchError` naming the first needed decision state the policy does not cover."""
    missing = np.flatnonzero(needed & ~covered)
    if missing.size:
        state = model.states[int(missing[0])]
        raise RLTorchError(f"policy gives no action probabilities for state {state!r} "
                           f"(legal actions {model.legal_actions(state)})")
