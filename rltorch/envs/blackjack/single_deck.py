"""Exact hit/stand values for blackjack dealt from one deck (or k decks), and the start hands.

The oracle. For a player hand and a dealer up card (ranks 1..13, as in `rltorch.envs.blackjack.shoe`), the
cards not yet seen, the dealer's hidden card among them, are a composition: counts of the values
1..10 left. Standing is worth the expected outcome over the hidden card and the dealer's draws,
all without replacement; hitting is worth the expectation over the next card of -1 for a bust or
of the better of standing and hitting again. The player knows every card it holds, so this is
the composition-dependent optimum, exact up to float rounding. The player's hand is the deck less
the composition and the up card, so the player's values are memoized on the composition alone;
the dealer's final-total distributions on (composition, total, soft).

Rules (`rltorch.envs.blackjack`): hit or stand only, the dealer stands on soft 17 unless
`dealer_hits_soft_17`. With `dealer_peeks=True` the dealer with an ace or ten up has checked for a
natural and has none: the values are those at the decision, conditional on that (every card's
chance is conditioned on the hidden card not completing a natural). Without a peek the hidden card
may make a natural, which is then an ordinary 21: a player's 21 draws against it, and a player
who stands on less loses. `value_from_deal(..., dealer_peeks=True)` puts the peeked naturals back
in: -1 each (a draw for a player's 21), as an env's episode from that start scores them. A
player's own two-card 21 is valued as an ordinary 21 (the env's default, `natural=False`).

The start hands (Thorp study, seed 001): every multiset of 2, 3 or 4 of the 13 ranks (2,366),
those with a hard total of 21 or less (825), each with every up-card rank still in one deck
(10,720 exploring starts); and the expanded states `(total, dealer card, usable ace, cards capped
at 4, two-card pair)` reachable from one deck with the player deciding on every total: 818 when a
pair is two cards of one rank, 808 when any two ten-valued cards are a pair.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from functools import cache
from itertools import combinations_with_replacement

from rltorch.envs.blackjack.env import (
    BLACKJACK,
    HIT,
    MAX_COUNTED_CARDS,
    STICK,
    add_card,
    dealer_should_hit,
    hand_value,
)
from rltorch.envs.blackjack.shoe import CARDS_PER_RANK, RANK_VALUES, RANKS, SAME_RANK, check_start, is_pair

Composition = tuple[int, ...]
Start = tuple[tuple[int, ...], int]
ExpandedState = tuple[int, int, int, int, int]

TEN_VALUED_RANKS = 4
BUST = 22
DEALER_FINALS = (17, 18, 19, 20, 21, BUST)  # BUST stands for any total over 21
_SETTLED = {final: tuple(float(final == other) for other in DEALER_FINALS) for final in DEALER_FINALS}
START_SIZES = (2, 3, 4)


def full_composition(decks: int = 1) -> Composition:
    """The counts of values 1..10 in `decks` decks: 4k of each, 16k tens."""
    return (*(CARDS_PER_RANK * decks,) * 9, CARDS_PER_RANK * TEN_VALUED_RANKS * decks)


def remaining(cards: Sequence[int], decks: int = 1) -> Composition:
    """The composition left after taking out `cards` (ranks 1..13); raise if the deck lacks them."""
    counts = list(full_composition(decks))
    for rank in cards:
        counts[RANK_VALUES[rank] - 1] -= 1
    if min(counts) < 0:
        raise ValueError(f"{decks} deck(s) can not hold the cards {tuple(cards)!r}")
    return tuple(counts)


def _without(comp: Composition, value: int) -> Composition:
    """`comp` less one card of `value`."""
    index = value - 1
    return comp[:index] + (comp[index] - 1,) + comp[index + 1 :]


def _dealer_finals(comp: Composition, total: int, soft: bool, hits_soft_17: bool) -> tuple[float, ...]:
    """Chances of DEALER_FINALS for a dealer holding (total, soft) and drawing from `comp`."""
    if total > BLACKJACK:
        return _SETTLED[BUST]
    if not dealer_should_hit(total, soft, hits_soft_17):
        return _SETTLED[total]
    return _dealer_draws(comp, total, soft, hits_soft_17)


@cache
def _dealer_draws(comp: Composition, total: int, soft: bool, hits_soft_17: bool) -> tuple[float, ...]:
    """`_dealer_finals` for a dealer who must draw, memoized (the settled hands are not stored)."""
    left = sum(comp)
    mix = [0.0] * len(DEALER_FINALS)
    for value, count in enumerate(comp, start=1):
        if count:
            after = _dealer_finals(_without(comp, value), *add_card(total, soft, value), hits_soft_17)
            share = count / left
            for i, chance in enumerate(after):
                if chance:
                    mix[i] += share * chance
    return tuple(mix)


def _stand_outcome(player_total: int, finals: Sequence[float]) -> float:
    """The expected reward of standing on `player_total` against the dealer's final-total chances."""
    pairs = list(zip(DEALER_FINALS, finals, strict=True))
    won = sum(chance for final, chance in pairs if final > BLACKJACK or final < player_total)
    lost = sum(chance for final, chance in pairs if player_total < final <= BLACKJACK)
    return won - lost


