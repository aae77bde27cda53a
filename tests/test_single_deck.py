from functools import cache

import pytest

from rltorch.envs.blackjack.env import HIT, STICK
from rltorch.envs.blackjack.shoe import RANK_VALUES
from rltorch.envs.blackjack.single_deck import (
    action_values,
    best_action,
    dealer_natural_chance,
    expanded_state,
    expanded_states,
    exploring_starts,
    full_composition,
    player_hands,
    remaining,
    start_hands,
    value_from_deal,
)
from trainers.thorp.table import (
    EXCEPTIONS,
    HARD_STAND_FROM,
    SOFT_STAND_FROM,
    thorp_action,
    thorp_hand_action,
    thorp_table,
)


def test_start_hand_counts():
    assert len(player_hands()) == 2366
    assert len(start_hands()) == 825
    starts = exploring_starts()
    assert len(starts) == 10_720 and len(set(starts)) == 10_720
    assert ((2, 2, 2, 2), 2) not in starts and ((2, 2, 2, 2), 3) in starts


def test_expanded_state_counts():
    assert len(expanded_states()) == 818
    assert len(expanded_states("same_value")) == 808
    assert {(20, d, 0, 2, 0) for d in range(1, 11)} == expanded_states() - expanded_states("same_value")


def test_expanded_state_of_a_hand():
    assert expanded_state((7, 7), 10) == (14, 10, 0, 2, 1)
    assert expanded_state((6, 8), 12) == (14, 10, 0, 2, 0)
    assert expanded_state((2, 2, 2, 2, 6), 1) == (14, 1, 0, 4, 0)


def test_compositions():
    assert full_composition() == (4,) * 9 + (16,) and sum(full_composition(6)) == 312
    assert remaining((10, 13, 1)) == (3,) + (4,) * 8 + (14,)
    with pytest.raises(ValueError):
        remaining((1,) * 5)
    with pytest.raises(ValueError):
        action_values((1, 1, 1, 1), 1)


# Acceptance: the exact single-deck oracle with the dealer's peek agrees with Thorp's exceptions.
@pytest.mark.parametrize(
    "hand, up, action",
    [((10, 6), 10, HIT), ((9, 7), 10, HIT), ((7, 7), 10, STICK), ((6, 4, 4, 2), 10, STICK), ((6, 8), 10, HIT),
     ((1, 7), 1, STICK)],
)
def test_exact_oracle_with_peek_plays_thorps_hands(hand, up, action):
    assert best_action(hand, up, dealer_peeks=True) == action


@pytest.mark.parametrize(
    "hand, up, stand, hit",
    [((10, 6), 10, -0.542952, -0.506929), ((9, 7), 10, -0.518034, -0.512009), ((7, 7), 10, -0.509739, -0.514818),
     ((6, 4, 4, 2), 10, -0.565822, -0.580170), ((6, 8), 10, -0.535229, -0.464761), ((1, 7), 1, -0.101015, -0.108386)],
)
def test_exact_values_with_peek(hand, up, stand, hit):
    assert action_values(hand, up) == pytest.approx((stand, hit), abs=1e-6)


def test_without_peek_only_soft_18_against_an_ace_flips():
    assert best_action((1, 7), 1, dealer_peeks=False) == HIT  # hitting to 21 ties a dealer natural
    for hand, action in (((10, 6), HIT), ((9, 7), HIT), ((7, 7), STICK), ((6, 4, 4, 2), STICK), ((6, 8), HIT)):
        assert best_action(hand, 10, dealer_peeks=False) == action
    assert action_values((1, 7), 1, dealer_peeks=False) == pytest.approx((-0.394561, -0.360439), abs=1e-6)


def test_standing_short_of_21_loses_to_every_natural_with_or_without_a_peek():
    for hand, up in (((10, 6), 10), ((1, 7), 1), ((7, 7), 1)):
        assert value_from_deal(hand, up)[0] == pytest.approx(action_values(hand, up, dealer_peeks=False)[0])
    assert dealer_natural_chance((10, 6), 10) == pytest.approx(4 / 49)
    assert dealer_natural_chance((1, 7), 1) == pytest.approx(16 / 49) and dealer_natural_chance((1, 7), 5) == 0


