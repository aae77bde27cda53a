"""Exact solvers for a `FiniteModel`: policy evaluation, value iteration finished by policy iteration, outcomes.

Policies are `{state: {action: probability}}` mappings (see `rltorch.mdp.policies`). Values are
expected discounted returns; a terminal transition's reward counts and nothing after it does.
With `horizon=H` an episode is cut after H steps with no further reward. With gamma = 1 and no
horizon a policy must end every episode, or the solvers raise `RLTorchError`.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass

import numpy as np

from rltorch.errors import RLTorchError
from rltorch.mdp.arrays import ModelArrays
from rltorch.mdp.engine import (
    LINEAR_STATE_LIMIT,
    MAX_SWEEPS,
    Chain,
    attainable,
    backup,
    solve_chain,
    solve_horizon,
    solve_linear,
)
from rltorch.mdp.greedy import best_values, candidate_actions, greedy_choice, one_hot_policy
from rltorch.mdp.model import FiniteModel
from rltorch.mdp.policies import (
    PolicyDistribution,
    deterministic_policy,
    epsilon_greedy_policy,
    policy_array,
    require_covered,
)

__all__ = ["Solution", "deterministic_policy", "epsilon_greedy_policy", "evaluate_policy", "expected_return",
           "outcome_probabilities", "q_from_v", "value_iteration"]

POLISH_FROM = 1e-8
POLISH_ROUNDS = 50
POLISH_SWEEPS = 10_000
UNFINISHED_TOLERANCE = 1e-12


@dataclass
class Solution:
    """Optimal values, q values, every optimal action (within `tie_tol`) and one optimal policy.

    `policy[s]` is the lowest-numbered optimal action, except that with gamma = 1 it is the
    lowest-numbered one that keeps every episode finishing. With a horizon H all of it describes
    the first decision, with H steps to go.
    """

    v: dict[Hashable, float]
    q: dict[tuple[Hashable, int], float]
    optimal_actions: dict[Hashable, list[int]]
    policy: dict[Hashable, int]


def evaluate_policy(model: FiniteModel, policy: PolicyDistribution, gamma: float, *, method: str = "auto",
                    tol: float = 1e-12, horizon: int | None = None) -> dict[Hashable, float]:
    """v_pi of every state: a linear solve ("linear"), sweeps until no value moves by `tol` ("iterative"), or either.

    "auto" solves linearly up to `LINEAR_STATE_LIMIT` states. With `horizon` the value of at most
    that many steps, by backward sweeps. The policy must cover every decision state.
    """
    arrays = model.arrays()
    pi, covered = policy_array(model, arrays, policy)
    require_covered(model, covered, np.ones(arrays.num_states, dtype=bool))
    chain = Chain(arrays, pi)
    reward = (pi * arrays.expected_reward()).sum(axis=1)
    values = _policy_values(model, chain, reward, gamma, method=method, tol=tol, horizon=horizon)
    return dict(zip(model.states, values.tolist(), strict=True))


def expected_return(model: FiniteModel, policy: PolicyDistribution, gamma: float, *,
                    horizon: int | None = None) -> float:
    """The expected return from the start distribution (the policy need only cover the states it can reach)."""
    arrays = model.arrays()
    pi, chain, within = _reachable_chain(model, arrays, policy)
    reward = (pi * arrays.expected_reward()).sum(axis=1)
    values = _policy_values(model, chain, reward, gamma, method="auto", tol=1e-14, horizon=horizon, within=within)
    return float(arrays.start @ values)


def q_from_v(model: FiniteModel, v: Mapping[Hashable, float], gamma: float) -> dict[tuple[Hashable, int], float]:
    """q(s, a) = E[r + gamma * v(s')] for every legal pair, from state values `v` (0 after the end)."""
    _check_gamma(gamma)
    arrays = model.arrays()
    missing = [state for state in model.states if state not in v]
    if missing:
        raise RLTorchError(f"{model.name}: v has no value for state {missing[0]!r}")
    vector = np.array([float(v[state]) for state in model.states])
    return _q_dict(model, arrays, backup(arrays, vector, gamma))


def value_iteration(model: FiniteModel, gamma: float, *, tol: float = 1e-12, horizon: int | None = None,
                    tie_tol: float = 1e-9, exact: bool = True, max_sweeps: int = MAX_SWEEPS) -> Solution:
    """The optimal values and actions: value iteration, then (when `exact`) policy iteration with linear solves.

    Without a horizon and with `exact` (models up to `LINEAR_STATE_LIMIT` states), sweeps run
    until no value moves by more than 1e-8 (at most 10,000 sweeps), then exact evaluation and
    greedy improvement alternate until the policy is stable, so q* is exact to rounding. Plain
    sweeps until no value moves by more than `tol` follow only if that left a larger Bellman
    residual (and are all there is without `exact`), at most `max_sweeps` of them.
    With `horizon=H`, H backward sweeps give the optimum of at most H steps.
    """
    _check_gamma(gamma)
    _check_horizon(horizon)
    _check_tolerance("tol", tol)
    _check_tolerance("tie_tol", tie_tol, zero_allowed=True)
    arrays = model.arrays()
    mean = arrays.expected_reward()
    if horizon is not None:
        values, q = np.zeros(arrays.num_states), np.where(arrays.legal, 0.0, -np.inf)
        for _ in range(horizon):
            q = backup(arrays, values, gamma, mean)
            values = best_values(arrays, q)
    else:
        values = np.zeros(arrays.num_states)
        if exact and arrays.num_states <= LINEAR_STATE_LIMIT:
            values = _sweep(model, arrays, mean, gamma, max(tol, POLISH_FROM), min(max_sweeps, POLISH_SWEEPS),
                            values, must_converge=False)
            values = _policy_iteration(arrays, mean, gamma, values, tie_tol)
        if _residual(arrays, mean, gamma, values) > attainable(tol, values):
            values = _sweep(model, arrays, mean, gamma, tol, max_sweeps, values)
        q = backup(arrays, values, gamma, mean)
    return _solution(model, arrays, q, values, tie_tol, finishing=gamma == 1.0 and horizon is None)


def outcome_probabilities(model: FiniteModel, policy: PolicyDistribution, *,
                          outcome: Callable[[float], Hashable] | None = None,
                          horizon: int | None = None) -> dict[Hashable, float]:
    """The probability of each episode outcome from the start distribution, labelled by `outcome(reward)`.

    The label of an episode is `outcome` of its terminal transition's reward (default: "win" > 0,
    "draw" == 0, "loss" < 0). The probability of never ending (within `horizon` steps, if given)
    is reported as "unfinished" when above 1e-12.
    """
    _check_horizon(horizon)
    arrays = model.arrays()
    pi, chain, within = _reachable_chain(model, arrays, policy)
    labels, indicator = _label_indicators(arrays, outcome or sign_outcome)
    reward = (pi[:, :, None] * arrays.expected_reward(indicator)).sum(axis=1)
    if not labels:
        probabilities = np.zeros(0)
    elif horizon is not None:
        probabilities = arrays.start @ solve_horizon(chain, reward, 1.0, horizon)
    else:
        within &= chain.can_finish()
        probabilities = arrays.start @ solve_chain(chain, reward, 1.0, method="auto", tol=1e-15, within=within)
    result = {label: float(p) for label, p in zip(labels, probabilities, strict=True)}
    unfinished = 1.0 - float(probabilities.sum())
    if unfinished > UNFINISHED_TOLERANCE:
        result["unfinished"] = unfinished
    return result


def sign_outcome(reward: float) -> str:
    """ "win" for a positive final reward, "draw" for zero, "loss" for a negative one."""
    return "win" if reward > 0 else "loss" if reward < 0 else "draw"


def _check_gamma(gamma: float) -> None:
    """gamma must be a number in [0, 1]."""
    if isinstance(gamma, bool) or not (isinstance(gamma, numbers.Real) and 0.0 <= gamma <= 1.0):
        raise RLTorchError(f"gamma must be in [0, 1], got {gamma!r}")


def _check_tolerance(name: str, tol: float, *, zero_allowed: bool = False) -> None:
    """A tolerance must be a positive (or, where allowed, zero) finite number."""
    if isinstance(tol, bool) or not (isinstance(tol, numbers.Real) and math.isfinite(tol)) or tol < 0 or (
            tol == 0 and not zero_allowed):
        raise RLTorchError(f"{name} must be {'non-negative' if zero_allowed else 'positive'}, got {tol!r}")


def _check_horizon(horizon: int | None) -> None:
    """A horizon is None or a non-negative int."""
    if horizon is not None and (isinstance(horizon, bool) or not isinstance(horizon, int) or horizon < 0):
        raise RLTorchError(f"horizon must be None or a non-negative int, got {horizon!r}")


def _policy_values(model: FiniteModel, chain: Chain, reward: np.ndarray, gamma: float, *, method: str, tol: float,
                   horizon: int | None, within: np.ndarray | None = None) -> np.ndarray:
    """The policy's values on `within` (default: every state), checking gamma, horizon and termination."""
    _check_gamma(gamma)
    _check_horizon(horizon)
    if method not in ("auto", "linear", "iterative"):
        raise RLTorchError(f"method must be 'auto', 'linear' or 'iterative', got {method!r}")
    _check_tolerance("tol", tol)
    if horizon is not None:
        return solve_horizon(chain, reward, gamma, horizon)
    within = np.ones(chain.num_states, dtype=bool) if within is None else within
    if gamma == 1.0:
        stuck = np.flatnonzero(within & ~chain.can_finish())
        if stuck.size:
            raise RLTorchError(f"{model.name}: the policy never terminates from state {model.states[stuck[0]]!r} "
                               f"under gamma=1; give gamma < 1 or a horizon")
    return solve_chain(chain, reward, gamma, method=method, tol=tol, within=within)


def _reachable_chain(model: FiniteModel, arrays: ModelArrays,
                     policy: PolicyDistribution) -> tuple[np.ndarray, Chain, np.ndarray]:
    """The policy array, its chain, and the states it reaches from the start (each of which it must cover)."""
    pi, covered = policy_array(model, arrays, policy)
    chain = Chain(arrays, pi)
    within = chain.reachable(arrays.start > 0)
    require_covered(model, covered, within)
    return pi, chain, within


def _label_indicators(arrays: ModelArrays, outcome: Callable[[float], Hashable]) -> tuple[list, np.ndarray]:
    """The outcome labels (best reward first) and [S, A, K, L] indicators of the terminal outcomes with each label."""
    ends = arrays.terminal & (arrays.prob > 0) & arrays.legal[:, :, None]
    rewards, inverse = np.unique(arrays.reward[ends], return_inverse=True)
    labels: list[Hashable] = []
    label_index = np.zeros(rewards.size, dtype=np.int64)
    for position in range(rewards.size - 1, -1, -1):
        label = outcome(float(rewards[position]))
        if label not in labels:
            labels.append(label)
        label_index[position] = labels.index(label)
    indicator = np.zeros(arrays.prob.shape + (len(labels),))
    indicator[(*np.nonzero(ends), label_index[inverse])] = 1.0
    return labels, indicator


def _sweep(model: FiniteModel, arrays: ModelArrays, mean: np.ndarray, gamma: float, tol: float, max_sweeps: int,
           values: np.ndarray, *, must_converge: bool = True) -> np.ndarray:
    """Value iteration sweeps from `values` until no value moves by more than `tol` (or `max_sweeps` are done)."""
    change = math.inf
    for _ in range(max_sweeps):
        updated = best_values(arrays, backup(arrays, values, gamma, mean))
        change = float(np.max(np.abs(updated - values), initial=0.0))
        if not math.isfinite(change):
            raise RLTorchError(f"{model.name}: value iteration diverged under gamma={gamma}")
        values = updated
        if change <= attainable(tol, values):
            return values
    if not must_converge:
        return values
    raise RLTorchError(f"{model.name}: value iteration did not reach tol={tol} in {max_sweeps} sweeps (last change "
                       f"{change:.3g}); with gamma=1 some policy may collect reward forever: "
                       f"give gamma < 1 or a horizon")


def _policy_iteration(arrays: ModelArrays, mean: np.ndarray, gamma: float, values: np.ndarray,
                      tie_tol: float) -> np.ndarray:
    """Alternate exact evaluation of the greedy choice and improvement until the choice is stable."""
    start_values, start_residual = values, _residual(arrays, mean, gamma, values)
    choice = None
    for round_index in range(POLISH_ROUNDS):
        q = backup(arrays, values, gamma, mean)
        keep_tol = 1e-12 * max(1.0, float(np.max(np.abs(values), initial=0.0)))
        candidates = candidate_actions(arrays, q, tie_tol if round_index == 0 else keep_tol)
        new_choice, settled = greedy_choice(arrays, q, candidates, finishing=gamma == 1.0, by_value=True,
                                            previous=choice, keep_tol=keep_tol)
        if choice is not None and np.array_equal(new_choice, choice):
            break
        choice = new_choice
        rows = np.arange(arrays.num_states)
        reward = np.where(arrays.has_action, mean[rows, choice], 0.0)
        try:
            evaluated = solve_linear(Chain(arrays, one_hot_policy(arrays, choice)), reward, gamma, settled, values)
        except RLTorchError:
            break
        settled_down = round_index > 0 and np.max(np.abs(evaluated - values)) <= attainable(0.0, values)
        values = evaluated
        if settled_down:  # a new choice among exact ties: the values no longer move
            break
    return values if _residual(arrays, mean, gamma, values) <= start_residual else start_values


def _residual(arrays: ModelArrays, mean: np.ndarray, gamma: float, values: np.ndarray) -> float:
    """The largest Bellman optimality error of `values`."""
    return float(np.max(np.abs(best_values(arrays, backup(arrays, values, gamma, mean)) - values), initial=0.0))


def _q_dict(model: FiniteModel, arrays: ModelArrays, q: np.ndarray) -> dict[tuple[Hashable, int], float]:
    """q as a dict over the legal (state, action) pairs."""
    return {(model.states[s], int(a)): float(q[s, a]) for s, a in zip(*np.nonzero(arrays.legal), strict=True)}


def _solution(model: FiniteModel, arrays: ModelArrays, q: np.ndarray, values: np.ndarray, tie_tol: float, *,
              finishing: bool) -> Solution:
    """Package q and v with the optimal actions within `tie_tol` and one (finishing, when gamma = 1) policy."""
    optimal = candidate_actions(arrays, q, tie_tol)
    choice, _ = greedy_choice(arrays, q, optimal, finishing=finishing, by_value=False)
    decisions = np.flatnonzero(arrays.has_action)
    return Solution(
        v=dict(zip(model.states, values.tolist(), strict=True)),
        q=_q_dict(model, arrays, q),
        optimal_actions={model.states[s]: np.flatnonzero(optimal[s]).tolist() for s in decisions},
        policy={model.states[s]: int(choice[s]) for s in decisions},
    )
