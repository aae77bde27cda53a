"""Monte Carlo: play a whole episode, then move each (first-)visited key toward the return that followed it."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from typing import Any

from rltorch.agents import PolicyAgent
from rltorch.targets import monte_carlo_returns
from rltorch.trainers.base import Trainer


class MCTrainer(Trainer):
    """First-visit (default) or every-visit Monte Carlo, for control or for prediction.

    - Control (the default): act epsilon-greedily on Q and learn Q. With a constant epsilon this is
      on-policy first-visit control of an epsilon-soft policy (Sutton & Barto, section 5.4).
    - Exploring starts (`start_states=...`, `exploring_starts=True`): every episode starts in a
      uniformly drawn one of `start_states` (through `env.reset(options={"state": s})`) with a
      uniformly random first action, then follows the schedule (epsilon 0: greedy). With sample
      averages this is MC ES (section 5.3). A start may instead be a dict of reset options, passed
      as `env.reset(options=start)`, e.g. `{"hand": (10, 6), "dealer_card": 10}` for a deal of cards.
    - Prediction (`policy=...`): follow the given policy (a callable from state to action) and
      learn its state values V, keyed by the states themselves (section 5.1).

    The step size is the value function's: a table with `alpha=None` keeps sample averages.
    """

    algorithm = "mc"

    def __init__(
        self,
        *args: Any,
        first_visit: bool = True,
        policy: Callable[[Hashable], int] | None = None,
        start_states: Sequence[Hashable | Mapping[str, Any]] | None = None,
        exploring_starts: bool = False,
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        self.first_visit = first_visit
        self.policy = policy
        self.start_states = None if start_states is None else list(start_states)
        self.exploring_starts = exploring_starts
        if self.start_states is not None and not self.start_states:
            raise ValueError("start_states must not be empty")
        if exploring_starts and self.start_states is None:
            raise ValueError("exploring starts need start_states to draw from")
        if exploring_starts and policy is not None:
            raise ValueError("exploring starts are for control; prediction follows its policy from the first step")

    # --- one episode ---------------------------------------------------------------------------
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
        """Play one episode; return the key of each step (the state, when predicting) and the reward that followed."""
        if self.policy is not None:
            return self._follow_policy(self.start_episode())
        env = self.env
        state = self.start_episode()
        keys: list[Hashable] = []
        rewards: list[float] = []
        done = False
        if self.exploring_starts:
            legal = self.legal_actions()
            action = legal[self.rng.randrange(len(legal))]
            keys.append(self.keys(state, (action,))[0])
            state, reward, terminated, truncated, _ = env.step(action)
            rewards.append(reward)
            done = terminated or truncated
        while not done:
            action, key = self.choose(state, epsilon)
            state, reward, terminated, truncated, _ = env.step(action)
            keys.append(key)
            rewards.append(reward)
            done = terminated or truncated
        return keys, rewards

    def _follow_policy(self, state: Hashable) -> tuple[list[Hashable], list[float]]:
        """Play the fixed policy from `state`; return the states met and the rewards."""
        env, policy = self.env, self.policy
        states: list[Hashable] = []
        rewards: list[float] = []
        done = False
        while not done:
            states.append(state)
            state, reward, terminated, truncated, _ = env.step(policy(state))
            rewards.append(reward)
            done = terminated or truncated
        return states, rewards

    def update_from_episode(self, keys: list[Hashable], rewards: list[float]) -> None:
        """Move each key toward its return; with first visit, only at a key's first occurrence."""
        returns = monte_carlo_returns(rewards, self.gamma)
        if not self.first_visit:
            for key, episode_return in zip(keys, returns):
                self.learn(key, episode_return)
            return
        seen: set[Hashable] = set()
        for key, episode_return in zip(keys, returns):
            if key not in seen:
                seen.add(key)
                self.learn(key, episode_return)

    # --- what is evaluated and saved -----------------------------------------------------------
    def uses_epsilon(self) -> bool:
        """Prediction follows its policy, so no epsilon is used or logged."""
        return self.policy is None

    def agent(self) -> Any:
        """The greedy agent over Q, or, when predicting, the evaluated policy with its values."""
        if self.policy is not None:
            return PolicyAgent(self.policy, self.value_fn)
        return super().agent()

    def config(self) -> dict:
        """The settings, with the visit rule and the kind of Monte Carlo."""
        config = {**super().config(), "first_visit": self.first_visit}
        if self.policy is not None:
            config["policy"] = repr(self.policy)
        if self.start_states is not None:
            config["start_states"] = len(self.start_states)
            config["exploring_starts"] = self.exploring_starts
        return config