class _Oracle:
    """Memoized values for one up card, deck count and rule set."""

    def __init__(self, up_value: int, decks: int, peeks: bool, hits_soft_17: bool) -> None:
        self.up_value, self.hits_soft_17 = up_value, hits_soft_17
        self.full = full_composition(decks)
        natural_hole = {1: 10, 10: 1}.get(up_value) if peeks else None
        self.barred = natural_hole  # the hidden card's value that the peek has ruled out, if any
        self.values: dict[Composition, tuple[float, float]] = {}

    def card_chances(self, comp: Composition) -> Iterator[tuple[int, float]]:
        """(value, chance) of the player's next card, given that the hidden card is not `barred`."""
        left = sum(comp)
        if self.barred is None:
            yield from ((value, count / left) for value, count in enumerate(comp, start=1) if count)
            return
        allowed = left - comp[self.barred - 1]
        for value, count in enumerate(comp, start=1):
            if count:
                yield value, count * (allowed - (value != self.barred)) / ((left - 1) * allowed)

    def hole_chances(self, comp: Composition) -> Iterator[tuple[int, float]]:
        """(value, chance) of the dealer's hidden card, given that it is not `barred`."""
        allowed = sum(comp) - (comp[self.barred - 1] if self.barred else 0)
        for value, count in enumerate(comp, start=1):
            if count and value != self.barred:
                yield value, count / allowed

    def stand(self, comp: Composition, player_total: int) -> float:
        """The value of standing on `player_total` with `comp` unseen."""
        up_total, up_soft = add_card(0, False, self.up_value)
        value = 0.0
        for hole, chance in self.hole_chances(comp):
            finals = _dealer_finals(_without(comp, hole), *add_card(up_total, up_soft, hole), self.hits_soft_17)
            value += chance * _stand_outcome(player_total, finals)
        return value

    def stand_hit(self, comp: Composition) -> tuple[float, float]:
        """(stand, hit) values of the player's hand that leaves `comp` unseen."""
        if comp not in self.values:
            total, soft = self.player_hand(comp)
            hit = 0.0
            for value, chance in self.card_chances(comp):
                after, _ = add_card(total, soft, value)
                hit += chance * (-1.0 if after > BLACKJACK else max(self.stand_hit(_without(comp, value))))
            self.values[comp] = (self.stand(comp, total), hit)
        return self.values[comp]

    def player_hand(self, comp: Composition) -> tuple[int, bool]:
        """The player's (total, soft): the cards missing from `comp`, less the up card."""
        held = [full - left for full, left in zip(self.full, comp, strict=True)]
        held[self.up_value - 1] -= 1
        return hand_value(value for value, count in enumerate(held, start=1) for _ in range(count))


@cache
def _oracle(up_value: int, decks: int, peeks: bool, hits_soft_17: bool) -> _Oracle:
    """The shared memo for one up card and rule set."""
    return _Oracle(up_value, decks, peeks, hits_soft_17)


def action_values(
    hand: Sequence[int], dealer_card: int, dealer_peeks: bool = True, dealer_hits_soft_17: bool = False, decks: int = 1
) -> tuple[float, float]:
    """The exact (stand, hit) values of the player's ranks against the dealer's up rank, at the decision."""
    ranks, up = check_start(hand, dealer_card)
    comp = remaining((*ranks, up), decks)
    return _oracle(RANK_VALUES[up], decks, dealer_peeks, dealer_hits_soft_17).stand_hit(comp)


def best_action(
    hand: Sequence[int], dealer_card: int, dealer_peeks: bool = True, dealer_hits_soft_17: bool = False, decks: int = 1
) -> int:
    """HIT (1) where hitting is worth more than standing, else STICK (0)."""
    stand, hit = action_values(hand, dealer_card, dealer_peeks, dealer_hits_soft_17, decks)
    return HIT if hit > stand else STICK


