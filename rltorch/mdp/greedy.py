"""Greedy action choice from q arrays, keeping the episode finishing when there is no discount.

With gamma = 1 an action can tie for best while never ending the episode (bumping into a wall
in FrozenLake is worth exactly the state's value). `greedy_choice` then builds the choice layer
by layer backwards from the end: a state is settled once one of its candidate actions ends the
episode, or moves with positive probability to an already settled state. Any policy chosen this
way ends every episode with probability 1 from every settled state.

Ties here are broken deterministically, not at random as the learners' are, on purpose: every
candidate is optimal (within the solver's tolerance), so no choice among them biases a value; pi*
is then reproducible with no generator (a perfect player, a yardstick, a golden number);
policy iteration keeps its previous action when it is as good, which is what lets it stop; and for
gamma = 1 the choice is constrained to actions that finish the episode. Among equals the lowest-numbered
action wins (`by_value`: the first best by value, as numpy's argmax).
"""

from __future__ import annotations

import numpy as np

from rltorch.mdp.arrays import ModelArrays


def best_values(arrays: ModelArrays, q: np.ndarray) -> np.ndarray:
    """[S]: the largest q over each state's legal actions (0 for a state without any)."""
    masked = np.where(arrays.legal, q, -np.inf)
    return np.where(arrays.has_action, masked.max(axis=1, initial=-np.inf), 0.0)


def candidate_actions(arrays: ModelArrays, q: np.ndarray, tol: float) -> np.ndarray:
    """[S, A] bool: the legal actions within `tol` of their state's best q."""
    return arrays.legal & (q >= best_values(arrays, q)[:, None] - tol)


def greedy_choice(arrays: ModelArrays, q: np.ndarray, candidates: np.ndarray, *, finishing: bool,
                  by_value: bool, previous: np.ndarray | None = None,
                  keep_tol: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """One action per state among `candidates`, and [S] bool: the settled states (every state unless `finishing`).

    `by_value` picks the candidate with the largest q (keeping `previous` when it is within
    `keep_tol` of it); otherwise the lowest-numbered candidate. With `finishing` (for gamma = 1)
    the choice is built backwards from the end (see module); states that no candidate settles
    (they cannot end the episode using candidates) get a pick among their candidates anyway.
    """
    num_states = arrays.num_states
    if not finishing:
        return _pick(q, candidates, by_value, previous, keep_tol), np.ones(num_states, dtype=bool)
    settled = ~arrays.has_action
    choice = np.zeros(num_states, dtype=np.int64)
    ends = (arrays.prob * arrays.terminal).sum(axis=2) > 0
    moves = arrays.continuing > 0
    while True:
        progress = candidates & ~settled[:, None] & (ends | (moves & settled[arrays.next_index]).any(axis=2))
        fresh = progress.any(axis=1)
        if not fresh.any():
            break
        choice[fresh] = _pick(q, progress, by_value, previous, keep_tol)[fresh]
        settled |= fresh
    rest = ~settled
    choice[rest] = _pick(q, candidates, by_value, previous, keep_tol)[rest]
    return choice, settled


def _pick(q: np.ndarray, mask: np.ndarray, by_value: bool, previous: np.ndarray | None, keep_tol: float) -> np.ndarray:
    """Per state: the best-valued (or lowest-numbered) action in `mask`, keeping `previous` when it is as good."""
    if not by_value:
        return mask.argmax(axis=1)
    values = np.where(mask, q, -np.inf)
    choice = values.argmax(axis=1)
    if previous is None:
        return choice
    rows = np.arange(q.shape[0])
    keep = mask[rows, previous] & (values[rows, previous] >= values[rows, choice] - keep_tol)
    return np.where(keep, previous, choice)


def one_hot_policy(arrays: ModelArrays, choice: np.ndarray) -> np.ndarray:
    """pi[S, A] taking `choice[s]` in every state that has a legal action."""
    pi = np.zeros(arrays.legal.shape)
    rows = np.flatnonzero(arrays.has_action)
    pi[rows, choice[rows]] = 1.0
    return pi
