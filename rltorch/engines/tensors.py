"""A finite model as device tensors, and the vectorised draws every batched engine makes from it.

Conventions, the same as the sequential code they reproduce (and as a test env must follow):
- Legal actions are taken in ascending order.
- A categorical draw (start state, transition outcome, a policy's action) picks, for a draw u, the
  first outcome k in the model's order whose running sum of probabilities exceeds u (never past the
  last outcome with positive probability). It consumes a draw only when more than one outcome has
  positive probability.
- epsilon-greedy (`choose`): one draw u is compared with epsilon (explore when u < epsilon); then,
  when exploring, a second draw picks legal action floor(u * n_legal); else, only when several legal
  actions share the largest value, a second draw picks tie floor(u * n_ties) in action order.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from rltorch.engines.draws import DrawSource
from rltorch.errors import RLTorchError
from rltorch.mdp.model import FiniteModel


@dataclass
class Categorical:
    """Rows of categorical distributions: running sums [rows, K], last positive outcome [rows], several outcomes."""

    cumulative: torch.Tensor
    last: torch.Tensor
    several: torch.Tensor

    @classmethod
    def of(cls, probabilities: np.ndarray, device: torch.device) -> Categorical:
        """From a [rows, K] array of probabilities."""
        positive = probabilities > 0
        last = np.where(positive.any(axis=1), probabilities.shape[1] - 1 - np.argmax(positive[:, ::-1], axis=1), 0)
        return cls(torch.as_tensor(np.cumsum(probabilities, axis=1), device=device),
                   torch.as_tensor(last, device=device),
                   torch.as_tensor(positive.sum(axis=1) > 1, device=device))

    @property
    def random(self) -> bool:
        """Whether any row needs a draw."""
        return bool(self.several.any())

    def sample(self, rows: torch.Tensor, mask: torch.Tensor, draws: DrawSource, purpose: str) -> torch.Tensor:
        """The outcome index of each lane's row, drawing where `mask` and the row has several outcomes."""
        u = draws.uniform(mask & self.several.index_select(0, rows), purpose)
        below = (self.cumulative.index_select(0, rows) <= u[:, None]).sum(dim=1)
        return torch.minimum(below, self.last.index_select(0, rows))


class ModelTensors:
    """The model's padded arrays on `device`: transitions flattened over pairs p = s * A + a (see `ModelArrays`)."""

    def __init__(self, model: FiniteModel, device: torch.device | str = "cpu",
                 dtype: torch.dtype = torch.float64) -> None:
        arrays = model.arrays()
        self.device, self.dtype = torch.device(device), dtype
        self.num_states, self.num_actions, self.width = arrays.prob.shape
        if not arrays.has_action[arrays.start > 0].all():
            raise RLTorchError(f"{model.name}: a start state has no legal actions")
        pairs = self.num_states * self.num_actions
        self.legal = torch.as_tensor(arrays.legal, device=self.device)
        self.legal_count = self.legal.sum(dim=1).to(dtype)
        self.next_state = torch.as_tensor(arrays.next_index.reshape(pairs, -1), device=self.device)
        self.reward = torch.as_tensor(arrays.reward.reshape(pairs, -1), dtype=dtype, device=self.device)
        self.terminal = torch.as_tensor(arrays.terminal.reshape(pairs, -1), device=self.device)
        self.outcomes = Categorical.of(arrays.prob.reshape(pairs, -1), self.device)
        self.start = Categorical.of(arrays.start[None, :], self.device)
        self.first_start = int(np.argmax(arrays.start > 0))
        self.actions = torch.arange(self.num_actions, device=self.device)
        self.deterministic = not self.outcomes.random
        if self.deterministic:  # one outcome per pair: no draw, one lookup
            self.next_state, self.reward, self.terminal = (t[:, 0].contiguous() for t in
                                                           (self.next_state, self.reward, self.terminal))

    def step(self, states: torch.Tensor, actions: torch.Tensor, mask: torch.Tensor,
             draws: DrawSource) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """Next state, reward and whether the episode ended, for each lane's (state, action)."""
        pairs = states * self.num_actions + actions
        if self.deterministic:
            return (self.next_state.index_select(0, pairs), self.reward.index_select(0, pairs),
                    self.terminal.index_select(0, pairs))
        flat = pairs * self.width + self.outcomes.sample(pairs, mask, draws, "transition")
        return (self.next_state.view(-1).index_select(0, flat), self.reward.view(-1).index_select(0, flat),
                self.terminal.view(-1).index_select(0, flat))

    def starts(self, mask: torch.Tensor, draws: DrawSource) -> torch.Tensor:
        """A start state for each lane (a draw only where `mask` and the start is random)."""
        if not self.start.random:
            return torch.full(mask.shape, self.first_start, dtype=torch.long, device=self.device)
        rows = torch.zeros(mask.shape, dtype=torch.long, device=self.device)
        return self.start.sample(rows, mask, draws, "start")

    def greedy_ties(self, rows: torch.Tensor, states: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """(best legal value, tie mask over the legal actions that reach it, tie count) for value rows [lanes, A]."""
        legal = self.legal.index_select(0, states)
        masked = torch.where(legal, rows, -torch.inf)
        best = masked.amax(dim=1)
        ties = masked == best[:, None]
        return best, ties, ties.sum(dim=1)

    def choose(self, rows: torch.Tensor, states: torch.Tensor, epsilon: float, mask: torch.Tensor,
               draws: DrawSource) -> torch.Tensor:
        """epsilon-greedy actions on value rows [lanes, A] of `states` (see module for the draws)."""
        _, ties, tie_count = self.greedy_ties(rows, states)
        explore = draws.uniform(mask, "epsilon") < epsilon
        u = draws.uniform(mask & (explore | (tie_count > 1)), "choice")
        pool = torch.where(explore[:, None], self.legal.index_select(0, states), ties)
        size = torch.where(explore, self.legal_count.index_select(0, states), tie_count.to(self.dtype))
        return pick(pool, torch.floor(u * size).long())


def pick(pool: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
    """The index of the (k+1)-th True of each row of `pool` [lanes, A]."""
    return (pool.cumsum(dim=1) <= k[:, None]).sum(dim=1)


def lookup(table: torch.Tensor, lanes: torch.Tensor, states: torch.Tensor) -> torch.Tensor:
    """Rows table[lane, state, :] of a [lanes, S, A] table (lanes: the lane offsets arange(L) * S)."""
    return table.view(-1, table.shape[-1]).index_select(0, lanes + states)


def sequential_sum(values: torch.Tensor) -> torch.Tensor:
    """Sum over the last dimension strictly left to right, the float order of Python's `sum`."""
    total = values[..., 0]
    for column in range(1, values.shape[-1]):
        total = total + values[..., column]
    return total
