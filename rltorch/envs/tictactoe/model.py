"""Tic-tac-toe against a fixed stochastic opponent as a `FiniteModel`, for the generic exact solvers.

States are the boards (9-tuples, as the env returns them) where the learner is to move and the
game is not over, reachable from the start by some play of the learner against the opponent's
moves of positive probability. Actions are the empty cells. One transition is the env's `step`:
our move, then the opponent's reply folded in. A move that completes our line ends the game with
+1, one that fills the board with 0; else each reply of the opponent (with its exact probability)
completes its line (-1), fills the board (0) or leaves the next decision board (reward 0). A
terminal outcome's next state is the final board. The start is the empty board for X; for O, the
boards after the opponent's opening move, with that move's probabilities.

The opponent is a strategy `board -> [(cell, probability), ...]` (as in `exact.py`) or a spec:
"random" (uniform over the empty cells), "perfect" (uniform over `solver.optimal_moves`), "smart"
(`SmartRandomOpponent(smart_p)`: with chance p the first winning cell in legal order, else the
first blocking one, if either exists; otherwise, and with chance 1 - p, uniform), or a mixture by
weight such as "random:0.5,perfect:0.5" (drawn per move, as `MixtureOpponent`). The self-play
opponent changes as the learner learns and has no fixed model. Probabilities are exact `Fraction`s
until they are stored as floats.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from fractions import Fraction

from rltorch.envs.tictactoe.env import EMPTY, Board, O, X, afterstate, legal_moves, to_move, winner
from rltorch.envs.tictactoe.exact import MoveDistribution, Strategy, uniform_perfect, uniform_random
from rltorch.envs.tictactoe.opponents import _would_complete, parse_opponent
from rltorch.envs.tictactoe.solver import EMPTY_BOARD
from rltorch.errors import RLTorchError
from rltorch.mdp.model import FiniteModel, Transition

LEARNER_SEATS = {"X": X, "O": O}


def smart_strategy(p: float = 0.8) -> Strategy:
    """The exact move distribution of `SmartRandomOpponent(p)`: p on its win-or-block cell, the rest uniform."""
    if not 0.0 <= p <= 1.0:
        raise RLTorchError(f"smart opponent probability must be in [0, 1], got {p}")
    smart = Fraction(p)

    def strategy(board: Board) -> MoveDistribution:
        moves = legal_moves(board)
        share = Fraction(1, len(moves))
        target = _win_or_block(board, moves)
        if target is None:
            return [(move, share) for move in moves]
        return [(move, (1 - smart) * share + (smart if move == target else 0)) for move in moves]

    return strategy


def _win_or_block(board: Board, moves: list[int]) -> int | None:
    """The smart opponent's cell: the first that completes its own line, else the first that blocks one."""
    mark = to_move(board)
    for target in (mark, -mark):
        for cell in moves:
            if _would_complete(board, cell, target):
                return cell
    return None


def opponent_strategy(opponent: str | Strategy = "random", smart_p: float = 0.8) -> Strategy:
    """The opponent's exact strategy from a spec ("random", "perfect", "smart", a weighted mixture) or as given."""
    if callable(opponent):
        return opponent
    if not isinstance(opponent, str):
        raise RLTorchError(f"opponent must be a spec string or a strategy, got {type(opponent).__name__}")
    parts = parse_opponent(opponent)
    makers: dict[str, Callable[[], Strategy]] = {
        "random": lambda: uniform_random, "perfect": lambda: uniform_perfect, "smart": lambda: smart_strategy(smart_p)}
    if any(name not in makers for name, _ in parts):
        raise RLTorchError(f"opponent {opponent!r}: the self-play opponent changes as it learns and has no fixed model")
    if len(parts) == 1:
        return makers[parts[0][0]]()
    total = sum(Fraction(weight) for _, weight in parts)
    weighted = [(makers[name](), Fraction(weight) / total) for name, weight in parts]
    return lambda board: _mix(board, weighted)


