"""A per-step trainer fed one engine run's random numbers: the readable twin of lane i, step by step.

Run i of a batch under `seed` draws from `uniforms(seed, i, ...)` (see `rltorch.engines.draws`).
`follow_stream(trainer, model, seed, i, time_limit)` points a built trainer at that stream: its
generator's `random()` is the next number and `randrange(n)` is floor(u * n) of the next, and its
training env becomes `StreamEnv`, the env's finite model as a Gymnasium env that draws its start
state and each transition's outcome from the same stream (the first running sum of probabilities
above u, a draw only when there is more than one outcome), under Gymnasium's `TimeLimit` when the
env has one. Trained for as many episodes as the lane, the trainer ends with the lane's table,
returns and lengths, having taken as many numbers (`StreamRandom.position`).
"""

from __future__ import annotations

import math
import random
from collections.abc import Hashable
from typing import Any

import gymnasium as gym
from gymnasium import spaces
from gymnasium.wrappers import TimeLimit

from rltorch.engines.draws import uniforms
from rltorch.mdp.model import FiniteModel

CHUNK = 1 << 16  # numbers fetched from the stream at a time


class StreamRandom(random.Random):
    """A `random.Random` whose `random()` and `randrange(n)` read run `run_index`'s stream under `seed` in order."""

    def __init__(self, seed: int, run_index: int) -> None:
        super().__init__(0)
        self.stream_seed, self.run_index = seed, run_index
        self.numbers: list[float] = []
        self.position = 0  # numbers taken so far

    def random(self) -> float:
        """The stream's next number."""
        if self.position == len(self.numbers):
            self.numbers = uniforms(self.stream_seed, self.run_index, len(self.numbers) + CHUNK).tolist()
        self.position += 1
        return self.numbers[self.position - 1]

    def randrange(self, n: int) -> int:  # type: ignore[override]
        """floor(u * n) of the next number (the engine's uniform choice among n)."""
        return math.floor(self.random() * n)


def categorical(probabilities: list[float], rng: StreamRandom) -> int:
    """The engine's outcome rule: the first running sum above u; no draw when one outcome is possible."""
    positive = [index for index, p in enumerate(probabilities) if p > 0]
    if len(positive) == 1:
        return positive[0]
    u, running = rng.random(), 0.0
    for index, p in enumerate(probabilities):
        running += p
        if u < running:
            return index
    return positive[-1]


class StreamEnv(gym.Env):
    """A finite model as a Gymnasium env whose chance comes from a `StreamRandom`; observations are model states."""

    def __init__(self, model: FiniteModel, rng: StreamRandom) -> None:
        self.model, self.rng = model, rng
        self.observation_space = spaces.Discrete(len(model.states))
        self.action_space = spaces.Discrete(model.arrays().legal.shape[1])
        self.state: Hashable = model.states[0]

    def legal_actions(self) -> list[int]:
        """The legal actions of the current state, ascending (the engine's order)."""
        return sorted(self.model.actions.get(self.state, ()))

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[Hashable, dict]:
        """A start state drawn from the model's start distribution."""
        super().reset(seed=seed)
        states = list(self.model.start)
        self.state = states[categorical([self.model.start[s] for s in states], self.rng)]
        return self.state, {}

    def step(self, action: int) -> tuple[Hashable, float, bool, bool, dict]:
        """An outcome of (state, action) drawn from the model; a terminal or absorbing next state ends the episode."""
        outcomes = self.model.transitions[(self.state, int(action))]
        outcome = outcomes[categorical([o.probability for o in outcomes], self.rng)]
        self.state = outcome.next_state
        return self.state, outcome.reward, bool(outcome.terminal or not self.model.actions.get(self.state)), False, {}


def follow_stream(trainer: Any, model: FiniteModel, seed: int, run_index: int, time_limit: int | None) -> StreamRandom:
    """Point `trainer` (built, not yet trained) at run `run_index`'s stream under `seed` (see module)."""
    rng = StreamRandom(seed, run_index)
    base = StreamEnv(model, rng)
    trainer.env = base if time_limit is None else TimeLimit(base, max_episode_steps=time_limit)
    trainer.rng, trainer.legal_actions = rng, base.legal_actions
    return rng
