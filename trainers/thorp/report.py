"""The Thorp study's comparison report: Thorp's table, the exact oracle and the learned MC ES policy, side by side.

One row per cell of Thorp's hard (12..17) and soft (18, 19) table, read for the 2-card non-pair
hands that make the total (ten-valued cards grouped, as the oracle values them alike), and one row
per hand of each named exception. Actions are S (stand) and H (hit). The EV gap is
EV(hit) - EV(stand) from the exact single-deck oracle (dealer peeks), and the cost column gives,
for each hand where Thorp or MC ES plays differently from the oracle, the EV given up.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rltorch.envs.blackjack.env import HIT
from rltorch.envs.blackjack.shoe import RANK_NAMES, SAME_RANK
from rltorch.envs.blackjack.single_deck import action_values, expanded_state
from rltorch.run.output import refuse_to_run
from trainers.thorp.learning import ExactPlay, LearnedPolicy, exact_play, hand_name
from trainers.thorp.table import DEALER_CARDS, thorp_action, thorp_hand_action

LETTER = {0: "S", 1: "H"}
HEADER = ("Hand", "Dealer", "Thorp", "Exact", "MC ES", "Exact EV(hit) − EV(stand)", "MC ES Q(hit) − Q(stand)",
          "EV lost where they differ")
EXCEPTION_HANDS = (  # (hand ranks, up rank, why it is listed)
    ((1, 7), 1, "soft 18 vs A: Thorp stands"),
    ((1, 2, 5), 1, "3-card soft 18 vs A"),
    ((10, 6), 10, "2-card 16 vs 10: hit"),
    ((9, 7), 10, "2-card 16 vs 10: hit"),
    ((8, 8), 10, "pair 16 vs 10"),
    ((10, 4, 2), 10, "3-card 16 vs 10: stand"),
    ((7, 5, 4), 10, "3-card 16 vs 10: stand"),
    ((6, 4, 4, 2), 10, "4-card 16 vs 10: stand"),
    ((7, 7), 10, "7-7 vs 10: stand"),
    ((6, 8), 10, "other 14s vs 10: hit"),
)


def cell_hands(total: int, soft: bool) -> list[tuple[int, int]]:
    """The 2-card non-pair hands (ten-valued cards as 10) with this total and softness."""
    if soft:
        return [(1, total - 11)] if 2 <= total - 11 <= 9 else []
    return [(low, total - low) for low in range(2, 10) if low < total - low <= 10]


def _gaps(plays: Sequence[ExactPlay]) -> str:
    """Each hand's exact EV(hit) - EV(stand)."""
    if len(plays) == 1:
        return f"{plays[0].gap:+.4f}"
    return " · ".join(f"{hand_name(p.hand)} {p.gap:+.4f}" for p in plays)


def _exact_action(plays: Sequence[ExactPlay]) -> str:
    """The exact action; where the hands differ, the majority's (or "split") and the hands that hit or stand."""
    hits = [p for p in plays if p.action == HIT]
    stands = [p for p in plays if p.action != HIT]
    if not hits or not stands:
        return "H" if hits else "S"
    if len(hits) * 2 == len(plays):
        return f"split (H: {', '.join(hand_name(p.hand) for p in hits)})"
    major, minor, other = ("H", stands, "S") if len(hits) > len(stands) else ("S", hits, "H")
    return f"{major} ({other}: {', '.join(hand_name(p.hand) for p in minor)})"


def _costs(plays: Sequence[ExactPlay], choices: dict[str, int | list[int]]) -> str:
    """For each chooser, the EV lost on each hand where its action is not the exact one."""
    parts = []
    for who, actions in choices.items():
        actions = actions if isinstance(actions, list) else [actions] * len(plays)
        lost = [f"{hand_name(p.hand)} {abs(p.gap):.4f}" for p, a in zip(plays, actions, strict=True) if a != p.action]
        if lost:
            parts.append(f"{who}: {', '.join(lost)}")
    return "; ".join(parts)


def _learned(policy: LearnedPolicy, state: tuple) -> str:
    """The learned Q gap with its z score and visits."""
    visits = sum(policy.visits.get(state, (0, 0)))
    return f"{policy.gap(state):+.4f} (z {policy.z_score(state):+.1f}, {visits:,} visits)"


def cell_rows(policy: LearnedPolicy) -> list[tuple[str, ...]]:
    """One row per cell of Thorp's hard 17..12 and soft 19, 18 table against 2..10, A."""
    rows = []
    for soft, totals in ((False, range(17, 11, -1)), (True, (19, 18))):
        for total in totals:
            for dealer in DEALER_CARDS:
                hands = cell_hands(total, soft)
                plays = [exact_play(hand, dealer) for hand in hands]
                state = (total, dealer, int(soft), 2, 0)
                thorp, learned = thorp_action(total, dealer, int(soft)), policy.action(state)
                rows.append((f"{'soft' if soft else 'hard'} {total}", RANK_NAMES[dealer], LETTER[thorp],
                             _exact_action(plays), LETTER[learned], _gaps(plays), _learned(policy, state),
                             _costs(plays, {"Thorp": thorp, "MC ES": learned})))
    return rows


