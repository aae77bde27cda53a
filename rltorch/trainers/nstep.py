"""n-step bootstrapping (Sutton & Barto chapter 7): n-step TD prediction, n-step SARSA and n-step Expected SARSA.

One loop, as the book's boxes read: for t = 0, 1, 2, ...: while t < T take A_t and observe R_{t+1},
S_{t+1} (T = t + 1 when the episode ends); then tau = t - n + 1 and, when tau >= 0, the key of time
tau moves toward G = R_{tau+1} + ... + gamma^(h-tau-1) R_h + gamma^(h-tau) * bootstrap(S_h), h = min(tau + n, T),
with no bootstrap when S_h is terminal; until tau = T - 1. An episode shorter than n gives Monte
Carlo returns. The bootstrap state S_h is always the env's current state when tau is updated.
A time limit (truncation) ends the episode at T but its S_T is not terminal: the last updates
bootstrap from it. With n = 1 each class is its one-step method, float for float.
"""

from __future__ import annotations

import math
from collections.abc import Hashable
from dataclasses import dataclass, field
from typing import Any, ClassVar

from rltorch.options import Option
from rltorch.targets import epsilon_greedy_expectation, n_step_return
from rltorch.trainers.base import Trainer
from rltorch.trainers.prediction import PolicyPrediction

MAX_N = 10**6  # steps before bootstrapping: an episode idles n steps at its end


@dataclass
class NStepEpisode:
    """The episode so far: (A_t, key_t) for every chosen t, the rewards (R_t at index t), and T once known."""

    chosen: list[tuple[int, Hashable]] = field(default_factory=list)
    rewards: list[float] = field(default_factory=lambda: [0.0])
    end: float = math.inf
    truncated: bool = False


class NStepTD(Trainer):
    """The shared n-step loop (section 7.1's order); subclasses say how to act and what to bootstrap from."""

    chooses_ahead = False  # n-step SARSA selects A_{t+1} as soon as S_{t+1} is observed
    options: ClassVar[tuple[Option, ...]] = (
        Option("n", int, 4, "n-step methods: steps before bootstrapping", minimum=1, maximum=MAX_N),)

    def __init__(self, *args: Any, n: int = 1, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if isinstance(n, bool) or not isinstance(n, int) or n < 1:
            raise ValueError(f"n must be an int >= 1, got {n!r}")
        self.n = n

    def select(self, state: Hashable, epsilon: float) -> tuple[int, Hashable]:
        """The action to take in `state` and the key it updates: epsilon-greedy on Q."""
        return self.choose(state, epsilon)

    def bootstrap(self, state: Hashable, key: Hashable | None, epsilon: float) -> float:
        """The estimate that closes an n-step return in `state` (`key`: the action chosen there, if one was)."""
        raise NotImplementedError

    def run_episode(self, epsilon: float) -> float:
        """Play one episode, updating the key of time tau = t - n + 1 after each time t, until tau = T - 1."""
        state, _ = self.env.reset()
        episode, t = NStepEpisode(), 0
        while True:
            if t < episode.end:
                state = self.take_step(state, t, episode, epsilon)
            tau = t - self.n + 1
            if tau >= 0:
                self.learn(episode.chosen[tau][1], self.n_step_target(tau, episode, state, epsilon))
            if tau == episode.end - 1:
                return sum(episode.rewards)
            t += 1

    def take_step(self, state: Hashable, t: int, episode: NStepEpisode, epsilon: float) -> Hashable:
        """Take A_t (selected now unless selected ahead), observe R_{t+1} and S_{t+1}; at the end set T = t + 1."""
        if len(episode.chosen) == t:
            episode.chosen.append(self.select(state, epsilon))
        state, reward, terminated, truncated, _ = self.step(episode.chosen[t][0])
        episode.rewards.append(reward)
        if terminated or truncated:
            episode.end, episode.truncated = t + 1, not terminated
        if self.chooses_ahead and not terminated:
            episode.chosen.append(self.select(state, epsilon))
        return state

    def n_step_target(self, tau: int, episode: NStepEpisode, state: Hashable, epsilon: float) -> float:
        """G_{tau:tau+n}: R_{tau+1} .. R_h, then gamma^(h - tau) times the bootstrap in S_h unless S_h is terminal."""
        horizon = min(tau + self.n, episode.end)
        bootstrap = None
        if horizon < episode.end or episode.truncated:
            key = episode.chosen[horizon][1] if horizon < len(episode.chosen) else None
            bootstrap = self.bootstrap(state, key, epsilon)
        return n_step_return(episode.rewards[tau + 1:int(horizon) + 1], self.gamma, bootstrap)

    def config(self) -> dict:
        """The settings, with n."""
        return {**super().config(), "n": self.n}


class NStepSARSATrainer(NStepTD):
    """n-step SARSA (section 7.2): bootstrap from Q(S_{tau+n}, A_{tau+n}), A_{t+1} chosen epsilon-greedily at once."""

    algorithm = "nstep-sarsa"
    chooses_ahead = True

    def bootstrap(self, state: Hashable, key: Hashable | None, epsilon: float) -> float:
        """Q(S_h, A_h) of the action already chosen in S_h."""
        return self.value_fn.value(key)


class NStepExpectedSARSATrainer(NStepTD):
    """n-step Expected SARSA (section 7.2): bootstrap from sum_a pi(a|S_{tau+n}) Q(S_{tau+n}, a), pi epsilon-greedy."""

    algorithm = "nstep-expected-sarsa"

    def bootstrap(self, state: Hashable, key: Hashable | None, epsilon: float) -> float:
        """The expected value of `state` (the current one) under epsilon-greedy over its legal actions."""
        return epsilon_greedy_expectation(self.state_values(state), epsilon)


class NStepTDPrediction(PolicyPrediction, NStepTD):
    """n-step TD for estimating V of `policy` (section 7.1): V keyed by the states, bootstrapping from V(S_{tau+n})."""

    algorithm = "nstep-td-prediction"

    def select(self, state: Hashable, epsilon: float) -> tuple[int, Hashable]:
        """The policy's action; the key is the state."""
        return self.policy(state), state

    def bootstrap(self, state: Hashable, key: Hashable | None, epsilon: float) -> float:
        """V(S_h)."""
        return self.value_fn.value(state)
