"""Key makers: which value-function keys stand for the actions available in a state.

With `StateActionKeys` the value function is Q; with `AfterstateKeys` it is the afterstate V; with `StateKeys`
it is a prediction run's V(s) of a fixed policy. All are plain picklable objects, so a saved agent carries its
keys with it.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence


class StateActionKeys:
    """Key each action by the pair (state, action): the value function is Q."""

    kind = "q"

    def __call__(self, state: Hashable, actions: Sequence[int]) -> list[Hashable]:
        """Return one (state, action) key per action."""
        return [(state, action) for action in actions]


class AfterstateKeys:
    """Key each action by the afterstate it produces: the value function is the afterstate V."""

    kind = "afterstate"

    def __init__(self, afterstate: Callable[[Hashable, int], Hashable]) -> None:
        self.afterstate = afterstate

    def __call__(self, state: Hashable, actions: Sequence[int]) -> list[Hashable]:
        """Return the afterstate of each action."""
        afterstate = self.afterstate
        return [afterstate(state, action) for action in actions]


class StateKeys:
    """Key each action by the state itself: the value function is a prediction run's V(s), with no value per action."""

    kind = "state"

    def __call__(self, state: Hashable, actions: Sequence[int]) -> list[Hashable]:
        """Return the state once per action (a state value ranks no action above another)."""
        return [state for _ in actions]
