"""Plain-Python semi-gradient SARSA on Mountain Car with a one-page tiles3-style tile coder: the baseline.

Written the way public reproductions of the book's chapter 10 are: the dynamics as Python floats, a
tile coder in the manner of Sutton's tiles3 (an index hash table that hands out a new index to each new
(tiling, coordinates, action) tuple, floats scaled by the number of tilings, tiling i offset by i, 3i),
weights in a numpy array, epsilon-greedy with random ties from `random`; no framework.
"""

from __future__ import annotations

import math
import random
import sys
from collections.abc import Sequence

import numpy as np

TILINGS, SIZE = 8, 4096
POSITION_SCALE, VELOCITY_SCALE = 8 / (0.5 + 1.2), 8 / (0.07 + 0.07)


class IndexHashTable:
    """tiles3's IHT: each new coordinate tuple gets the next free index (hashing only once full)."""

    def __init__(self, size: int) -> None:
        self.size, self.indices, self.overfull = size, {}, 0

    def index(self, coordinates: tuple) -> int:
        """The index of `coordinates`, handing out a new one on first sight."""
        found = self.indices.get(coordinates)
        if found is not None:
            return found
        if len(self.indices) >= self.size:
            self.overfull += 1
            return hash(coordinates) % self.size
        self.indices[coordinates] = len(self.indices)
        return self.indices[coordinates]


def tiles(table: IndexHashTable, tilings: int, floats: Sequence[float], ints: Sequence[int]) -> list[int]:
    """tiles3's `tiles`: for tiling i, each float q (scaled by `tilings`) moves by i, 3i, 5i, ... before flooring."""
    scaled = [math.floor(f * tilings) for f in floats]
    found = []
    for tiling in range(tilings):
        offset, coordinates = tiling, [tiling]
        for q in scaled:
            coordinates.append((q + offset) // tilings)
            offset += tiling * 2
        found.append(table.index(tuple(coordinates + list(ints))))
    return found


def step(position: float, velocity: float, action: int) -> tuple[float, float, bool]:
    """The book's Mountain Car."""
    velocity = min(max(velocity + 0.001 * (action - 1) - 0.0025 * math.cos(3 * position), -0.07), 0.07)
    position = min(max(position + velocity, -1.2), 0.6)
    if position == -1.2 and velocity < 0:
        velocity = 0.0
    return position, velocity, position >= 0.5


def sarsa(runs: int, episodes: int, alpha: float, seed: int) -> int:
    """`runs` runs of `episodes` episodes of SARSA (epsilon 0, gamma 1, zero weights); the steps taken."""
    rng, steps = random.Random(seed), 0
    for _ in range(runs):
        table, weights = IndexHashTable(SIZE), np.zeros(SIZE)

        def active(position: float, velocity: float, action: int, table: IndexHashTable = table) -> list[int]:
            return tiles(table, TILINGS, [POSITION_SCALE * position, VELOCITY_SCALE * velocity], [action])

        def choose(position: float, velocity: float, weights: np.ndarray = weights) -> int:
            values = [sum(weights[i] for i in active(position, velocity, a)) for a in range(3)]
            best = max(values)
            return rng.choice([a for a, v in enumerate(values) if v == best])

        for _ in range(episodes):
            position, velocity = rng.uniform(-0.6, -0.4), 0.0
            action = choose(position, velocity)
            while True:
                features = active(position, velocity, action)
                position, velocity, done = step(position, velocity, action)
                steps += 1
                target = -1.0
                if not done:
                    action = choose(position, velocity)
                    target += sum(weights[i] for i in active(position, velocity, action))
                error = target - sum(weights[i] for i in features)
                for i in features:
                    weights[i] += alpha / TILINGS * error
                if done:
                    break
    return steps


if __name__ == "__main__":
    print("plain_mountain_car.py is a module of mountain_car.py"
          "; run python bench/mountain_car.py --help", file=sys.stderr)
    sys.exit(2)
