"""A replay buffer of recent transitions, the step from Q-learning to DQN."""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Hashable

Transition = tuple[Hashable, float, bool, list[Hashable]]


class ReplayBuffer:
    """The last `capacity` transitions (key, reward, terminated, next keys), sampled uniformly."""

    def __init__(self, capacity: int) -> None:
        self.transitions: deque[Transition] = deque(maxlen=capacity)

    def __len__(self) -> int:
        """Transitions held."""
        return len(self.transitions)

    def add(self, transition: Transition) -> None:
        """Store one transition, dropping the oldest when full."""
        self.transitions.append(transition)

    def sample(self, size: int, rng: random.Random) -> list[Transition]:
        """`size` transitions drawn uniformly with replacement."""
        transitions = self.transitions
        return [transitions[rng.randrange(len(transitions))] for _ in range(size)]