def exception_rows(policy: LearnedPolicy, pair_rule: str = SAME_RANK) -> list[tuple[str, ...]]:
    """One row per hand of Thorp's named exceptions and their contrasts, with the no-peek exact play."""
    rows = []
    for hand, up, why in EXCEPTION_HANDS:
        play, state = exact_play(hand, up), expanded_state(hand, up, pair_rule)
        thorp, learned = thorp_hand_action(hand, up), policy.action(state)
        stand, hit = action_values(hand, up, dealer_peeks=False)
        rows.append((f"{hand_name(hand)} ({why})", RANK_NAMES[up], LETTER[thorp], LETTER[play.action],
                     LETTER[learned], f"{play.gap:+.4f} (no peek: {LETTER[int(hit > stand)]} {hit - stand:+.4f})",
                     _learned(policy, state), _costs([play], {"Thorp": thorp, "MC ES": learned})))
    return rows


def markdown_table(rows: Sequence[Sequence[str]], header: Sequence[str] = HEADER) -> str:
    """Rows as a Markdown table."""
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def differing_rows(rows: Sequence[Sequence[str]]) -> list[Sequence[str]]:
    """The rows where Thorp, the exact play or MC ES differ (the last column says what it costs)."""
    return [row for row in rows if row[-1] or row[3].split()[0] != row[2]]


def soft18_table(soft18: dict[str, Any]) -> str:
    """The soft-18 figure runs' last estimates beside the exact values, as a Markdown table."""
    rows = [(game, f"{v['mc_stand']:+.4f}", f"{v['mc_hit']:+.4f}", f"{v['mc_hit'] - v['mc_stand']:+.4f}",
             f"{v['exact_stand']:+.4f}", f"{v['exact_hit']:+.4f}", f"{v['exact_hit'] - v['exact_stand']:+.4f}",
             LETTER[int(v["exact_hit"] > v["exact_stand"])]) for game, v in soft18.items() if isinstance(v, dict)]
    header = ("Game", "MC ES stand", "MC ES hit", "MC ES gap", "Exact stand", "Exact hit", "Exact gap", "Exact play")
    return markdown_table(rows, header)


def report_markdown(policy: LearnedPolicy, run: dict[str, Any], agreement: dict[str, Any],
                    acceptance: dict[str, bool], figures: Sequence[str] = (), soft18: dict[str, Any] | None = None
                    ) -> str:
    """The whole report: run, acceptance, agreement over 2-card hands, exceptions, every table cell, figures."""
    lines = ["# Thorp's basic strategy from MC ES on a single deck", "",
             "Single deck dealt fresh each hand, dealer peeks under an ace or ten and stands on soft 17, hit or "
             "stand only. State: (total, dealer card, usable ace, cards capped at 4, two-card pair). MC ES draws "
             "each episode's start uniformly from the 10,720 (hand, up card) deals, takes a random first action, "
             "then plays greedily; values are sample averages. Exact: the single-deck oracle "
             "(`rltorch.envs.blackjack.single_deck`), dealer peeking. Cells are read for the 2-card non-pair hands of "
             "the total; z is the learned Q gap over its standard error.", "",
             "## Run", "", *(f"- {key}: {value}" for key, value in run.items()), "",
             "## Acceptance", "", *(f"- [{'x' if ok else ' '}] {name}" for name, ok in acceptance.items()), "",
             "## Agreement with the exact play over 2-card hands", "",
             f"- by ranks: {agreement['deals_agreeing']} of {agreement['deals']} deals "
             f"({agreement['deal_agreement']:.1%}); by values (tens grouped): {agreement['hands_agreeing']} of "
             f"{agreement['hands']} hands ({agreement['hand_agreement']:.1%})",
             f"- clear decisions (|EV gap| >= 0.02): {agreement['clear_deals_agreeing']} of "
             f"{agreement['clear_deals']} deals, {agreement['clear_hands_agreeing']} of {agreement['clear_hands']} "
             f"hands; disagreements: {', '.join(agreement['clear_disagreements']) or 'none'}", "",
             "## Named exceptions", "", markdown_table(exception_rows(policy)), "",
             "## Thorp's table, cell by cell", "", markdown_table(cell_rows(policy)), ""]
    if soft18:
        lines += ["## Soft 18 (A-7) against an ace, figure runs", "",
                  f"MC ES on the game after A-7 vs A, {soft18['episodes_each']:,} episodes per game, half from A-7 "
                  "(values at the decision):", "", soft18_table(soft18), ""]
    if figures:
        lines += ["## Figures", "", *(f"![{name}]({name})" for name in figures), ""]
    return "\n".join(lines)


__all__ = [
    "cell_hands",
    "cell_rows",
    "differing_rows",
    "exception_rows",
    "markdown_table",
    "report_markdown",
    "soft18_table",
]


if __name__ == "__main__":
    refuse_to_run(__file__, "study.py", "trainers/thorp/study.py")
