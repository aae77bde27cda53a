"""A user's own environment in a module of its own: a 5-state chain, registered as Chain-v0.

States 0..4, start at 2; action 0 steps left, 1 steps right; every step costs -1, and reaching
either end (0 or 4) ends the episode. The best return from the start is -2, in two steps.
"""

import gymnasium as gym
from gymnasium import spaces


class ChainEnv(gym.Env):
    """A 5-state corridor with a cost of -1 per step and exits at both ends."""

    def __init__(self) -> None:
        self.observation_space = spaces.Discrete(5)
        self.action_space = spaces.Discrete(2)
        self.state = 2

    def reset(self, *, seed=None, options=None):
        """Start in the middle."""
        super().reset(seed=seed)
        self.state = 2
        return self.state, {}

    def step(self, action):
        """Move one cell left (0) or right (1)."""
        self.state += 1 if int(action) == 1 else -1
        return self.state, -1.0, self.state in (0, 4), False, {}


if "Chain-v0" not in gym.registry:
    gym.register(id="Chain-v0", entry_point=ChainEnv, max_episode_steps=50)