def _mix(board: Board, weighted: list[tuple[Strategy, Fraction]]) -> MoveDistribution:
    """The mixture's distribution on `board`: each strategy's, scaled by its weight, added up per cell."""
    mixed: dict[int, Fraction] = {}
    for strategy, weight in weighted:
        for move, p in strategy(board):
            mixed[move] = mixed.get(move, Fraction(0)) + weight * p
    return sorted(mixed.items())


def tictactoe_model(seat: str = "X", opponent: str | Strategy = "random", *, smart_p: float = 0.8) -> FiniteModel:
    """The validated MDP of the learner in `seat` ("X" or "O") against `opponent` (see the module docstring)."""
    if seat not in LEARNER_SEATS:
        raise RLTorchError(f"seat must be 'X' or 'O', got {seat!r}")
    reply = opponent_strategy(opponent, smart_p)
    memo: dict[Board, dict[Board, Fraction]] = {}
    start = {EMPTY_BOARD: Fraction(1)} if seat == "X" else _replies(EMPTY_BOARD, reply, memo)
    states: list[Hashable] = list(start)
    seen = set(states)
    actions: dict[Hashable, list[int]] = {}
    transitions: dict[tuple[Hashable, int], list[Transition]] = {}
    for board in states:  # grows while it is read: a breadth-first search over decision boards
        actions[board] = legal_moves(board)
        for move in actions[board]:
            transitions[(board, move)] = outcomes = _move_outcomes(board, move, reply, memo)
            for outcome in outcomes:
                if not outcome.terminal and outcome.next_state not in seen:
                    seen.add(outcome.next_state)
                    states.append(outcome.next_state)
    name = f"tictactoe({seat} vs {opponent if isinstance(opponent, str) else 'strategy'})"
    floats = {board: float(p) for board, p in start.items()}
    return FiniteModel(states, actions, transitions, floats, name=name, horizon=None).validate()


def _replies(board: Board, reply: Strategy, memo: dict[Board, dict[Board, Fraction]]) -> dict[Board, Fraction]:
    """The boards after the opponent's move on `board`, each computed once (many of our moves meet again)."""
    if board not in memo:
        memo[board] = _reply_boards(board, reply)
    return memo[board]


def _reply_boards(board: Board, reply: Strategy) -> dict[Board, Fraction]:
    """The boards after the opponent's move on `board`, with their probabilities (zero-probability moves left out)."""
    boards: dict[Board, Fraction] = {}
    for move, p in reply(board):
        if board[move] != EMPTY:
            raise RLTorchError(f"opponent strategy plays the occupied cell {move} of {board}")
        if p > 0:
            after = afterstate(board, move)
            boards[after] = boards.get(after, Fraction(0)) + p
    total = sum(boards.values())
    if total != 1 and abs(float(total) - 1.0) > 1e-12:
        raise RLTorchError(f"opponent strategy's probabilities on {board} sum to {total}, not 1")
    return boards


def _move_outcomes(board: Board, move: int, reply: Strategy, memo: dict[Board, dict[Board, Fraction]],
                   ) -> list[Transition]:
    """Our `move` on `board` and every reply: terminal +1 / 0 after our move, -1 / 0 after a reply, else go on."""
    after = afterstate(board, move)
    if winner(after) != 0:
        return [Transition(1.0, after, 1.0, True)]
    if EMPTY not in after:
        return [Transition(1.0, after, 0.0, True)]
    outcomes = []
    for final, p in _replies(after, reply, memo).items():
        if winner(final) != 0:
            outcomes.append(Transition(float(p), final, -1.0, True))
        else:
            outcomes.append(Transition(float(p), final, 0.0, EMPTY not in final))
    return outcomes


__all__ = ["LEARNER_SEATS", "opponent_strategy", "smart_strategy", "tictactoe_model"]
