"""Envs that break rltorch's contract in one way each, registered for the bad-input tests.

`BoxAction-v0` has a continuous action space; `NoLegal-v0` offers no legal action; `LaterList-v0` gives a
hashable first observation and a list after; `NanReward-v0` pays NaN on its third step.
"""

import gymnasium as gym
from gymnasium import spaces

from tests.chain_env import ChainEnv


class CorridorEnv(ChainEnv):
    """A corridor of 4 cells from cell 0 that ends at cell 3; each subclass breaks one rule."""

    def __init__(self) -> None:
        super().__init__(size=4, start=0)

    def step(self, action):
        """Move right on action 1, stay on 0; every step costs 1."""
        self.state = min(3, self.state + int(action))
        return self.state, -1.0, self.state == 3, False, {}


class BoxActionEnv(CorridorEnv):
    """Actions are real numbers."""

    def __init__(self) -> None:
        super().__init__()
        self.action_space = spaces.Box(-1.0, 1.0, (1,))


class NoLegalEnv(CorridorEnv):
    """No action is ever legal."""

    def legal_actions(self) -> list[int]:
        """None."""
        return []


class LaterListEnv(CorridorEnv):
    """Observations after the first are lists (unhashable)."""

    def step(self, action):
        """As the corridor, with the observation as a list."""
        state, reward, terminated, truncated, info = super().step(action)
        return [state], reward, terminated, truncated, info


class NanRewardEnv(CorridorEnv):
    """The third step of an episode pays NaN."""

    def step(self, action):
        """As the corridor, with a NaN reward on step 3."""
        self.steps = getattr(self, "steps", 0) + 1
        state, reward, terminated, truncated, info = super().step(action)
        return state, float("nan") if self.steps == 3 else reward, terminated, truncated, info


for name, cls in (("BoxAction-v0", BoxActionEnv), ("NoLegal-v0", NoLegalEnv), ("LaterList-v0", LaterListEnv),
                  ("NanReward-v0", NanRewardEnv)):
    if name not in gym.registry:
        gym.register(id=name, entry_point=cls, max_episode_steps=50)
