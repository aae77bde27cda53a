"""Thorp's single-deck basic strategy for hitting and standing (Beat the Dealer, 1966), as data.

Taken from the table reproduced in the Thorp study (seed 001). Thorp computed it by exact
combinatorics for one deck dealt without replacement. A hand stands once its total reaches the
standing number for the dealer's up card, and hits below it:

- hard hands: stand on 13 or more against a 2 or 3, on 12 or more against a 4, 5 or 6, on 17 or
  more against a 7, 8, 9, 10 or ace (so always hit 11 or less, always stand on 17 or more);
- soft hands: stand on 18 or more against 2 to 8 and against an ace, on 19 or more against a 9
  or 10 (so always hit soft 17 or less, always stand on soft 19 or more).

Named exceptions (the places where a single deck, or the cards that make a total, change the
play): stand on soft 18 (A-7) against an ace, where the infinite deck hits; hard 16 against a
10: hit with two cards, e.g. 10-6 or 9-7, stand with three or more, e.g. 6-4-4-2; stand on 7-7
against a 10 (other hard 14s hit). Dealer cards are values 1..10, 1 = ace.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rltorch.envs.blackjack.env import HIT, STICK, hand_value
from rltorch.envs.blackjack.shoe import RANK_VALUES
from rltorch.run.output import refuse_to_run

DEALER_CARDS = (2, 3, 4, 5, 6, 7, 8, 9, 10, 1)
HARD_STAND_FROM = {2: 13, 3: 13, 4: 12, 5: 12, 6: 12, 7: 17, 8: 17, 9: 17, 10: 17, 1: 17}
SOFT_STAND_FROM = {2: 18, 3: 18, 4: 18, 5: 18, 6: 18, 7: 18, 8: 18, 9: 19, 10: 19, 1: 18}
HARD_TOTALS = tuple(range(12, 18))
SOFT_TOTALS = (18, 19)


@dataclass(frozen=True)
class ThorpException:
    """A named play in Thorp's table that a plain (total, dealer card, soft) strategy can not express."""

    name: str
    hands: tuple[tuple[int, ...], ...]
    dealer_card: int
    action: int


EXCEPTIONS = (
    ThorpException("soft 18 (A-7) against an ace: stand", ((1, 7),), 1, STICK),
    ThorpException("two-card hard 16 against a 10: hit", ((10, 6), (9, 7)), 10, HIT),
    ThorpException("three-or-more-card hard 16 against a 10: stand", ((6, 4, 4, 2),), 10, STICK),
    ThorpException("7-7 against a 10: stand", ((7, 7),), 10, STICK),
)


def thorp_action(total: int, dealer_card: int, usable_ace: int, cards: int = 2, pair: int = 0) -> int:
    """Thorp's play (STICK 0 / HIT 1) for an observation, 3-tuple or expanded; `cards` counts the player's."""
    if dealer_card == 10 and not usable_ace:
        if total == 16:
            return HIT if cards == 2 else STICK
        if total == 14 and cards == 2 and pair:
            return STICK
    stand_from = (SOFT_STAND_FROM if usable_ace else HARD_STAND_FROM)[dealer_card]
    return STICK if total >= stand_from else HIT


def thorp_hand_action(hand: Sequence[int], dealer_card: int) -> int:
    """Thorp's play for a hand of ranks 1..13 against an up rank (ten, jack, queen, king are all 10s)."""
    total, soft = hand_value(RANK_VALUES[rank] for rank in hand)
    pair = len(hand) == 2 and RANK_VALUES[hand[0]] == RANK_VALUES[hand[1]]
    return thorp_action(total, RANK_VALUES[dealer_card], int(soft), len(hand), int(pair))


def thorp_table(soft: bool) -> dict[tuple[int, int], int]:
    """The plain table for two-card non-pair hands: (total, dealer card) -> action, hard 12..17 or soft 18..19."""
    totals = SOFT_TOTALS if soft else HARD_TOTALS
    return {(total, dealer): thorp_action(total, dealer, int(soft)) for total in totals for dealer in DEALER_CARDS}


__all__ = [
    "DEALER_CARDS",
    "EXCEPTIONS",
    "HARD_STAND_FROM",
    "SOFT_STAND_FROM",
    "ThorpException",
    "thorp_action",
    "thorp_hand_action",
    "thorp_table",
]


if __name__ == "__main__":
    refuse_to_run(__file__, "study.py", "trainers/thorp/study.py")
