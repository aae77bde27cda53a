"""Exact yardsticks for linear value functions on a finite model (Sutton & Barto chapter 9).

For a policy π on an episodic model: the on-policy distribution μ (the fraction of time steps spent in each
state, η = h + P_πᵀ η normalised, the book's (9.2)-(9.3)), the exact v_π, and for features X [S, d] the value
error VE(w) = Σ_s μ(s) (v_π(s) − x(s)·w)², the asymptote of gradient Monte Carlo (the μ-weighted projection of
v_π on the features, argmin VE) and the TD fixed point w_TD = A⁻¹ b with A = Xᵀ D (X − γ P_π X) and b = Xᵀ D r_π
(the book's (9.11)-(9.12));
a feature that no state of positive μ activates keeps weight 0 in both, and where the features are dependent
(tilings) the TD fixed point is the least-norm one (all give the same values). Pure linear algebra, like the rest
of `rltorch.mdp`.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from rltorch.errors import RLTorchError
from rltorch.features.base import Features, as_states
from rltorch.mdp.model import FiniteModel
from rltorch.mdp.policies import PolicyDistribution, policy_array, require_covered


@dataclass(frozen=True)
class PolicyChain:
    """A policy's Markov chain on the model: P_π [S, S] (continuing transitions only), r_π [S], the start
    distribution h [S], and the solutions that do not depend on features: v_π and the expected visits η [S]."""

    chain: np.ndarray
    reward: np.ndarray
    start: np.ndarray
    v: np.ndarray
    visits: np.ndarray


def policy_chain(model: FiniteModel, policy: PolicyDistribution, gamma: float = 1.0) -> PolicyChain:
    """`policy`'s chain on `model`, with v_π (discount `gamma`) and η = (I − P_πᵀ)⁻¹ h solved once."""
    arrays = model.arrays()
    pi, covered = policy_array(model, arrays, policy)
    require_covered(model, covered, np.ones(arrays.num_states, dtype=bool))
    weight = pi[:, :, None] * arrays.continuing
    chain = np.zeros((arrays.num_states, arrays.num_states))
    rows = np.broadcast_to(np.arange(arrays.num_states)[:, None, None], weight.shape)
    np.add.at(chain, (rows.reshape(-1), arrays.next_index.reshape(-1)), weight.reshape(-1))
    reward, start = (pi * arrays.expected_reward()).sum(axis=1), arrays.start.astype(np.float64)
    visits = _visits(chain, start)
    return PolicyChain(chain, reward, start, np.linalg.solve(np.eye(len(reward)) - gamma * chain, reward), visits)


def on_policy_distribution(model: FiniteModel, policy: PolicyDistribution) -> dict[Hashable, float]:
    """μ(s): the expected share of an episode's time steps spent in s (episodes must end with probability 1)."""
    visits = policy_chain(model, policy).visits
    return dict(zip(model.states, (visits / visits.sum()).tolist(), strict=True))


def _visits(chain: np.ndarray, start: np.ndarray) -> np.ndarray:
    """η = (I − P_πᵀ)⁻¹ h: the expected visits to each state in one episode."""
    try:
        visits = np.linalg.solve(np.eye(len(start)) - chain.T, start)
    except np.linalg.LinAlgError:
        raise RLTorchError("the policy's episodes do not end with probability 1: no on-policy distribution") from None
    return visits


