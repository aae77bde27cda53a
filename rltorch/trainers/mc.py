"""Monte Carlo: play a whole episode, then move each (first-)visited key toward the return that followed it.

One core (`MonteCarloTrainer`) and three algorithms over it, as in Sutton & Barto chapter 5:
`MCPrediction` (section 5.1), `MCExploringStarts` (5.3) and `MCTrainer`, on-policy control of an
epsilon-soft policy (5.4). The step size is the value function's: a table with `alpha=None` keeps
sample averages.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from typing import Any, ClassVar

import gymnasium as gym

from rltorch.options import Option
from rltorch.targets import monte_carlo_returns
from rltorch.trainers.base import Trainer
from rltorch.trainers.prediction import PolicyPrediction

Start = Hashable | Mapping[str, Any]


class MonteCarloTrainer(Trainer):
    """The shared core: starts (optionally drawn from `start_states`), episode generation, and the MC update.

    A start is a state, reset through `env.reset(options={"state": s})`, or a dict of reset options
    passed as `env.reset(options=start)`, e.g. `{"hand": (10, 6), "dealer_card": 10}` for a deal of cards.
    """

    def __init__(
        self, *args: Any, first_visit: bool = True, start_states: Sequence[Start] | None = None, **kwargs: Any
    ) -> None:
        super().__init__(*args, **kwargs)
        self.first_visit = first_visit
        self.start_states = None if start_states is None else list(start_states)
        if self.start_states is not None and not self.start_states:
            raise ValueError("start_states must not be empty")

    def run_episode(self, epsilon: float) -> float:
        """Generate one episode, then update every (first-)visited key toward its return."""
        keys, rewards = self.generate_episode(epsilon)
        self.update_from_episode(keys, rewards)
        return sum(rewards)

    def start_episode(self) -> Hashable:
        """Reset the env, from a uniformly drawn start (a state, or a dict of reset options) when given."""
        if self.start_states is None:
            return self.env.reset()[0]
        start = self.start_states[self.rng.randrange(len(self.start_states))]
        if isinstance(start, Mapping):
            return self.env.reset(options=dict(start))[0]
        state = self.env.reset(options={"state": start})[0]
        if state != start:
            raise ValueError(f"the env started in {state!r}, not {start!r}; exploring starts need an env that "
                             "honours reset(options={'state': s})")
        return state

    def generate_episode(self, epsilon: float) -> tuple[list[Hashable], list[float]]:
        """Play one episode epsilon-greedily from a start; return the key of each step and the reward after it."""
        return self.play_from(self.start_episode(), epsilon, [], [])

    def play_from(
        self, state: Hashable, epsilon: float, keys: list[Hashable], rewards: list[float]
    ) -> tuple[list[Hashable], list[float]]:
        """Continue an episode epsilon-greedily from `state` until it ends, appending keys and rewards."""
        done = False
        while not done:
            action, key = self.choose(state, epsilon)
            state, reward, terminated, truncated, _ = self.step(action)
            keys.append(key)
            rewards.append(reward)
            done = terminated or truncated
        return keys, rewards

    def update_from_episode(self, keys: list[Hashable], rewards: list[float]) -> None:
        """Move each key toward its return; with first visit, only at a key's first occurrence."""
        returns = monte_carlo_returns(rewards, self.gamma)
        seen: set[Hashable] = set()
        for key, episode_return in zip(keys, returns, strict=True):
            if not self.first_visit or key not in seen:
                seen.add(key)
                self.learn(key, episode_return)

    def config(self) -> dict:
        """The settings, with the visit rule and the starts."""
        config = {**super().config(), "first_visit": self.first_visit}
        if self.start_states is not None:
            config["start_states"] = len(self.start_states)
        return config


class MCControl(MonteCarloTrainer):
    """What the command line's Monte Carlo control offers: first- or every-visit, a constant step or sample averages."""

    options: ClassVar[tuple[Option, ...]] = (
        Option("every_visit", bool, False, "MC: every-visit instead of first-visit"),
        Option("sample_average", bool, False, "MC: step 1/N(key) instead of --alpha"),
    )

    @classmethod
    def arguments(cls, settings: dict[str, Any], env: gym.Env) -> dict[str, Any]:
        """First- or every-visit (sample averages are the table's business: see `table`)."""
        return {"first_visit": not settings.get("every_visit", False)}

    @classmethod
    def step_size(cls, alpha: float, settings: dict[str, Any]) -> float | None:
        """`alpha`, or sample averages (step 1/N) with `sample_average`."""
        return None if settings.get("sample_average") else alpha


class MCTrainer(MCControl):
    """On-policy Monte Carlo control: act epsilon-greedily on Q and learn Q (with a constant epsilon, section 5.4)."""

    algorithm = "mc"


class MCExploringStarts(MCControl):
    """Monte Carlo with exploring starts (section 5.3): a uniformly drawn start and a random first action.

    After the first action it follows the schedule (epsilon 0: greedy); with sample averages this is MC ES.
    """

    algorithm = "mc-es"

    def __init__(self, *args: Any, start_states: Sequence[Start], **kwargs: Any) -> None:
        super().__init__(*args, start_states=start_states, **kwargs)

    @classmethod
    def arguments(cls, settings: dict[str, Any], env: gym.Env) -> dict[str, Any]:
        """The MC options, and the env's start states to draw exploring starts from."""
        starts = getattr(env.unwrapped, "start_states", None)
        if starts is None:
            raise ValueError(f"env {env.spec.id if env.spec else env} has no start_states() to draw exploring "
                             "starts from")
        return {**super().arguments(settings, env), "start_states": starts()}

    def generate_episode(self, epsilon: float) -> tuple[list[Hashable], list[float]]:
        """A random first action from a drawn start, then epsilon-greedy play."""
        state = self.start_episode()
        legal = self.legal_actions()
        action = legal[self.rng.randrange(len(legal))]
        keys = [self.keys(state, (action,))[0]]
        state, reward, terminated, truncated, _ = self.step(action)
        if terminated or truncated:
            return keys, [reward]
        return self.play_from(state, epsilon, keys, [reward])


class MCPrediction(PolicyPrediction, MonteCarloTrainer):
    """Monte Carlo prediction (section 5.1): follow `policy` (state -> action) and learn V, keyed by the states.

    With a table of constant step size this is the constant-alpha MC of the random walk (Example 6.2).
    """

    algorithm = "mc-prediction"

    def generate_episode(self, epsilon: float) -> tuple[list[Hashable], list[float]]:
        """Play the fixed policy from a start; return the states met and the rewards."""
        state, policy = self.start_episode(), self.policy
        states: list[Hashable] = []
        rewards: list[float] = []
        done = False
        while not done:
            states.append(state)
            state, reward, terminated, truncated, _ = self.step(policy(state))
            rewards.append(reward)
            done = terminated or truncated
        return states, rewards
