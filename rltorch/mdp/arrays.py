"""The padded-array form of a `FiniteModel`, read by the vectorised solvers and batched engines.

With S states (in `model.states` order), A = largest action + 1 and K = the most outcomes any
legal (state, action) pair has, the outcomes of pair (s, a) fill slots k = 0..K-1 of
`prob[s, a, k]`, `next_index[s, a, k]`, `reward[s, a, k]` and `terminal[s, a, k]`. Unused slots
(padding, and every slot of an illegal action) have probability 0, next index 0, reward 0 and
terminal True, so they never contribute. A terminal outcome's next index is 0 (never read).
An outcome that enters an absorbing state (a state with no legal actions) is marked terminal
too: nothing more happens after it, so its value is never bootstrapped.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from rltorch.mdp.model import FiniteModel


@dataclass(frozen=True)
class ModelArrays:
    """`prob`, `next_index`, `reward`, `terminal` of shape [S, A, K]; `legal` [S, A]; `start` [S] (see module)."""

    states: list[Hashable]
    prob: np.ndarray
    next_index: np.ndarray
    reward: np.ndarray
    terminal: np.ndarray
    legal: np.ndarray
    start: np.ndarray

    @property
    def num_states(self) -> int:
        """S, the number of states."""
        return int(self.prob.shape[0])

    @property
    def has_action(self) -> np.ndarray:
        """[S] bool: whether each state has a legal action (False for absorbing states)."""
        return self.legal.any(axis=1)

    @property
    def continuing(self) -> np.ndarray:
        """[S, A, K]: the probability of each outcome that goes on to its next state (0 for terminal ones)."""
        return np.where(self.terminal, 0.0, self.prob)

    def expected_reward(self, reward: np.ndarray | None = None) -> np.ndarray:
        """[S, A] (or [S, A, L] for a reward of shape [S, A, K, L]): the mean immediate reward of each pair."""
        reward = self.reward if reward is None else reward
        weights = self.prob.reshape(self.prob.shape + (1,) * (reward.ndim - 3))
        return (weights * reward).sum(axis=2)


def build_arrays(model: FiniteModel) -> ModelArrays:
    """Pack `model` (assumed valid) into padded arrays."""
    num_states = len(model.states)
    num_actions = 1 + max((a for s in model.states for a in model.actions.get(s, ())), default=0)
    width = max((len(model.transitions[(s, a)]) for s in model.states for a in model.actions.get(s, ())), default=1)
    shape = (num_states, num_actions, width)
    prob, reward = np.zeros(shape), np.zeros(shape)
    next_index = np.zeros(shape, dtype=np.int64)
    terminal = np.ones(shape, dtype=bool)
    legal = np.zeros(shape[:2], dtype=bool)
    absorbing = {s for s in model.states if not model.actions.get(s)}
    for i, state in enumerate(model.states):
        for action in model.actions.get(state, ()):
            legal[i, action] = True
            for k, (p, next_state, r, ends) in enumerate(model.transitions[(state, action)]):
                prob[i, action, k], reward[i, action, k] = float(p), float(r)
                if not ends and next_state not in absorbing:
                    terminal[i, action, k] = False
                    next_index[i, action, k] = model.index[next_state]
    start = np.zeros(num_states)
    for state, p in model.start.items():
        start[model.index[state]] += float(p)
    return ModelArrays(list(model.states), prob, next_index, reward, terminal, legal, start)
