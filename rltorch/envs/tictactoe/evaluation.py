"""Exact evaluation of a learned tic-tac-toe agent: no sampling, every line of play weighed."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from rltorch.envs.tictactoe.exact import exact_outcome_vs_random, losing_lines_vs_perfect
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
