"""The maximization-bias MDP of Sutton & Barto's Example 6.7 (Figure 6.5).

Rules. Every episode starts in state A (observation 0), which has two actions: LEFT (0) moves to
state B (observation 1) with reward 0, and RIGHT (1) ends the episode with reward 0. State B has
`b_actions` actions, numbered 0..b_actions - 1 (10 by default; the book says "many"); each ends
the episode with a reward drawn from a normal distribution with mean `reward_mean` (-0.1) and
standard deviation `reward_std` (1). After the end the observation is 2 (the terminal state).
There is no time limit and no discount in the env.

Going left from A is worth -0.1 in expectation and going right 0, so the optimal policy always
goes right; Q-learning's maximum over B's noisy estimates makes left look good early on.

The action space is Discrete(max(2, b_actions)), but only the current state's actions are legal:
`legal_actions()` gives [0, 1] in A and 0..b_actions - 1 in B (none after the end); any other
integer raises ValueError, and so does a step after the end. Actions may be any integer-like
value (a Python int, a numpy integer or an integral float); anything else raises TypeError.
`reset(options={"state": 1})` starts in B (0 is A, the default). Infos hold `action_mask`, the legal
actions over the action space (only 0 and 1 in A; none after the end), as `rltorch.envs.actions` says.
The exact model is `env.model()`, a `FiniteModel` with states A and B whose rewards are the
means (B's actions carry `reward_mean`); the env samples the reward with `self.np_random.normal`.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from rltorch.envs.actions import StartOptions, as_action
from rltorch.mdp.model import FiniteModel, Transition

ENV_ID = "rltorch/MaximizationBias-v0"
ENV_KWARGS: dict[str, Any] | None = None

STATE_A, STATE_B, TERMINAL = 0, 1, 2
LEFT, RIGHT = 0, 1
STATE_NAMES = ("A", "B", "terminal")


class MaximizationBiasEnv(StartOptions, gym.Env):
    """Two states: A's right ends at 0, A's left leads to B, whose many actions end with a noisy -0.1 (see module)."""

    metadata = {"render_modes": ["ansi"], "render_fps": 4}
    start_state = STATE_A

    def __init__(
        self,
        b_actions: int = 10,
        reward_mean: float = -0.1,
        reward_std: float = 1.0,
        render_mode: str | None = None,
    ) -> None:
        if isinstance(b_actions, bool) or not isinstance(b_actions, int) or b_actions < 1:
            raise ValueError(f"b_actions must be a positive int, got {b_actions!r}")
        if not reward_std >= 0:
            raise ValueError(f"reward_std must be non-negative, got {reward_std!r}")
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode must be None or 'ansi', got {render_mode!r}")
        self.b_actions = b_actions
        self.reward_mean, self.reward_std = float(reward_mean), float(reward_std)
        self.render_mode = render_mode
        self.observation_space = spaces.Discrete(3)
        self.action_space = spaces.Discrete(max(2, b_actions))
        self._state = STATE_A
        self._done = True

    def actions_of(self, state: int) -> list[int]:
        """The legal actions of `state`: LEFT and RIGHT in A, 0..b_actions - 1 in B, none at the end."""
        if state == STATE_A:
            return [LEFT, RIGHT]
        return list(range(self.b_actions)) if state == STATE_B else []

    def _checked_start(self, state: Any) -> int:
        """`options["state"]` as a start, once checked."""
        if isinstance(state, bool) or not isinstance(state, (int, np.integer)) or state not in (STATE_A, STATE_B):
            raise ValueError(f"options['state'] must be 0 (A) or 1 (B), got {state!r}")
        return int(state)

    def legal_actions(self) -> list[int]:
        """The actions of the current state (none after the episode ended)."""
        return [] if self._done else self.actions_of(self._state)

    def step(self, action: Any) -> tuple[int, float, bool, bool, dict]:
        """Take `action` in A or B; return (observation, reward, terminated, truncated, info)."""
        value = as_action(action)
        if self._done:
            raise ValueError(f"cannot take action {action!r}: the episode is over; call reset()")
        legal = self.actions_of(self._state)
        if value not in legal:
            raise ValueError(f"action {action!r} is not legal in state {STATE_NAMES[self._state]}: "
                             f"the legal actions are {legal[0]}..{legal[-1]}")
        if self._state == STATE_A and value == LEFT:
            self._state = STATE_B
            return self._state, 0.0, False, False, self._mask_info()
        reward = 0.0 if self._state == STATE_A else float(self.np_random.normal(self.reward_mean, self.reward_std))
        self._state, self._done = TERMINAL, True
        return self._state, reward, True, False, self._mask_info()

    def model(self) -> FiniteModel:
        """The exact model with mean rewards: A's LEFT to B, A's RIGHT ends at 0, B's actions end at the mean."""
        transitions = {
            (STATE_A, LEFT): [Transition(1.0, STATE_B, 0.0, False)],
            (STATE_A, RIGHT): [Transition(1.0, TERMINAL, 0.0, True)],
        }
        for action in range(self.b_actions):
            transitions[(STATE_B, action)] = [Transition(1.0, TERMINAL, self.reward_mean, True)]
        return FiniteModel(
            states=[STATE_A, STATE_B],
            actions={STATE_A: self.actions_of(STATE_A), STATE_B: self.actions_of(STATE_B)},
            transitions=transitions,
            start={STATE_A: 1.0},
            name=f"maximization bias ({self.b_actions} actions in B)",
        )

    def render(self) -> str | None:
        """Return the current state's name as text in 'ansi' mode."""
        if self.render_mode != "ansi":
            return None
        return f"state {STATE_NAMES[self._state]}"
