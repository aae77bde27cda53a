"""TD prediction: estimate V of a given policy, keyed by the states (Sutton & Barto section 6.1).

Constant-alpha Monte Carlo prediction, the other method of the random walk (Example 6.2), is
`MCPrediction` with a value table of constant step size (alpha=0.1, say); n-step TD prediction is
`rltorch.trainers.nstep.NStepTDPrediction`.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any

from rltorch.agents import PolicyAgent
from rltorch.trainers.base import Trainer


class PolicyPrediction(Trainer):
    """The shared part of prediction trainers: the evaluated `policy` (state -> action), no epsilon, a PolicyAgent."""

    def __init__(self, *args: Any, policy: Callable[[Hashable], int], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.policy = policy

    def uses_epsilon(self) -> bool:
        """Prediction follows its policy, so no epsilon is used or logged."""
        return False

    def agent(self) -> Any:
        """The evaluated policy with its values."""
        return PolicyAgent(self.policy, self.value_fn)

    def config(self) -> dict:
        """The settings, with the evaluated policy."""
        return {**super().config(), "policy": repr(self.policy)}


class TDPrediction(PolicyPrediction):
    """Tabular TD(0) for estimating V of `policy` (section 6.1): V(S) moves toward R + gamma V(S') after every step."""

    algorithm = "td-prediction"

    def run_episode(self, epsilon: float) -> float:
        """Play one episode of the policy (epsilon is not used), updating after every step."""
        state, _ = self.env.reset()
        total, policy, value = 0.0, self.policy, self.value_fn.value
        while True:
            next_state, reward, terminated, truncated, _ = self.step(policy(state))
            total += reward
            self.learn(state, reward if terminated else reward + self.gamma * value(next_state))
            if terminated or truncated:
                return total
            state = next_state
