"""The players a tic-tac-toe env can hold as its opponent, and the `--opponent` spec that builds them.

Every opponent has `act(board, legal_actions, rng)` and must not modify its arguments. A spec is a
name (`random`, `smart`, `perfect`, `self`) or a mixture by weight such as `random:0.7,perfect:0.3`,
drawn per move.
"""

from __future__ import annotations

import copy
import math
import random
from collections.abc import Callable, Hashable, Sequence
from typing import Any, Protocol

from rltorch.envs.tictactoe.env import LINES_THROUGH, to_move
from rltorch.errors import RLTorchError
from rltorch.policies import greedy

OPPONENT_NAMES = ("random", "smart", "perfect", "self")


class Opponent(Protocol):
    """Anything that picks a cell: `act(board, legal_actions, rng)`; it must not modify its arguments."""

    def act(self, board: Sequence[int], legal_actions: Sequence[int], rng: random.Random | None = None) -> int:
        """Return the chosen cell."""
        ...


class RandomOpponent:
    """Plays a uniformly random legal cell."""

    def act(self, board: Sequence[int], legal_actions: Sequence[int], rng: random.Random | None = None) -> int:
        """Return a random legal cell."""
        rng = rng or random
        return legal_actions[rng.randrange(len(legal_actions))]


class SmartRandomOpponent:
    """With probability `p` takes a winning cell, else a blocking one; otherwise plays at random."""

    def __init__(self, p: float = 0.8) -> None:
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"smart opponent probability must be in [0, 1], got {p}")
        self.p = p

    def act(self, board: Sequence[int], legal_actions: Sequence[int], rng: random.Random | None = None) -> int:
        """Return a winning or blocking cell with probability p, else a random one."""
        rng = rng or random
        if rng.random() < self.p:
            mark = to_move(board)
            for target in (mark, -mark):
                for cell in legal_actions:
                    if _would_complete(board, cell, target):
                        return cell
        return legal_actions[rng.randrange(len(legal_actions))]


def _would_complete(board: Sequence[int], cell: int, mark: int) -> bool:
    """Whether `mark` on the empty `cell` would complete a line."""
    return any(sum(board[c] == mark for c in line if c != cell) == 2 for line in LINES_THROUGH[cell])


class MixtureOpponent:
    """At every move, hands the choice to one of several opponents drawn by weight."""

    def __init__(self, opponents: Sequence[tuple[Opponent, float]]) -> None:
        weights = [weight for _, weight in opponents]
        if not opponents or not all(math.isfinite(w) and w > 0 for w in weights):
            raise ValueError("a mixture needs at least one opponent and finite positive weights")
        self.opponents = [opponent for opponent, _ in opponents]
        total = sum(weights)
        self.cumulative = [sum(weights[: i + 1]) / total for i in range(len(weights))]

    def act(self, board: Sequence[int], legal_actions: Sequence[int], rng: random.Random | None = None) -> int:
        """Draw an opponent by weight and return its cell."""
        rng = rng or random
        draw = rng.random()
        for opponent, bound in zip(self.opponents, self.cumulative, strict=True):
            if draw < bound:
                return opponent.act(board, legal_actions, rng)
        return self.opponents[-1].act(board, legal_actions, rng)


class SelfPlayOpponent:
    """A frozen copy of a learner's values, played epsilon-greedily; `refresh` copies them again.

    Until the first `refresh` it plays at random. It knows only the keys the learner has met,
    so a learner that should face itself trains with seat "both".
    """

    def __init__(self, epsilon: float = 0.1) -> None:
        self.epsilon = epsilon
        self.value_fn: Any = None
        self.keys: Callable[[Hashable, Sequence[int]], list[Hashable]] | None = None

    def refresh(self, value_fn: Any, keys: Callable[[Hashable, Sequence[int]], list[Hashable]]) -> None:
        """Freeze a copy of the learner's current values (and the keys it reads them by)."""
        self.value_fn = copy.deepcopy(value_fn)
        self.keys = keys

    def act(self, board: Sequence[int], legal_actions: Sequence[int], rng: random.Random | None = None) -> int:
        """Epsilon-greedy over the frozen values (random ties)."""
        rng = rng or random
        if self.value_fn is None or rng.random() < self.epsilon:
            return legal_actions[rng.randrange(len(legal_actions))]
        values = self.value_fn.values(self.keys(tuple(board), legal_actions))
        return legal_actions[greedy(values, rng)]


def parse_opponent(spec: str) -> list[tuple[str, float]]:
    """Parse 'random' or 'random:0.5,perfect:0.5' into (name, weight) pairs; weights finite and positive."""
    parts = []
    for item in spec.split(","):
        name, _, weight_text = item.strip().partition(":")
        if name not in OPPONENT_NAMES:
            raise RLTorchError(f"unknown opponent {name!r} in {spec!r}; choose from {', '.join(OPPONENT_NAMES)}")
        try:
            weight = float(weight_text) if weight_text else 1.0
        except ValueError:
            raise RLTorchError(f"bad weight {weight_text!r} in opponent {spec!r}") from None
        if not (math.isfinite(weight) and weight > 0):
            raise RLTorchError(f"weight {weight_text!r} in opponent {spec!r} must be finite and positive")
        parts.append((name, weight))
    return parts


def build_opponent(spec: str, smart_p: float = 0.8) -> tuple[Opponent, list[SelfPlayOpponent]]:
    """The opponent a spec names, and the self-play copies inside it (to refresh)."""
    from rltorch.envs.tictactoe.solver import PerfectAgent

    self_play: list[SelfPlayOpponent] = []
    opponents: list[tuple[Opponent, float]] = []
    for name, weight in parse_opponent(spec):
        if name == "self":
            self_play = self_play or [SelfPlayOpponent()]
            opponent: Opponent = self_play[0]
        else:
            makers = {"random": RandomOpponent, "perfect": PerfectAgent, "smart": lambda: SmartRandomOpponent(smart_p)}
            opponent = makers[name]()
        opponents.append((opponent, weight))
    return (opponents[0][0] if len(opponents) == 1 else MixtureOpponent(opponents)), self_play
