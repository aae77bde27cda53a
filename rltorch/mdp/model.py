"""A finite model of an environment: states, legal actions, transitions and the start distribution.

`FiniteModel` is the one representation every exact solver, exact evaluation hook and batched
engine in rltorch reads. States are any hashable observations (the same values the env returns),
indexed in the order of `states`; actions are the env's integer actions. A transition is
`(probability, next_state, reward, terminal)`: a terminal transition ends the episode, so its
`next_state` is never bootstrapped from (it need not be one of `states`). The discount is not part
of the model: every solver takes `gamma` separately.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, NamedTuple

from rltorch.errors import RLTorchError

if TYPE_CHECKING:
    from rltorch.mdp.arrays import ModelArrays

PROBABILITY_TOLERANCE = 1e-9


class Transition(NamedTuple):
    """One outcome of taking an action: its probability, the next state, the (mean) reward, and whether it ends."""

    probability: float
    next_state: Hashable
    reward: float
    terminal: bool


@dataclass
class FiniteModel:
    """States, legal actions per state, transitions per (state, action), and the start distribution.

    `actions[s]` lists the legal actions of decision state `s` (empty for an absorbing state that
    never needs a decision); `transitions[(s, a)]` lists the outcomes of every legal pair;
    `start` maps start states to their probabilities. `horizon` is the env's time limit
    (`max_episode_steps`), recorded for information: the solvers only apply a horizon they are
    given. `validate()` checks all of it.
    """

    states: list[Hashable]
    actions: dict[Hashable, list[int]]
    transitions: dict[tuple[Hashable, int], list[Transition]]
    start: dict[Hashable, float]
    name: str = "model"
    horizon: int | None = None
    index: dict[Hashable, int] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.index = _index_states(self.name, self.states)

    def validate(self) -> FiniteModel:
        """Raise one clear `RLTorchError` naming the state and action of the first inconsistency; return self."""
        self.index = _index_states(self.name, self.states)
        if len(self.index) != len(self.states):
            raise RLTorchError(f"{self.name}: the state list holds duplicates")
        if self.horizon is not None and (not isinstance(self.horizon, int) or self.horizon < 1):
            raise RLTorchError(f"{self.name}: horizon must be None or a positive int, got {self.horizon!r}")
        for state in self.states:
            _check_actions(self, state, self.actions.get(state, ()))
            for action in self.actions.get(state, ()):
                outcomes = self.transitions.get((state, action))
                if not outcomes:
                    raise RLTorchError(f"{self.name}: no transitions for state {state!r}, action {action!r}")
                _check_outcomes(self, state, action, outcomes)
        _check_distribution(self, "start distribution", self.start.items())
        return self

    def legal_actions(self, state: Hashable) -> list[int]:
        """The legal actions of `state` (empty for an absorbing state)."""
        return list(self.actions.get(state, ()))

    def arrays(self) -> ModelArrays:
        """The validated model as padded numpy arrays (see `rltorch.mdp.arrays.ModelArrays`) for vectorised solvers."""
        from rltorch.mdp.arrays import build_arrays

        return build_arrays(self.validate())


def _index_states(name: str, states: Sequence[Hashable]) -> dict[Hashable, int]:
    """Map each state to its position (first one wins); an unhashable state raises `RLTorchError`."""
    index: dict[Hashable, int] = {}
    for position, state in enumerate(states):
        try:
            index.setdefault(state, position)
        except TypeError:
            raise RLTorchError(
                f"{name}: observations must be hashable, but state {state!r} at position {position} "
                f"is a {type(state).__name__}"
            ) from None
    return index


def _check_actions(model: FiniteModel, state: Hashable, actions: Iterable[int]) -> None:
    """Each legal action of `state` must be a distinct non-negative int."""
    seen = set()
    for action in actions:
        try:
            number = operator.index(action)
        except TypeError:
            number = -1
        if isinstance(action, bool) or number < 0:
            raise RLTorchError(f"{model.name}: state {state!r}, action {action!r}: actions must be non-negative ints")
        if number in seen:
            raise RLTorchError(f"{model.name}: state {state!r}, action {action!r}: the action is listed twice")
        seen.add(number)


def _as_float(value: object, what: str) -> float:
    """`value` as a float, or an `RLTorchError` that begins with `what`."""
    try:
        return float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise RLTorchError(f"{what} {value!r} is not a number") from None


def _is_state(model: FiniteModel, candidate: object) -> bool:
    """Whether `candidate` is one of the model's states (False for anything unhashable)."""
    try:
        return candidate in model.index
    except TypeError:
        return False


def _check_outcomes(model: FiniteModel, state: Hashable, action: int, outcomes: Sequence[Transition]) -> None:
    """Check one (state, action)'s outcomes: finite non-negative probabilities summing to 1, known states, rewards."""
    where = f"{model.name}: state {state!r}, action {action!r}:"
    total = 0.0
    for outcome in outcomes:
        try:
            probability, next_state, reward, terminal = outcome
        except (TypeError, ValueError):
            raise RLTorchError(f"{where} an outcome must be (probability, next_state, reward, terminal), "
                               f"got {outcome!r}") from None
        p = _as_float(probability, f"{where} probability")
        if not math.isfinite(p) or p < 0:
            raise RLTorchError(f"{where} probability {probability!r} is negative or not finite")
        if not math.isfinite(_as_float(reward, f"{where} reward")):
            raise RLTorchError(f"{where} reward {reward!r} is not finite")
        if not terminal and not _is_state(model, next_state):
            raise RLTorchError(f"{where} non-terminal next state {next_state!r} is not one of the model's states")
        total += p
    if abs(total - 1.0) > PROBABILITY_TOLERANCE:
        raise RLTorchError(f"{where} probabilities sum to {total!r}, not 1")


def _check_distribution(model: FiniteModel, what: str, items: Iterable[tuple[Hashable, float]]) -> None:
    """Check a distribution over the model's states: known states, finite non-negative probabilities summing to 1."""
    total = 0.0
    for state, probability in items:
        if not _is_state(model, state):
            raise RLTorchError(f"{model.name}: {what} names {state!r}, which is not one of the model's states")
        p = _as_float(probability, f"{model.name}: {what}: probability of state {state!r}:")
        if not math.isfinite(p) or p < 0:
            raise RLTorchError(f"{model.name}: {what}: probability {probability!r} of state {state!r} "
                               f"is negative or not finite")
        total += p
    if abs(total - 1.0) > PROBABILITY_TOLERANCE:
        raise RLTorchError(f"{model.name}: {what} sums to {total!r}, not 1")
