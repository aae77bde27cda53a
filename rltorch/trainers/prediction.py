"""TD prediction: estimate V of a given policy, keyed by the states (Sutton & Barto section 6.1).

Constant-alpha Monte Carlo prediction, the other method of the random walk (Example 6.2), is
`MCPrediction` with a value table of constant step size (alpha=0.1, say); n-step TD prediction is
`rltorch.trainers.nstep.NStepTDPrediction`.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Hashable
from typing import Any, ClassVar

from rltorch.agents import PolicyAgent
from rltorch.trainers.base import Trainer, legal_actions_of
from rltorch.trainers.stats import EpisodeStats, Outcomes, play_greedy


class UniformRandomPolicy:
    """The uniform random policy over the env's legal actions, drawn from the trainer's seeded generator.

    A state with one legal action (the random walks) draws nothing, so the trainer's stream is the env's alone.
    """

    def __init__(self, legal_actions: Callable[[], list[int]], rng: random.Random) -> None:
        self.legal_actions, self.rng = legal_actions, rng

    def __call__(self, state: Hashable) -> int:
        """An action of the current state (the env's), each legal one with the same probability."""
        legal = self.legal_actions()
        if len(legal) == 1:
            return legal[0]
        if not legal:
            raise ValueError(f"state {state!r} offers no legal action to draw from")
        return legal[self.rng.randrange(len(legal))]

    def __repr__(self) -> str:
        """The policy's name, as a run's config records it."""
        return "UniformRandomPolicy()"


class PolicyPrediction(Trainer):
    """The shared part of prediction trainers: the evaluated `policy` (state -> action), no epsilon, a PolicyAgent.

    Without a `policy` it evaluates the uniform random policy over the legal actions (`UniformRandomPolicy`),
    drawing from the trainer's generator `rng`: runs with one seed are identical, and a resumed run draws on.
    """

    predicts_state_values: ClassVar[bool] = True

    def __init__(self, *args: Any, policy: Callable[[Hashable], int] | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.policy = policy if policy is not None else UniformRandomPolicy(self.legal_actions, self.rng)

    def test(self, episodes: int, max_steps: int = 10_000) -> EpisodeStats:
        """Play `episodes` episodes of the evaluated policy on the evaluation env (cut after `max_steps` steps).

        The uniform random policy draws there at every step from a generator of its own, seeded by `seed` + 1
        afresh at each call, so a test leaves the training stream alone.
        """
        if not isinstance(self.policy, UniformRandomPolicy):
            return super().test(episodes, max_steps)
        legal = legal_actions_of(self.eval_env)
        agent = PolicyAgent(UniformRandomPolicy(legal, random.Random(self.seed + 1)), self.value_fn)
        stats = EpisodeStats(outcomes=Outcomes() if self.is_game else None)
        return play_greedy(agent, self.eval_env, legal, episodes, stats, max_steps, frozen=False)

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
