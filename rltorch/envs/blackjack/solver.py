"""Exact values for blackjack on the infinite deck (`rltorch.envs.blackjack`), by dynamic programming.

Every draw is independent, so a hand is summed up by (total, usable_ace) and the dealer's final
total has an exact distribution for each up card. A player's hit only raises the total, or turns
a soft hand hard, so the values need no iteration: one recursion over hands per dealer card gives
v_pi and q_pi for any deterministic policy, and q*, v*, pi* by taking the better action.

States are `(player_sum, dealer_card, usable_ace)` like the environment's observations. By
default there are 200 (sums 12..21). `Rules.player_draws_below_12=False` gives Gymnasium's
`Blackjack-v1` (natural=False, sab=False), where the player also decides on hard sums 4..11:
280 states, whose values for sums 12..21 equal the book's. With `Rules.natural=True` a natural is
settled when dealt; the state values are then those of the non-natural hands (as with exploring
starts) and `expected_return` adds the naturals in. Gymnasium's `sab=True` lets a natural be hit,
so it agrees only for policies that stick on 21; its `natural=True` (1.5 unless the dealer also
reaches 21) is not modelled.

Everything is computed in floats, or in exact `Fraction`s with `exact=True`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from functools import cache, lru_cache

from rltorch.envs.blackjack.env import (
    BLACKJACK,
    HIT,
    PLAYER_DECIDES_FROM,
    STICK,
    add_card,
    dealer_should_hit,
)

Number = float | Fraction
State = tuple[int, int, int]
Hand = tuple[int, int]
BlackjackPolicy = Mapping[State, int] | Callable[[State], int]  # a deterministic blackjack policy

BUST = 22
DEALER_TOTALS = (17, 18, 19, 20, 21, BUST)
DEALER_CARDS = tuple(range(1, 11))
LOWEST_HARD_SUM = 4


@dataclass(frozen=True)
class Rules:
    """The blackjack variant solved: the book's by default, Gymnasium's with `player_draws_below_12=False`."""

    dealer_hits_soft_17: bool = False
    natural: bool = False
    natural_payout: float = 1.0
    player_draws_below_12: bool = True


BOOK_RULES = Rules()
GYMNASIUM_RULES = Rules(player_draws_below_12=False)


@lru_cache(maxsize=2)
def _card_probabilities(exact: bool) -> tuple[tuple[int, Number], ...]:
    """(card, probability) pairs, cached."""
    thirteenth = Fraction(1, 13) if exact else 1 / 13
    return tuple((card, 4 * thirteenth if card == 10 else thirteenth) for card in DEALER_CARDS)


def card_probabilities(exact: bool = False) -> dict[int, Number]:
    """The chance of each card value 1..10 on one draw: 1/13 each, 4/13 for a 10."""
    return dict(_card_probabilities(exact))


@cache
def _dealer_from(total: int, usable: bool, hits_soft_17: bool, exact: bool) -> tuple[Number, ...]:
    """Probabilities of DEALER_TOTALS for a dealer holding (total, usable), cached."""
    if total > BLACKJACK:
        return tuple(int(final == BUST) for final in DEALER_TOTALS)
    if not dealer_should_hit(total, usable, hits_soft_17):
        return tuple(int(final == total) for final in DEALER_TOTALS)
    zero = Fraction(0) if exact else 0.0
    mix = [zero] * len(DEALER_TOTALS)
    for card, p in _card_probabilities(exact):
        after = _dealer_from(*add_card(total, usable, card), hits_soft_17, exact)
        mix = [m + p * q for m, q in zip(mix, after, strict=True)]
    return tuple(mix)


def dealer_distribution_from(
    total: int, usable_ace: bool, hits_soft_17: bool = False, exact: bool = False
) -> dict[int, Number]:
    """The dealer's final-total distribution (17..21 and BUST) from the hand (total, usable_ace)."""
    return dict(zip(DEALER_TOTALS, _dealer_from(total, bool(usable_ace), hits_soft_17, exact), strict=True))


def dealer_final_distribution(up_card: int, hits_soft_17: bool = False, exact: bool = False) -> dict[int, Number]:
    """The dealer's final-total distribution (17..21 and BUST) given the up card, hidden card unknown."""
    return dealer_distribution_from(*add_card(0, False, up_card), hits_soft_17, exact)


