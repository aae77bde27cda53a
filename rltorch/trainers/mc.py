"""Monte Carlo control: play a whole episode epsilon-greedily, then move each key toward its return."""

from __future__ import annotations

from collections.abc import Hashable

from rltorch.targets import monte_carlo_returns
from rltorch.trainers.base import Trainer


class MCTrainer(Trainer):
    """First-visit (default) or every-visit Monte Carlo control.

    The step size is the value function's: a table with `alpha=None` keeps sample averages.
    """

    algorithm = "mc"

    def __init__(self, *args, first_visit: bool = True, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.first_visit = first_visit

    def run_episode(self, epsilon: float) -> float:
        """Generate one episode, then update every (first-)visited key toward its return."""
        keys, rewards = self.generate_episode(epsilon)
        self.update_from_episode(keys, rewards)
        return sum(rewards)

    def generate_episode(self, epsilon: float) -> tuple[list[Hashable], list[float]]:
        """Play one episode; return the key of each step's action and the reward that followed."""
        env = self.env
        state, _ = env.reset()
        keys: list[Hashable] = []
        rewards: list[float] = []
        done = False
        while not done:
            action, key = self.choose(state, epsilon)
            state, reward, terminated, truncated, _ = env.step(action)
            keys.append(key)
            rewards.append(reward)
            done = terminated or truncated
        return keys, rewards

    def update_from_episode(self, keys: list[Hashable], rewards: list[float]) -> None:
        """Move each key toward its return; with first visit, only at a key's first occurrence."""
        returns = monte_carlo_returns(rewards, self.gamma)
        seen: set[Hashable] = set()
        for key, episode_return in zip(keys, returns):
            if self.first_visit:
                if key in seen:
                    continue
                seen.add(key)
            self.learn(key, episode_return)

    def config(self) -> dict:
        """The settings, with the visit rule."""
        return {**super().config(), "first_visit": self.first_visit}
