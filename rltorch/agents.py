"""Agents that play: a learned greedy agent, a fixed policy, a random agent.

Every agent has `act(obs, legal_actions, rng=None)`, so any of them can be an environment's
built-in opponent.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Hashable, Sequence

from rltorch.policies import greedy
from rltorch.values.base import ValueFunction


class GreedyAgent:
    """Plays the action whose key has the largest value (first among ties, so play is exact)."""

    def __init__(self, value_fn: ValueFunction, keys: Callable[[Hashable, Sequence[int]], list[Hashable]]) -> None:
        self.value_fn = value_fn
        self.keys = keys

    def action_values(self, obs: Hashable, legal_actions: Sequence[int]) -> list[float]:
        """The value of each legal action's key."""
        return self.value_fn.values(self.keys(obs, legal_actions))

    def act(self, obs: Hashable, legal_actions: Sequence[int], rng: random.Random | None = None) -> int:
        """Return the greedy legal action."""
        return legal_actions[greedy(self.action_values(obs, legal_actions))]


class RandomAgent:
    """Plays a uniformly random legal action."""

    def act(self, obs: Hashable, legal_actions: Sequence[int], rng: random.Random | None = None) -> int:
        """Return a random legal action."""
        rng = rng or random
        return legal_actions[rng.randrange(len(legal_actions))]


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