def dealer_natural_probability(up_card: int, exact: bool = False) -> Number:
    """The chance that the hidden card makes the dealer a natural."""
    probs = card_probabilities(exact)
    return {1: probs[10], 10: probs[1]}.get(up_card, 0 * probs[1])


def states(include_low_sums: bool = False) -> list[State]:
    """The decision states: sums 12..21 with or without a usable ace, plus hard 4..11 if asked."""
    lowest = LOWEST_HARD_SUM if include_low_sums else PLAYER_DECIDES_FROM
    hard = [(s, d, 0) for s in range(lowest, BLACKJACK + 1) for d in DEALER_CARDS]
    soft = [(s, d, 1) for s in range(PLAYER_DECIDES_FROM, BLACKJACK + 1) for d in DEALER_CARDS]
    return hard + soft


def stick_value(player_sum: int, dealer_card: int, hits_soft_17: bool = False, exact: bool = False) -> Number:
    """The expected reward of sticking on `player_sum` (21 or less) against the up card."""
    dealer = _dealer_from(*add_card(0, False, dealer_card), hits_soft_17, exact)
    value = 0 * dealer[0]
    for final, p in zip(DEALER_TOTALS, dealer, strict=True):
        if final == BUST or player_sum > final:
            value += p
        elif player_sum < final:
            value -= p
    return value


def _policy_function(policy: BlackjackPolicy) -> Callable[[State], int]:
    """The policy as a checked callable."""
    lookup = policy.__getitem__ if isinstance(policy, Mapping) else policy

    def act(state: State) -> int:
        action = lookup(state)
        if action != STICK and action != HIT:
            raise ValueError(f"policy gives action {action!r} in state {state}; expected 0 (stick) or 1 (hit)")
        return int(action)

    return act


def _solve_against(dealer_card: int, act: Callable[[State], int] | None, rules: Rules, exact: bool) -> dict:
    """q(state) = (stick, hit) for every hand against one up card; `act=None` takes the better action."""
    sticks = {s: stick_value(s, dealer_card, rules.dealer_hits_soft_17, exact) for s in range(BLACKJACK + 1)}
    probs = _card_probabilities(exact)
    q: dict[State, tuple[Number, Number]] = {}

    def value(total: int, usable: bool) -> Number:
        """The value of holding (total, usable) with the decision still to make."""
        if total > BLACKJACK:
            return -1
        state = (total, dealer_card, int(usable))
        if state not in q:
            hit = sum(p * value(*add_card(total, usable, card)) for card, p in probs)
            q[state] = (sticks[total], hit)
        stick, hit = q[state]
        action = act(state) if act is not None else (HIT if hit > stick else STICK)
        return hit if action == HIT else stick

    for state in states(include_low_sums=not rules.player_draws_below_12):
        if state[1] == dealer_card:
            value(state[0], bool(state[2]))
    return q


def action_values(
    policy: BlackjackPolicy | None = None, rules: Rules = BOOK_RULES, exact: bool = False
) -> dict[State, tuple[Number, Number]]:
    """q_pi(state) as (stick, hit) for a deterministic `policy`, or q* when `policy` is None."""
    act = None if policy is None else _policy_function(policy)
    wanted = states(include_low_sums=not rules.player_draws_below_12)
    q: dict[State, tuple[Number, Number]] = {}
    for dealer_card in DEALER_CARDS:
        q.update(_solve_against(dealer_card, act, rules, exact))
    return {state: q[state] for state in wanted}


def policy_value(policy: BlackjackPolicy, rules: Rules = BOOK_RULES, exact: bool = False) -> dict[State, Number]:
    """v_pi(state) for a deterministic policy (a mapping or callable from state to 0/1)."""
    act = _policy_function(policy)
    return {state: q[act(state)] for state, q in action_values(policy, rules, exact).items()}


def q_star(rules: Rules = BOOK_RULES, exact: bool = False) -> dict[State, tuple[Number, Number]]:
    """The optimal action values q*(state) as (stick, hit)."""
    return action_values(None, rules, exact)


