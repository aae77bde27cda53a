"""Cards by rank and a finite shoe for `rltorch.envs.blackjack`.

A card is its rank 1..13: ace = 1, two to ten at face value, jack = 11, queen = 12, king = 13.
Its blackjack value is `RANK_VALUES[rank]` (the four ten-valued ranks are all worth 10). A shoe of
k decks holds 4k cards of each rank and deals them without replacement: each draw takes a
uniformly random card among those left (a shuffle done lazily, one random number per card).

Pairs. A two-card hand is a pair under `SAME_RANK` when both cards have one rank (ten-jack is not
a pair), under `SAME_VALUE` when both have one value (any two ten-valued cards are a pair).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence

RANKS = tuple(range(1, 14))
RANK_VALUES = (0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10)
RANK_NAMES = ("", "A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
CARDS_PER_RANK = 4
MAX_HARD_TOTAL = 21
SAME_RANK, SAME_VALUE = "same_rank", "same_value"
PAIR_RULES = (SAME_RANK, SAME_VALUE)


def is_pair(first: int, second: int, rule: str = SAME_RANK) -> bool:
    """Whether two ranks make a pair under `rule` (SAME_RANK or SAME_VALUE)."""
    if rule == SAME_RANK:
        return first == second
    return RANK_VALUES[first] == RANK_VALUES[second]


def hard_total(ranks: Sequence[int]) -> int:
    """The total of a hand of ranks with every ace counted as 1."""
    return sum(RANK_VALUES[rank] for rank in ranks)


def _as_rank(card: object) -> int:
    """`card` as a rank 1..13, or ValueError (TypeError for what is not a number)."""
    rank = int(card)
    if rank != card or not 1 <= rank <= len(RANKS):
        raise ValueError(card)
    return rank


def check_start(hand: Sequence[int], dealer_card: int | None) -> tuple[tuple[int, ...], int | None]:
    """Validate an exploring start (player ranks, dealer up rank or None); return it as plain ints."""
    try:
        ranks = tuple(map(_as_rank, hand))
        up = None if dealer_card is None else _as_rank(dealer_card)
    except (TypeError, ValueError):
        raise ValueError(f"a start needs ranks 1..13 (A=1, J=11, Q=12, K=13), got {hand!r}, {dealer_card!r}") from None
    if len(ranks) < 2 or hard_total(ranks) > MAX_HARD_TOTAL:
        raise ValueError(f"a start hand needs two or more cards with a hard total of 21 or less, got {hand!r}")
    return ranks, up


class Shoe:
    """`decks` decks dealt without replacement; a fresh shoe each hand, or kept until a penetration."""

    def __init__(self, decks: int, rng: random.Random, penetration: float | None = None) -> None:
        if isinstance(decks, bool) or not isinstance(decks, int) or decks < 1:
            raise ValueError(f"decks must be None (infinite) or a whole number >= 1, got {decks!r}")
        if penetration is not None and not 0 < penetration <= 1:
            raise ValueError(f"penetration must be in (0, 1], got {penetration!r}")
        self.decks = decks
        self.rng = rng
        self.penetration = penetration
        self.full = [rank for rank in RANKS for _ in range(CARDS_PER_RANK * decks)]
        self.cards: list[int] = []
        self.in_play: list[int] = []

    def __len__(self) -> int:
        return len(self.cards)

    def shuffle(self) -> None:
        """Gather every card back into the shoe."""
        self.cards = self.full.copy()
        self.in_play = []

    def start_hand(self) -> None:
        """Begin a hand: reshuffle unless the shoe is kept and less than the penetration is dealt."""
        dealt = 1 - len(self.cards) / len(self.full)
        if self.penetration is None or dealt >= self.penetration or not self.cards:
            self.shuffle()
        self.in_play = []

    def draw(self) -> int:
        """Deal a uniformly random card left in the shoe (refilled from the discards if it runs out)."""
        cards = self.cards
        if not cards:
            cards = self._refill()
        index = int(self.rng.random() * len(cards))
        rank = cards[index]
        cards[index] = cards[-1]
        cards.pop()
        self.in_play.append(rank)
        return rank

    def take(self, ranks: Sequence[int]) -> None:
        """Take the given cards out of the shoe (for an exploring start), or raise, taking none, if it lacks them."""
        taken: list[int] = []
        for rank in ranks:
            try:
                self.cards.remove(rank)
            except ValueError:
                self.cards += taken
                missing = RANK_NAMES[rank]
                raise ValueError(f"the shoe holds too few cards of rank {missing} for {tuple(ranks)!r}") from None
            taken.append(rank)
        self.in_play += taken

    def _refill(self) -> list[int]:
        """Put every card not on the table back into the shoe."""
        left = Counter(self.full)
        left.subtract(self.in_play)
        self.cards = [rank for rank, count in left.items() for _ in range(count)]
        if not self.cards:
            raise RuntimeError("every card in the shoe is on the table")
        return self.cards


__all__ = [
    "CARDS_PER_RANK",
    "PAIR_RULES",
    "RANKS",
    "RANK_NAMES",
    "RANK_VALUES",
    "SAME_RANK",
    "SAME_VALUE",
    "Shoe",
    "check_start",
    "hard_total",
    "is_pair",
]
