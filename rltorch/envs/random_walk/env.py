"""The random walk of Sutton & Barto's Example 6.2 (five states) and Example 7.1 (nineteen states).

Rules. The non-terminal states are numbered 1..n from left to right (`n_states`, odd; 5 by
default, the book's A..E as 1..5); every episode starts in the centre state (n + 1) // 2, so C = 3
for five states and 10 for nineteen. There is one action, 0: whatever the agent does, the walk
moves one state left or one state right, each with probability 1/2 (the prediction problem).
Stepping off the left end (observation 0) ends the episode with `left_reward` (0 by default),
stepping off the right end (observation n + 1) ends it with `right_reward` (+1 by default); every
other step gives reward 0. There is no time limit and no discount in the env.

With gamma = 1 the true value of state s is left_reward + (right_reward - left_reward) * s / (n + 1):
1/6, 2/6, ..., 5/6 for the five-state walk and -0.9, -0.8, ..., 0.9 for the nineteen-state walk
of chapter 7 (`n_states=19, left_reward=-1.0`).

Observation: the state number as a plain int, 0..n + 1 (0 and n + 1 only after the episode ended).
Action: the int 0 (any integer-like value: a Python int, a numpy integer or an integral float);
anything else raises TypeError, another integer ValueError, and so does a step after the end.
`reset(options={"state": s})` starts from any non-terminal state s in 1..n. Infos hold `action_mask`:
[1] while the walk goes on, [0] after the end, like `legal_actions()` (`rltorch.envs.actions`).
The exact model of the walk is `env.model()`, a `FiniteModel` whose states are 1..n.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from rltorch.envs.actions import StartOptions, as_action
from rltorch.mdp.model import FiniteModel, Transition

ENV_ID = "rltorch/RandomWalk-v0"
ENV_KWARGS: dict[str, Any] | None = None
ENV_ID_19 = "rltorch/RandomWalk19-v0"
ENV_KWARGS_19: dict[str, Any] = {"n_states": 19, "left_reward": -1.0}

WALK = 0


class RandomWalkEnv(StartOptions, gym.Env):
    """A symmetric random walk over n states with a reward at each end (rules in the module docstring)."""

    metadata = {"render_modes": ["ansi"], "render_fps": 4}

    def __init__(
        self,
        n_states: int = 5,
        left_reward: float = 0.0,
        right_reward: float = 1.0,
        render_mode: str | None = None,
    ) -> None:
        if isinstance(n_states, bool) or not isinstance(n_states, int) or n_states < 1 or n_states % 2 == 0:
            raise ValueError(f"n_states must be an odd positive int, got {n_states!r}")
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode must be None or 'ansi', got {render_mode!r}")
        self.n_states = n_states
        self.left_reward, self.right_reward = float(left_reward), float(right_reward)
        self.render_mode = render_mode
        self.start_state = (n_states + 1) // 2
        self.observation_space = spaces.Discrete(n_states + 2)
        self.action_space = spaces.Discrete(1)
        self._state = self.start_state
        self._done = True

    def _checked_start(self, state: Any) -> int:
        """`options["state"]` as a start, once checked."""
        if not isinstance(state, (int, np.integer)) or isinstance(state, bool) or not 1 <= state <= self.n_states:
            raise ValueError(f"options['state'] must be a non-terminal state 1..{self.n_states}, got {state!r}")
        return int(state)

    def feature_bounds(self) -> tuple[list[float], list[float]]:
        """The box [1, n + 1) of the non-terminal states 1..n (the terminals 0 and n + 1 are never coded)."""
        return [1.0], [float(self.n_states + 1)]

    def legal_actions(self) -> list[int]:
        """The single action 0 while the episode runs, none after it ended."""
        return [] if self._done else [WALK]

    def step(self, action: Any) -> tuple[int, float, bool, bool, dict]:
        """Move left or right at random; return (observation, reward, terminated, truncated, info)."""
        value = as_action(action)
        if self._done:
            raise ValueError(f"cannot take action {action!r}: the episode is over; call reset()")
        if value != WALK:
            raise ValueError(f"action {action!r} is not the random walk's only action 0")
        self._state += 1 if self.np_random.random() < 0.5 else -1
        if self._state == 0:
            return self._end(self.left_reward)
        if self._state == self.n_states + 1:
            return self._end(self.right_reward)
        return self._state, 0.0, False, False, self._mask_info()

    def _end(self, reward: float) -> tuple[int, float, bool, bool, dict]:
        """Finish the episode at the current end with `reward`."""
        self._done = True
        return self._state, reward, True, False, self._mask_info()

    def model(self) -> FiniteModel:
        """The exact model: states 1..n, the one action 0, a step left or right with probability 1/2 each."""
        states = list(range(1, self.n_states + 1))
        transitions = {(state, WALK): [self._outcome(state - 1), self._outcome(state + 1)] for state in states}
        return FiniteModel(
            states=states,
            actions={state: [WALK] for state in states},
            transitions=transitions,
            start={self.start_state: 1.0},
            name=f"random walk ({self.n_states} states)",
        )

    def _outcome(self, next_state: int) -> Transition:
        """The probability-1/2 transition into `next_state`, with the end's reward if it is one."""
        if next_state == 0:
            return Transition(0.5, next_state, self.left_reward, True)
        if next_state == self.n_states + 1:
            return Transition(0.5, next_state, self.right_reward, True)
        return Transition(0.5, next_state, 0.0, False)

    def render(self) -> str | None:
        """Return the walk as text in 'ansi' mode: the ends as '|', the agent's state as '*'."""
        if self.render_mode != "ansi":
            return None
        cells = ["*" if state == self._state else "." for state in range(1, self.n_states + 1)]
        return ("[" if self._state == 0 else "|") + "".join(cells) + ("]" if self._state == self.n_states + 1 else "|")
