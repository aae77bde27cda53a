"""Agents that play: a learned greedy agent, a fixed policy, a random agent, mixtures, a self-play copy.

Every agent has `act(obs, legal_actions, rng=None)`, so any of them can be an environment's
built-in opponent.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Callable, Hashable, Sequence
from typing import Any

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


class MixtureAgent:
    """At every move, hands the choice to one of several agents drawn by weight."""

    def __init__(self, agents: Sequence[tuple[Any, float]]) -> None:
        if not agents or any(weight < 0 for _, weight in agents) or sum(w for _, w in agents) <= 0:
            raise ValueError("a mixture needs at least one agent and non-negative weights with a positive sum")
        self.agents = [agent for agent, _ in agents]
        total = sum(weight for _, weight in agents)
        self.cumulative = [sum(w for _, w in agents[: i + 1]) / total for i in range(len(agents))]

    def act(self, obs: Hashable, legal_actions: Sequence[int], rng: random.Random | None = None) -> int:
        """Draw an agent by weight and return its action."""
        rng = rng or random
        draw = rng.random()
        for agent, bound in zip(self.agents, self.cumulative):
            if draw < bound:
                return agent.act(obs, legal_actions, rng)
        return self.agents[-1].act(obs, legal_actions, rng)


class SelfPlayAgent:
    """A frozen copy of a learner's values, played epsilon-greedily; `refresh` copies them again.

    Until the first `refresh` it plays at random. It knows only the keys the learner has met,
    so a learner that should face itself trains with seat "both".
    """

    def __init__(self, keys: Callable[[Hashable, Sequence[int]], list[Hashable]], epsilon: float = 0.1) -> None:
        self.keys = keys
        self.epsilon = epsilon
        self.value_fn: ValueFunction | None = None

    def refresh(self, value_fn: ValueFunction) -> None:
        """Freeze a copy of the learner's current values."""
        self.value_fn = copy.deepcopy(value_fn)

    def act(self, obs: Sequence[int], legal_actions: Sequence[int], rng: random.Random | None = None) -> int:
        """Epsilon-greedy over the frozen values (random ties)."""
        rng = rng or random
        if self.value_fn is None or rng.random() < self.epsilon:
            return legal_actions[rng.randrange(len(legal_actions))]
        values = self.value_fn.values(self.keys(tuple(obs), legal_actions))
        return legal_actions[greedy(values, rng)]


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
