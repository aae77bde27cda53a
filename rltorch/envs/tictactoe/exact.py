"""Exact tic-tac-toe outcomes: whole game trees weighted by exact `Fraction` probabilities.

A *strategy* maps a board to the moves its player makes there, each with an exact probability.
`uniform_random` and `uniform_perfect` are the random and perfect players; `deterministic(agent)`
wraps any object with `act(board, legal_actions)` (a `GreedyAgent`, say). An *outcome* is a dict
{"win", "draw", "loss"} of Fractions from one seat's point of view. No sampling anywhere.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from fractions import Fraction
from functools import cache
from typing import Protocol

from rltorch.envs.tictactoe.env import EMPTY, Board, O, X, afterstate, legal_moves, to_move, winner
from rltorch.envs.tictactoe.solver import EMPTY_BOARD, optimal_moves, seat_mark

MoveDistribution = list[tuple[int, Fraction]]
Strategy = Callable[[Board], MoveDistribution]
Outcome = dict[str, Fraction]
Triple = tuple[Fraction, Fraction, Fraction]  # (win, draw, loss) for one mark

OBJECTIVES: dict[str, Callable[[Triple], tuple[Fraction, Fraction]]] = {
    "win": lambda t: (t[0], -t[2]),  # most wins, then fewest losses
    "score": lambda t: (t[0] - t[2], t[0]),  # best expected reward (+1 / 0 / -1), then most wins
    "safe": lambda t: (-t[2], t[0]),  # fewest losses, then most wins
}


class Agent(Protocol):
    """A deterministic player: `act(board, legal_actions)` returns a cell."""

    def act(self, board: Board, legal_actions: Sequence[int]) -> int:
        """Return the chosen cell."""
        ...


def uniform_over(choices: Callable[[Board], list[int]]) -> Strategy:
    """The strategy that plays each of `choices(board)` with equal probability."""

    def strategy(board: Board) -> MoveDistribution:
        moves = choices(board)
        share = Fraction(1, len(moves))
        return [(move, share) for move in moves]

    return strategy


uniform_random: Strategy = uniform_over(legal_moves)
uniform_perfect: Strategy = uniform_over(optimal_moves)


def deterministic(agent: Agent) -> Strategy:
    """The strategy that always plays `agent.act(board, legal_moves(board))`."""

    def strategy(board: Board) -> MoveDistribution:
        legal = legal_moves(board)
        move = agent.act(board, legal)
        if move not in legal:
            raise ValueError(f"agent played {move}, not an empty cell of {board}")
        return [(move, Fraction(1))]

    return strategy


def final_marks(x: Strategy, o: Strategy, board: Board = EMPTY_BOARD) -> dict[int, Fraction]:
    """Exact probabilities of how play from `board` ends: keyed by the winning mark, 0 for a draw."""
    strategies = {X: x, O: o}
    memo: dict[Board, dict[int, Fraction]] = {}

    def play_out(position: Board) -> dict[int, Fraction]:
        if position in memo:
            return memo[position]
        mark = winner(position)
        if mark != 0 or EMPTY not in position:
            result = {mark: Fraction(1)}
        else:
            result = {}
            for move, chance in strategies[to_move(position)](position):
                for end, share in play_out(afterstate(position, move)).items():
                    result[end] = result.get(end, Fraction(0)) + chance * share
        memo[position] = result
        return result

    ends = play_out(tuple(board))
    return {mark: ends.get(mark, Fraction(0)) for mark in (X, 0, O)}


def exact_outcome(strategy: Strategy, opponent: Strategy, seat: str = "X") -> Outcome:
    """Exact win / draw / loss probabilities of `strategy` in `seat` against `opponent`."""
    mark = seat_mark(seat)
    ends = final_marks(strategy, opponent) if mark == X else final_marks(opponent, strategy)
    return {"win": ends[mark], "draw": ends[0], "loss": ends[-mark]}


def exact_outcome_vs_random(agent: Agent | None, seat: str = "X") -> Outcome:
    """Exact win / draw / loss of a deterministic `agent` (None: a uniform random player) vs random."""
    strategy = uniform_random if agent is None else deterministic(agent)
    return exact_outcome(strategy, uniform_random, seat)


def random_vs_random() -> Outcome:
    """Exact win / draw / loss for X when both players move uniformly at random."""
    return exact_outcome(uniform_random, uniform_random, "X")


def losing_lines_vs_perfect(agent: Agent, seat: str) -> list[tuple[int, ...]]:
    """Every game (cells in order) that `agent` in `seat` loses to some choice of optimal replies."""
    mark = seat_mark(seat)
    strategy = deterministic(agent)
    lines: list[tuple[int, ...]] = []

    def explore(board: Board, line: tuple[int, ...]) -> None:
        if winner(board) == -mark:
            lines.append(line)
        if winner(board) != 0 or EMPTY not in board:
            return
        moves = [move for move, _ in strategy(board)] if to_move(board) == mark else optimal_moves(board)
        for move in moves:
            explore(afterstate(board, move), line + (move,))

    explore(EMPTY_BOARD, ())
    return lines


def never_loses_vs_perfect(agent: Agent, seat: str) -> bool:
    """Whether `agent` in `seat` draws or wins against every line of optimal play."""
    return not losing_lines_vs_perfect(agent, seat)


@cache
def _best_vs_random(board: Board, mark: int, objective: str) -> Triple:
    """(win, draw, loss) for `mark` playing the expectimax policy vs random from `board`."""
    end = winner(board)
    if end != 0:
        return (Fraction(1), Fraction(0), Fraction(0)) if end == mark else (Fraction(0), Fraction(0), Fraction(1))
    moves = legal_moves(board)
    if not moves:
        return (Fraction(0), Fraction(1), Fraction(0))
    children = [_best_vs_random(afterstate(board, move), mark, objective) for move in moves]
    if to_move(board) == mark:
        return max(children, key=OBJECTIVES[objective])  # the first best, as ExpectimaxAgent plays
    share = Fraction(1, len(children))
    win, draw, loss = (sum(child[i] for child in children) * share for i in range(3))
    return (win, draw, loss)


def _check_objective(objective: str) -> None:
    """Raise ValueError unless `objective` names one of OBJECTIVES."""
    if objective not in OBJECTIVES:
        raise ValueError(f"objective must be one of {sorted(OBJECTIVES)}, got {objective!r}")


def best_outcome_vs_random(seat: str = "X", objective: str = "win") -> Outcome:
    """Exact win / draw / loss of the expectimax policy for `seat` against a uniform random opponent."""
    _check_objective(objective)
    win, draw, loss = _best_vs_random(EMPTY_BOARD, seat_mark(seat), objective)
    return {"win": win, "draw": draw, "loss": loss}


def best_win_probability_vs_random(seat: str = "X") -> Fraction:
    """The largest win probability any policy in `seat` achieves against a uniform random opponent."""
    return best_outcome_vs_random(seat, "win")["win"]


class ExpectimaxAgent:
    """Plays the move that is best against a uniform random opponent (first among ties), either seat."""

    def __init__(self, objective: str = "win") -> None:
        _check_objective(objective)
        self.objective = objective

    def act(self, board: Sequence[int], legal_actions: Sequence[int], rng: random.Random | None = None) -> int:
        """Return the legal move with the best expectimax outcome for the player to move."""
        board = tuple(board)
        mark, rank = to_move(board), OBJECTIVES[self.objective]
        scores = [rank(_best_vs_random(afterstate(board, move), mark, self.objective)) for move in legal_actions]
        return legal_actions[scores.index(max(scores))]


__all__ = [
    "OBJECTIVES",
    "Agent",
    "ExpectimaxAgent",
    "MoveDistribution",
    "Outcome",
    "Strategy",
    "best_outcome_vs_random",
    "best_win_probability_vs_random",
    "deterministic",
    "exact_outcome",
    "exact_outcome_vs_random",
    "final_marks",
    "losing_lines_vs_perfect",
    "never_loses_vs_perfect",
    "random_vs_random",
    "uniform_over",
    "uniform_perfect",
    "uniform_random",
]