def _dealer(cards, up_and_hole):
    """Dealer's final-total chances, drawing from the sorted tuple `cards` (an independent recursion)."""
    return _dealer_cached(tuple(sorted(cards)), tuple(sorted(up_and_hole)))


@cache
def _dealer_cached(cards, hand):
    total = sum(hand) + (10 if 1 in hand and sum(hand) <= 11 else 0)
    if total >= 17:
        return {min(total, 22): 1.0}
    finals = {}
    for i, card in enumerate(cards):
        for final, chance in _dealer_cached(cards[:i] + cards[i + 1 :], tuple(sorted((*hand, card)))).items():
            finals[final] = finals.get(final, 0.0) + chance / len(cards)
    return finals


def _physical_order_value(hand, up, peeks, hit):
    """Stand, or hit once and stand: the hidden card dealt first, then the player's card, all enumerated."""
    cards = [value for value in range(1, 10) for _ in range(4)] + [10] * 16
    for rank in (*hand, up):
        cards.remove(RANK_VALUES[rank])
    total = weight = 0.0
    for i, hole in enumerate(cards):
        if peeks and sorted((RANK_VALUES[up], hole)) == [1, 10]:
            continue
        rest = cards[:i] + cards[i + 1 :]
        draws = [(rest[:j] + rest[j + 1 :], (card,)) for j, card in enumerate(rest)] if hit else [(rest, ())]
        for left, extra in draws:
            player = sum(RANK_VALUES[r] for r in hand) + sum(extra)
            finals = _dealer(left, (RANK_VALUES[up], hole))
            won = sum(p for f, p in finals.items() if f > 21 or f < player) - sum(
                p for f, p in finals.items() if player < f <= 21)
            total += -1.0 if player > 21 else won
            weight += 1
    return total / weight


@pytest.mark.parametrize("peeks", [True, False])
@pytest.mark.parametrize("hand, up", [((10, 6), 10), ((10, 7), 1)])
def test_oracle_matches_an_independent_enumeration_in_dealing_order(hand, up, peeks):
    stand, hit = action_values(hand, up, peeks)  # after a hit, the oracle stands on every card
    assert stand == pytest.approx(_physical_order_value(hand, up, peeks, hit=False), abs=1e-12)
    assert hit == pytest.approx(_physical_order_value(hand, up, peeks, hit=True), abs=1e-12)


def test_thorp_table_data():
    assert [HARD_STAND_FROM[d] for d in range(1, 11)] == [17, 13, 13, 12, 12, 12, 17, 17, 17, 17]
    assert [SOFT_STAND_FROM[d] for d in range(1, 11)] == [18, 18, 18, 18, 18, 18, 18, 18, 19, 19]
    hard, soft = thorp_table(False), thorp_table(True)
    assert len(hard) == 60 and len(soft) == 20
    assert soft[(18, 1)] == STICK and soft[(18, 9)] == soft[(18, 10)] == HIT and hard[(16, 10)] == HIT


def test_thorp_exceptions():
    assert thorp_action(16, 10, 0, cards=2) == HIT and thorp_action(16, 10, 0, cards=3) == STICK
    assert thorp_action(14, 10, 0, cards=2, pair=1) == STICK and thorp_action(14, 10, 0, cards=2) == HIT
    assert thorp_action(11, 6, 0) == HIT and thorp_action(17, 1, 0) == STICK
    for exception in EXCEPTIONS:
        for hand in exception.hands:
            assert thorp_hand_action(hand, exception.dealer_card) == exception.action
            assert best_action(hand, exception.dealer_card) == exception.action


def test_exact_oracle_agrees_with_thorp_on_two_card_hands_but_six():
    """With a peek, the exact plays differ from Thorp's table only where one card's removal tips a close call."""
    differ = set()
    for first in range(1, 11):
        for second in range(first, 11):
            for up in range(1, 11):
                if (first, second).count(up) + (up == first == second) < 4:
                    if best_action((first, second), up) != thorp_hand_action((first, second), up):
                        differ.add(((first, second), up))
    assert differ == {((2, 10), 4), ((2, 10), 6), ((3, 10), 2), ((4, 8), 3), ((5, 7), 3), ((6, 6), 3)}
