"""Small fixtures shared by the tests: a scripted opponent."""

from __future__ import annotations

import random
from collections.abc import Sequence


class ScriptedOpponent:
    """Plays the given cells in order (each must be legal when its turn comes)."""

    def __init__(self, moves: Sequence[int]) -> None:
        self.moves = list(moves)

    def act(self, board: Sequence[int], legal_actions: Sequence[int], rng: random.Random | None = None) -> int:
        """Return the next scripted cell."""
        move = self.moves.pop(0)
        assert move in legal_actions, f"scripted move {move} is not legal on {board}"
        return move
