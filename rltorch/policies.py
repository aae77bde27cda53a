"""Action selection over the values of the legal actions, and epsilon schedules."""

from __future__ import annotations

import math
import random
from dataclasses import dataclass


def greedy(values: list[float], rng: random.Random | None = None) -> int:
    """Index of the largest value; ties go to `rng` at random (one `randrange`, only on a tie), else to the first.

    Learning passes its generator (acting, Double Q-learning's target); the first-index form is for a deterministic
    player (a greedy evaluation agent) or a target policy that must break ties consistently (off-policy MC control).
    """
    best = max(values)
    if rng is None or values.count(best) == 1:
        return values.index(best)
    ties = [i for i, value in enumerate(values) if value == best]
    return ties[rng.randrange(len(ties))]


def epsilon_greedy(values: list[float], epsilon: float, rng: random.Random) -> int:
    """With probability epsilon a uniformly random index, else `greedy` with random ties."""
    if rng.random() < epsilon:
        return rng.randrange(len(values))
    return greedy(values, rng)


@dataclass
class ConstantSchedule:
    """Epsilon that never changes."""

    epsilon: float = 0.1

    def __call__(self, episode: int) -> float:
        """Return epsilon for `episode`."""
        return self.epsilon


@dataclass
class LinearSchedule:
    """Epsilon falling in a straight line from `start` to `final` over `episodes`, then flat."""

    start: float = 1.0
    final: float = 0.01
    episodes: int = 50_000

    def __call__(self, episode: int) -> float:
        """Return epsilon for `episode`."""
        fraction = min(episode / self.episodes, 1.0) if self.episodes > 0 else 1.0
        return self.start + (self.final - self.start) * fraction


@dataclass
class ExponentialSchedule:
    """The course's decay: `final + (start - final) * exp(-episode / decay)`."""

    start: float = 1.0
    final: float = 0.01
    decay: float = 10_000.0

    def __call__(self, episode: int) -> float:
        """Return epsilon for `episode`."""
        return self.final + (self.start - self.final) * math.exp(-episode / self.decay)


Schedule = ConstantSchedule | LinearSchedule | ExponentialSchedule


def make_schedule(kind: str, start: float = 1.0, final: float = 0.01, decay: float = 10_000.0) -> Schedule:
    """Build a schedule by name: 'constant' (uses `start`), 'linear' (over `decay` episodes), 'exponential'."""
    for name, value in (("start", start), ("final", final)):
        if not 0.0 <= value <= 1.0:
            raise ValueError(f"epsilon {name} must be in [0, 1], got {value}")
    if kind == "constant":
        return ConstantSchedule(start)
    if decay <= 0:
        raise ValueError(f"epsilon decay must be positive, got {decay}")
    if kind == "linear":
        return LinearSchedule(start, final, int(decay))
    if kind == "exponential":
        return ExponentialSchedule(start, final, decay)
    raise ValueError(f"unknown epsilon schedule {kind!r}; choose constant, linear or exponential")
