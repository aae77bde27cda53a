"""Exact evaluation of a learned tic-tac-toe agent, or of anyone's policy: no sampling, every line of play weighed."""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any

from rltorch.envs.capabilities import Distribution
from rltorch.envs.tictactoe.env import Board
from rltorch.envs.tictactoe.exact import (
    exact_outcome,
    exact_outcome_vs_random,
    losing_lines_vs_perfect,
    uniform_perfect,
    uniform_random,
)
from rltorch.envs.tictactoe.solver import count_reachable_keys

SEAT_NAMES = ("X", "O")


def seats_of(seat: str) -> tuple[str, ...]:
    """The seats a learner trained in `seat` plays: 'both' means X and O."""
    return SEAT_NAMES if seat == "both" else (seat,)


def exact_report(agent: Any, seat: str) -> dict[str, Any]:
    """For each seat: exact win / draw / loss against random, and the lines lost to perfect play."""
    report: dict[str, Any] = {}
    for name in seats_of(seat):
        outcome = exact_outcome_vs_random(agent, name)
        lost = losing_lines_vs_perfect(agent, name)
        report[name] = {
            **{key: float(value) for key, value in outcome.items()},
            "fractions": {key: str(Fraction(value)) for key, value in outcome.items()},
            "never_loses_vs_perfect": not lost,
            "lines_lost_vs_perfect": len(lost),
        }
    return report


class _Stochastic(Exception):
    """A policy answered with a distribution where the deterministic report needs one move."""


class _OneMove:
    """A policy's `act` where it names one move per board (raises `_Stochastic` where it does not)."""

    def __init__(self, distribution: Distribution) -> None:
        self.distribution = distribution

    def act(self, board: Board, legal_actions: Sequence[int], rng: Any = None) -> int:
        """The policy's one move on `board`."""
        choice = self.distribution(board, legal_actions)
        if len(choice) != 1:
            raise _Stochastic
        return next(iter(choice))


def policy_report(distribution: Distribution, seat: str) -> dict[str, Any]:
    """Per seat: anyone's policy's exact outcomes against random, and whether any line of perfect play beats it.

    A deterministic policy gets `exact_report` (lines lost to perfect play counted); a stochastic one the
    outcome probabilities, and `never_loses_vs_perfect` from the chance of a loss against the uniform perfect
    player (positive iff some line of perfect play wins).
    """
    try:
        return {"kind": "tictactoe", "opponent": "random", "deterministic": True,
                "seats": exact_report(_OneMove(distribution), seat)}
    except _Stochastic:
        pass

    def strategy(board: Board) -> list[tuple[int, Fraction]]:
        """The policy's move distribution on `board`."""
        return list(distribution(board, [cell for cell in range(9) if board[cell] == 0]).items())

    seats: dict[str, Any] = {}
    for name in seats_of(seat):
        outcome = exact_outcome(strategy, uniform_random, name)
        lost = exact_outcome(strategy, uniform_perfect, name)["loss"]
        seats[name] = {**{key: float(value) for key, value in outcome.items()},
                       "fractions": {key: str(value) for key, value in outcome.items()},
                       "never_loses_vs_perfect": lost == 0, "lines_lost_vs_perfect": None}
    return {"kind": "tictactoe", "opponent": "random", "deterministic": False, "seats": seats}


def reachable_key_count(seat: str, kind: str) -> int:
    """How many keys of `kind` a learner in `seat` ('both' adds X and O) can meet against random."""
    return sum(count_reachable_keys(name, kind) for name in seats_of(seat))


class ExactScalars:
    """The exact figures as TensorBoard scalars, `eval/exact_win` etc. (per seat when seat is 'both')."""

    def __init__(self, seat: str) -> None:
        self.seat = seat

    def __call__(self, agent: Any) -> dict[str, float]:
        """Return the scalars for the agent's current greedy policy."""
        scalars = {}
        for name in seats_of(self.seat):
            suffix = f"_{name}" if self.seat == "both" else ""
            for key, value in exact_outcome_vs_random(agent, name).items():
                scalars[f"eval/exact_{key}{suffix}"] = float(value)
        return scalars


def format_report(report: dict[str, Any]) -> str:
    """The exact report as lines of text."""
    lines = []
    for seat, figures in report.items():
        lost = figures["lines_lost_vs_perfect"]
        verdict = "never loses" if not lost else f"loses {lost} line{'s' if lost > 1 else ''} of play"
        lines.append(
            f"as {seat}: vs random win {figures['win']:.4f}, draw {figures['draw']:.4f}, loss {figures['loss']:.4f} "
            f"(exact: {figures['fractions']['loss']} loss); vs perfect: {verdict}"
        )
    return "\n".join(lines)