def optimal_policy(rules: Rules = BOOK_RULES, exact: bool = False) -> dict[State, int]:
    """pi*: hit where q*(hit) > q*(stick), else stick (so an exact tie sticks)."""
    return {state: HIT if hit > stick else STICK for state, (stick, hit) in q_star(rules, exact).items()}


def v_star(rules: Rules = BOOK_RULES, exact: bool = False) -> dict[State, Number]:
    """The optimal state values v*(state) = max over actions of q*."""
    return {state: max(pair) for state, pair in q_star(rules, exact).items()}


def near_ties(rules: Rules = BOOK_RULES, tolerance: float = 1e-6) -> dict[State, float]:
    """States where |q*(hit) - q*(stick)| < tolerance, mapped to q*(hit) - q*(stick)."""
    gaps = {state: float(hit - stick) for state, (stick, hit) in q_star(rules, exact=True).items()}
    return {state: gap for state, gap in gaps.items() if abs(gap) < tolerance}


def natural_probability(exact: bool = False) -> Number:
    """The chance that two cards are a natural (an ace and a 10): 2 * 1/13 * 4/13 = 8/169."""
    probs = card_probabilities(exact)
    return 2 * probs[1] * probs[10]


def start_distribution(rules: Rules = BOOK_RULES, exact: bool = False) -> dict[Hand, Number]:
    """The chance of each first decision hand (sum, usable_ace), after any automatic draws.

    Under `rules.natural` the naturals are left out, so the chances add up to 1 - 8/169.
    """
    probs = _card_probabilities(exact)
    hands: dict[Hand, Number] = {}
    for first, p_first in probs:
        for second, p_second in probs:
            total, usable = add_card(*add_card(0, False, first), second)
            if rules.natural and total == BLACKJACK:
                continue
            _spread(hands, total, usable, p_first * p_second, rules.player_draws_below_12, probs)
    return hands


def _spread(hands: dict, total: int, usable: bool, p: Number, draws_below_12: bool, probs: tuple) -> None:
    """Add chance `p` of holding (total, usable) to `hands`, drawing first while below 12 if the rules say so."""
    if draws_below_12 and total < PLAYER_DECIDES_FROM:
        for card, p_card in probs:
            _spread(hands, *add_card(total, usable, card), p * p_card, draws_below_12, probs)
        return
    hand = (total, int(usable))
    hands[hand] = hands.get(hand, 0) + p


def natural_value(rules: Rules = BOOK_RULES, exact: bool = False) -> Number:
    """The expected payout of a dealt natural under `rules.natural`: it wins unless the dealer has one too."""
    payout = Fraction(rules.natural_payout) if exact else rules.natural_payout
    probs = card_probabilities(exact)
    return sum(probs[d] * payout * (1 - dealer_natural_probability(d, exact)) for d in DEALER_CARDS)


def expected_return(policy: BlackjackPolicy, rules: Rules = BOOK_RULES, exact: bool = False) -> Number:
    """The exact expected return of `policy` from the deal (naturals included under `rules.natural`)."""
    values = policy_value(policy, rules, exact)
    probs = card_probabilities(exact)
    total = natural_probability(exact) * natural_value(rules, exact) if rules.natural else 0 * probs[1]
    for (player_sum, usable), p_hand in start_distribution(rules, exact).items():
        total += p_hand * sum(probs[d] * values[(player_sum, d, usable)] for d in DEALER_CARDS)
    return total


def optimal_return(rules: Rules = BOOK_RULES, exact: bool = False) -> Number:
    """The expected return of pi* from the deal."""
    return expected_return(optimal_policy(rules, exact), rules, exact)


__all__ = [
    "BOOK_RULES",
    "BUST",
    "GYMNASIUM_RULES",
    "Rules",
    "action_values",
    "card_probabilities",
    "dealer_distribution_from",
    "dealer_final_distribution",
    "dealer_natural_probability",
    "expected_return",
    "natural_probability",
    "natural_value",
    "near_ties",
    "optimal_policy",
    "optimal_return",
    "policy_value",
    "q_star",
    "start_distribution",
    "states",
    "stick_value",
    "v_star",
]
