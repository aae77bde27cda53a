"""A user's own environment in a module of its own: a 5-state chain, registered as Chain-v0.

States 0..4, start at 2; action 0 steps left, 1 steps right; every step costs -1, and reaching
either end (0 or 4) ends the episode. The best return from the start is -2, in two steps.
"""

import gymnasium as gym
from gymnasium import spaces


class ChainEnv(gym.Env):
    """A corridor of `size` states (5 by default) with a cost of -1 per step and exits at both ends."""

    def __init__(self, size: int = 5, start: int = 2, actions: int = 2) -> None:
        self.observation_space = spaces.Discrete(size)
        self.action_space = spaces.Discrete(actions)
        self.start = self.state = start

    def reset(self, *, seed=None, options=None):
        """Start at `start` (the middle)."""
        super().reset(seed=seed)
        self.state = self.start
        return self.state, {}

    def step(self, action):
        """Move one cell left (0) or right (1)."""
        self.state += 1 if int(action) == 1 else -1
        return self.state, -1.0, self.state in (0, self.observation_space.n - 1), False, {}


if "Chain-v0" not in gym.registry:
    gym.register(id="Chain-v0", entry_point=ChainEnv, max_episode_steps=50)
