"""An agent that plays a given policy and carries the values learned for it (Monte Carlo prediction)."""

from __future__ import annotations

import random
from collections.abc import Callable, Hashable, Sequence

from rltorch.values.base import ValueFunction


class PolicyAgent:
    """Plays `policy(obs)`; `value_fn` holds the estimate of that policy's state values V(obs)."""

    def __init__(self, policy: Callable[[Hashable], int], value_fn: ValueFunction) -> None:
        self.policy = policy
        self.value_fn = value_fn

    def state_value(self, obs: Hashable) -> float:
        """The estimated value of `obs` under the policy."""
        return self.value_fn.value(obs)

    def act(self, obs: Hashable, legal_actions: Sequence[int], rng: random.Random | None = None) -> int:
        """Return the policy's action (it must be legal)."""
        action = self.policy(obs)
        if action not in legal_actions:
            raise ValueError(f"the policy chose {action!r} in {obs!r}; legal actions are {list(legal_actions)}")
        return action
