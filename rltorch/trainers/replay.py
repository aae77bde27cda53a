"""A replay buffer of recent transitions, the step from Q-learning to DQN."""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Hashable

Experience = tuple[Hashable, float, bool, list[Hashable]]


class ReplayBuffer:
    """The last `capacity` transitions (key, reward, terminated, next keys), sampled uniformly."""

    def __init__(self, capacity: int) -> None:
        self.transitions: deque[Experience] = deque(maxlen=capacity)

    def __len__(self) -> int:
        """Experiences held."""
        return len(self.transitions)

    def add(self, transition: Experience) -> None:
        """Store one transition, dropping the oldest when full."""
        self.transitions.append(transition)

    def sample(self, size: int, rng: random.Random) -> list[Experience]:
        """`size` transitions drawn uniformly with replacement."""
        transitions = self.transitions
        return [transitions[rng.randrange(len(transitions))] for _ in range(size)]