@dataclass(frozen=True)
class LinearYardsticks:
    """v_π, μ, the features X of every state, the MC asymptote and TD fixed point of linear weights, and E[T]."""

    states: list[Hashable]
    v: np.ndarray
    mu: np.ndarray
    features: np.ndarray
    w_mc: np.ndarray
    w_td: np.ndarray
    steps: float  # the expected episode length: μ(s) * steps is the expected number of visits to s per episode
    a_td: np.ndarray  # A = Xᵀ D (X − γ P X), the TD update's expected matrix per step

    def expected_weights(self, method: str, alpha: float, steps: float) -> np.ndarray:
        """The mean-field expected weights after `steps` steps from 0: w* − (I − αA)^steps w*.

        Each step's expected update is α (b − A w), with A = XᵀDX, w* = w_mc for "mc" (gradient MC) and A = A_td,
        w* = w_td for "td"; the correlation of w_t with the current state (O(α)) is left out.
        """
        a, target = (self.quadratic()[0], self.w_mc) if method == "mc" else (self.a_td, self.w_td)
        decay = np.linalg.matrix_power(np.eye(len(target)) - alpha * a, int(round(steps)))
        return target - decay @ target

    def ve(self, weights: np.ndarray | torch.Tensor) -> float:
        """The value error Σ μ (v_π − Xw)² of `weights` [d] (or of each row of [runs, d], as an array)."""
        weights = np.asarray(torch.as_tensor(weights, dtype=torch.float64).cpu())
        errors = self.v[:, None] - self.features @ weights.reshape(-1, self.features.shape[1]).T
        result = self.mu @ errors**2
        return float(result[0]) if weights.ndim == 1 else result

    def quadratic(self, weighting: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, float]:
        """(M, c, e) with error(w) = wᵀMw − 2cᵀw + e, weighted by μ or by `weighting` (e.g. 1/S: the mean square)."""
        weighting = self.mu if weighting is None else weighting
        weighted = self.features * weighting[:, None]
        return weighted.T @ self.features, weighted.T @ self.v, float(weighting @ self.v**2)

    def scalars(self, weights: np.ndarray | torch.Tensor) -> dict[str, float]:
        """`exact/ve` of `weights`, with `exact/ve_mc_limit` and `exact/ve_td_fixed_point` beside it."""
        return {"exact/ve": self.ve(weights), "exact/ve_mc_limit": self.ve(self.w_mc),
                "exact/ve_td_fixed_point": self.ve(self.w_td)}

    def exact_eval(self, agent: Any) -> dict[str, float]:
        """A trainer's `exact_eval` hook: the scalars of the agent's linear value function (one weight row)."""
        return self.scalars(agent.value_fn.weights.reshape(-1))


def linear_yardsticks(model: FiniteModel, policy: PolicyDistribution, gamma: float, features: Features, *,
                      solved: PolicyChain | None = None) -> LinearYardsticks:
    """The exact v_π, μ, gradient-MC asymptote and TD fixed point of `features` under `policy` on `model`.

    `solved`, what `policy_chain(model, policy, gamma)` returned, saves solving the chain again for other features.
    """
    solved = policy_chain(model, policy, gamma) if solved is None else solved
    chain, reward, visits, v = solved.chain, solved.reward, solved.visits, solved.v
    mu = visits / visits.sum()
    x = np.asarray(features.encode(as_states(model.states)))
    used = np.flatnonzero((mu[:, None] * np.abs(x) > 0).any(axis=0))  # features never met keep weight 0
    w_mc, w_td = np.zeros(x.shape[1]), np.zeros(x.shape[1])
    x_used = x[:, used]
    w_mc[used] = np.linalg.lstsq(np.sqrt(mu)[:, None] * x_used, np.sqrt(mu) * v, rcond=None)[0]
    weighted, a_td = x_used * mu[:, None], np.zeros((x.shape[1], x.shape[1]))
    a_td[np.ix_(used, used)] = weighted.T @ (x_used - gamma * chain @ x_used)
    a_used, b_used = a_td[np.ix_(used, used)], weighted.T @ reward
    if np.linalg.matrix_rank(np.sqrt(mu)[:, None] * x_used) < len(used):
        # dependent features (tilings, a table's duplicates): the fixed points differ by X's null space on μ's
        # states, which changes no value there, so the least-norm one stands for them all
        w_td[used] = np.linalg.lstsq(a_used, b_used, rcond=None)[0]
    else:
        try:
            w_td[used] = np.linalg.solve(a_used, b_used)
        except np.linalg.LinAlgError:
            raise RLTorchError("A = Xᵀ D (X − γ P X) is singular for these features: no unique TD fixed point") \
                from None
    return LinearYardsticks(list(model.states), v, mu, x, w_mc, w_td, float(visits.sum()), a_td)