def dealer_natural_chance(hand: Sequence[int], dealer_card: int, decks: int = 1) -> float:
    """The chance that the hidden card makes the dealer a natural, given the player's and the up card."""
    ranks, up = check_start(hand, dealer_card)
    needed = {1: 10, 10: 1}.get(RANK_VALUES[up])
    comp = remaining((*ranks, up), decks)
    return 0.0 if needed is None else comp[needed - 1] / sum(comp)


def value_from_deal(
    hand: Sequence[int], dealer_card: int, dealer_peeks: bool = True, dealer_hits_soft_17: bool = False, decks: int = 1
) -> tuple[float, float]:
    """(stand, hit) values seen from the deal: with a peek, the dealer naturals it ends the hand on count in."""
    stand, hit = action_values(hand, dealer_card, dealer_peeks, dealer_hits_soft_17, decks)
    if not dealer_peeks:
        return stand, hit
    natural = dealer_natural_chance(hand, dealer_card, decks)
    settled = natural * (0.0 if hand_value(RANK_VALUES[rank] for rank in hand)[0] == BLACKJACK else -1.0)
    return settled + (1 - natural) * stand, settled + (1 - natural) * hit


def player_hands(sizes: Sequence[int] = START_SIZES) -> list[tuple[int, ...]]:
    """Every multiset of `sizes` cards from the 13 ranks, as sorted rank tuples (2,366 for 2, 3, 4)."""
    return [hand for size in sizes for hand in combinations_with_replacement(RANKS, size)]


def start_hands(sizes: Sequence[int] = START_SIZES) -> list[tuple[int, ...]]:
    """The player hands whose hard total (aces as 1) is at most 21 (825 for 2, 3, 4 cards)."""
    return [hand for hand in player_hands(sizes) if sum(RANK_VALUES[rank] for rank in hand) <= BLACKJACK]


def exploring_starts(decks: int = 1, sizes: Sequence[int] = START_SIZES) -> list[Start]:
    """Each start hand with every up-card rank the shoe still holds (10,720 for one deck)."""
    limit = CARDS_PER_RANK * decks
    starts = []
    for hand in start_hands(sizes):
        if max(hand.count(rank) for rank in hand) <= limit:
            starts += [(hand, up) for up in RANKS if hand.count(up) < limit]
    return starts


def expanded_state(hand: Sequence[int], dealer_card: int, pair_rule: str = SAME_RANK) -> ExpandedState:
    """The 5-tuple observation of a hand of ranks against an up rank, as the env's `expanded_state`."""
    total, soft = hand_value(RANK_VALUES[rank] for rank in hand)
    pair = len(hand) == 2 and is_pair(hand[0], hand[1], pair_rule)
    return total, RANK_VALUES[dealer_card], int(soft), min(len(hand), MAX_COUNTED_CARDS), int(pair)


def reachable_hands(decks: int = 1) -> list[tuple[int, ...]]:
    """Every hand of two or more ranks a shoe of `decks` decks can deal with a hard total of 21 or less."""
    hands: list[tuple[int, ...]] = []

    def extend(hand: tuple[int, ...], lowest: int, total: int) -> None:
        """Add `hand` and every hand made from it by ranks >= `lowest`."""
        if len(hand) >= 2:
            hands.append(hand)
        for rank in range(lowest, RANKS[-1] + 1):
            if hand.count(rank) < CARDS_PER_RANK * decks and total + RANK_VALUES[rank] <= BLACKJACK:
                extend((*hand, rank), rank, total + RANK_VALUES[rank])

    extend((), RANKS[0], 0)
    return hands


def expanded_states(pair_rule: str = SAME_RANK, decks: int = 1) -> set[ExpandedState]:
    """The expanded decision states reachable from the shoe, every total deciding (818; 808 same-value)."""
    limit = CARDS_PER_RANK * decks
    return {
        expanded_state(hand, up, pair_rule)
        for hand in reachable_hands(decks)
        for up in RANKS
        if hand.count(up) < limit
    }


__all__ = [
    "DEALER_FINALS",
    "action_values",
    "best_action",
    "dealer_natural_chance",
    "expanded_state",
    "expanded_states",
    "exploring_starts",
    "full_composition",
    "player_hands",
    "reachable_hands",
    "remaining",
    "start_hands",
    "value_from_deal",
]
