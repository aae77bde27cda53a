"""The 1000-state random walk of Sutton & Barto's Example 9.1.

Rules. States 1..1000, start in the centre state 500. Every step jumps to one of the 100 states to the
left or the 100 states to the right, each of the 200 with probability 1/200; a jump past an end ends the
episode there (so near an end the leftover probability goes to termination): off the left end (observation
0) with reward -1, off the right end (observation 1001) with reward +1; every other step gives 0. One action,
0; no discount and no time limit in the env. `n_states` and `jump` set other sizes.

A step draws one number u from the env's generator and jumps by floor(u * 2 * jump) - jump, plus 1 when that
is not negative (left jumps first). Observation: the state number as a plain int, 0..n + 1; `env.model()`
is the exact `FiniteModel` over states 1..n, each state's outcomes in the same left-to-right order.
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from rltorch.envs.actions import StartOptions, as_action
from rltorch.mdp.model import FiniteModel, Transition

ENV_ID_1000 = "rltorch/RandomWalk1000-v0"
ENV_KWARGS_1000: dict | None = None
WALK = 0


class JumpWalkEnv(StartOptions, gym.Env):
    """A random walk over n states with jumps of 1..`jump` to either side (rules in the module docstring)."""

    metadata = {"render_modes": []}

    def __init__(self, n_states: int = 1000, jump: int = 100, render_mode: str | None = None) -> None:
        for name, value in (("n_states", n_states), ("jump", jump)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be a positive int, got {value!r}")
        if render_mode is not None:
            raise ValueError(f"render_mode must be None, got {render_mode!r}")
        self.n_states, self.jump, self.render_mode = n_states, jump, render_mode
        self.start_state = (n_states + 1) // 2 if n_states % 2 else n_states // 2
        self.observation_space = spaces.Discrete(n_states + 2)
        self.action_space = spaces.Discrete(1)
        self._state, self._done = self.start_state, True

    def _checked_start(self, state: object) -> int:
        """`options["state"]` as a start, once checked."""
        if not isinstance(state, (int, np.integer)) or isinstance(state, bool) or not 1 <= state <= self.n_states:
            raise ValueError(f"options['state'] must be a non-terminal state 1..{self.n_states}, got {state!r}")
        return int(state)

    def feature_bounds(self) -> tuple[list[float], list[float]]:
        """The box [1, n + 1) of the non-terminal states 1..n (the terminals 0 and n + 1 are never coded)."""
        return [1.0], [float(self.n_states + 1)]

    def legal_actions(self) -> list[int]:
        """The single action 0 while the walk goes on, none after it ended."""
        return [] if self._done else [WALK]

    def step(self, action: object) -> tuple[int, float, bool, bool, dict]:
        """Jump left or right at random; return (observation, reward, terminated, truncated, info)."""
        value = as_action(action)
        if self._done:
            raise ValueError(f"cannot take action {action!r}: the episode is over; call reset()")
        if value != WALK:
            raise ValueError(f"action {action!r} is not the walk's only action 0")
        offset = int(self.np_random.random() * 2 * self.jump) - self.jump
        self._state = min(max(self._state + offset + (offset >= 0), 0), self.n_states + 1)
        if self._state in (0, self.n_states + 1):
            self._done = True
            return self._state, -1.0 if self._state == 0 else 1.0, True, False, self._mask_info()
        return self._state, 0.0, False, False, self._mask_info()

    def model(self) -> FiniteModel:
        """The exact model: states 1..n, action 0, outcomes left to right (an end merges the jumps past it)."""
        states = list(range(1, self.n_states + 1))
        return FiniteModel(states=states, actions={state: [WALK] for state in states},
                           transitions={(state, WALK): self._outcomes(state) for state in states},
                           start={self.start_state: 1.0}, name=f"random walk ({self.n_states} states, jumps)")

    def _outcomes(self, state: int) -> list[Transition]:
        """The jumps from `state`, leftmost first, those past an end merged into one terminal outcome."""
        p = 1.0 / (2 * self.jump)
        past_left = max(self.jump - state + 1, 0)
        past_right = max(state + self.jump - self.n_states, 0)
        outcomes = [Transition(p * past_left, 0, -1.0, True)] if past_left else []
        outcomes += [Transition(p, state + offset, 0.0, False)
                     for offset in [*range(-self.jump, 0), *range(1, self.jump + 1)]
                     if 1 <= state + offset <= self.n_states]
        return outcomes + ([Transition(p * past_right, self.n_states + 1, 1.0, True)] if past_right else [])
