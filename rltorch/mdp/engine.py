"""Array-level building blocks of the exact solvers: Bellman backups, the Markov chain of a policy, linear solves.

Value vectors have shape [S] or [S, L] (L independent reward signals evaluated at once, as the
outcome probabilities are). A policy is an array `pi[S, A]` of action probabilities.
"""

from __future__ import annotations

import numpy as np

from rltorch.errors import RLTorchError
from rltorch.mdp.arrays import ModelArrays

LINEAR_STATE_LIMIT = 3000
MAX_SWEEPS = 100_000
REFINEMENT_STEPS = 2


def backup(arrays: ModelArrays, v: np.ndarray, gamma: float, mean_reward: np.ndarray | None = None) -> np.ndarray:
    """q[S, A] (or [S, A, L]) = mean reward + gamma * the expected value of the next state (0 after the end)."""
    mean_reward = arrays.expected_reward() if mean_reward is None else mean_reward
    gathered = v[arrays.next_index]
    weights = arrays.continuing.reshape(arrays.prob.shape + (1,) * (v.ndim - 1))
    return mean_reward + gamma * (weights * gathered).sum(axis=2)


def attainable(tol: float, values: np.ndarray) -> float:
    """`tol`, raised to a few units in the last place of the largest value so that sweeps can reach it."""
    return max(tol, 16 * float(np.spacing(np.max(np.abs(values), initial=1.0))))


class Chain:
    """The Markov chain a policy induces: per-state outcome weights and targets, flattened over (action, outcome)."""

    def __init__(self, arrays: ModelArrays, pi: np.ndarray) -> None:
        num_states = arrays.num_states
        self.num_states = num_states
        self.weights = (pi[:, :, None] * arrays.continuing).reshape(num_states, -1)
        self.targets = arrays.next_index.reshape(num_states, -1)
        ends = (pi[:, :, None] * arrays.prob * arrays.terminal).sum(axis=(1, 2)) > 0
        self.ends = ends | ~arrays.has_action

    def expectation(self, v: np.ndarray) -> np.ndarray:
        """E[v(next state)] from each state, counting 0 after the end."""
        weights = self.weights.reshape(self.weights.shape + (1,) * (v.ndim - 1))
        return (weights * v[self.targets]).sum(axis=1)

    def matrix(self) -> np.ndarray:
        """The dense [S, S] matrix of continuing transition probabilities."""
        n = self.num_states
        rows = np.repeat(np.arange(n), self.targets.shape[1])
        flat = rows * n + self.targets.ravel()
        return np.bincount(flat, weights=self.weights.ravel(), minlength=n * n).reshape(n, n)

    def can_finish(self) -> np.ndarray:
        """[S] bool: from which states the episode ends with positive probability (an absorbing state counts)."""
        sources, targets = self._edges()
        return _closure(self.ends, targets, sources, self.num_states)

    def reachable(self, seeds: np.ndarray) -> np.ndarray:
        """[S] bool: the states reachable from `seeds` (included) before the episode ends."""
        sources, targets = self._edges()
        return _closure(seeds, sources, targets, self.num_states)

    def _edges(self) -> tuple[np.ndarray, np.ndarray]:
        """Source and target state of every positive-probability continuing transition."""
        rows, columns = np.nonzero(self.weights > 0)
        return rows, self.targets[rows, columns]


def _closure(seeds: np.ndarray, tails: np.ndarray, heads: np.ndarray, n: int) -> np.ndarray:
    """Mark `seeds` and everything reachable from them along the edges tail -> head."""
    order = np.argsort(tails, kind="stable")
    bounds = np.searchsorted(tails[order], np.arange(n + 1)).tolist()
    heads_sorted = heads[order].tolist()
    marked = seeds.copy()
    stack = np.flatnonzero(seeds).tolist()
    while stack:
        node = stack.pop()
        for head in heads_sorted[bounds[node]:bounds[node + 1]]:
            if not marked[head]:
                marked[head] = True
                stack.append(head)
    return marked


def solve_linear(chain: Chain, reward: np.ndarray, gamma: float, within: np.ndarray,
                 outside: np.ndarray) -> np.ndarray:
    """Solve v = reward + gamma * P v exactly on the states `within`; other states keep the values `outside`."""
    matrix = chain.matrix()
    inner, outer = np.flatnonzero(within), np.flatnonzero(~within)
    rhs = reward[inner] + gamma * (matrix[np.ix_(inner, outer)] @ outside[outer])
    system = np.eye(inner.size) - gamma * matrix[np.ix_(inner, inner)]
    values = outside.astype(float)
    try:
        solution = np.linalg.solve(system, rhs)
        for _ in range(REFINEMENT_STEPS):  # long episodes under gamma = 1 make the system ill-conditioned
            solution = solution + np.linalg.solve(system, rhs - system @ solution)
    except np.linalg.LinAlgError as error:
        raise RLTorchError(f"the policy's linear system is singular ({error}); give gamma < 1 or a horizon") from None
    values[inner] = solution
    return values


def solve_iterative(chain: Chain, reward: np.ndarray, gamma: float, within: np.ndarray, outside: np.ndarray,
                    tol: float, max_sweeps: int = MAX_SWEEPS) -> np.ndarray:
    """Sweep v <- reward + gamma * P v on the states `within` until no value moves by more than `tol`."""
    mask = within.reshape(within.shape + (1,) * (reward.ndim - 1))
    values = np.where(mask, 0.0, outside)
    for _ in range(max_sweeps):
        updated = np.where(mask, reward + gamma * chain.expectation(values), outside)
        change = float(np.max(np.abs(updated - values), initial=0.0))
        values = updated
        if change <= attainable(tol, values):
            return values
    raise RLTorchError(f"iterative policy evaluation did not reach tol={tol} in {max_sweeps} sweeps "
                       f"(last change {change:.3g})")


def solve_horizon(chain: Chain, reward: np.ndarray, gamma: float, horizon: int) -> np.ndarray:
    """The value of at most `horizon` steps (no reward after the cut) by `horizon` backward sweeps."""
    values = np.zeros_like(reward, dtype=float)
    for _ in range(horizon):
        values = reward + gamma * chain.expectation(values)
    return values


def solve_chain(chain: Chain, reward: np.ndarray, gamma: float, *, method: str, tol: float,
                within: np.ndarray | None = None, outside: np.ndarray | None = None) -> np.ndarray:
    """Dispatch to the linear solve or the sweeps (`method` "auto" picks linear up to `LINEAR_STATE_LIMIT` states)."""
    within = np.ones(chain.num_states, dtype=bool) if within is None else within
    outside = np.zeros_like(reward, dtype=float) if outside is None else outside
    if method == "auto":
        method = "linear" if chain.num_states <= LINEAR_STATE_LIMIT else "iterative"
    if method == "linear":
        return solve_linear(chain, reward, gamma, within, outside)
    if method == "iterative":
        return solve_iterative(chain, reward, gamma, within, outside, tol)
    raise RLTorchError(f"method must be 'auto', 'linear' or 'iterative', got {method!r}")
