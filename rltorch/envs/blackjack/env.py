"""Blackjack as in Sutton & Barto's Example 5.1, as a single-agent Gymnasium environment.

Rules. By default cards come from an infinite deck: each draw is one of the 13 ranks with equal
chance, ace = 1, two to nine at face value, ten, jack, queen and king = 10 (a 10-valued card has
chance 4/13). An ace counts 11 whenever that keeps the hand at 21 or less; such a hand has a
"usable ace" (a soft hand) and turns hard, the ace dropping to 1, when a draw would bust it.
With `decks=k` cards are dealt without replacement from a shoe of k decks (`rltorch.envs.blackjack.shoe`),
fresh each hand, or with `penetration=p` kept across hands and reshuffled before a hand once that
fraction of it has been dealt.

The player and the dealer each get two cards; one of the dealer's is shown. The player takes
cards automatically while below 12 (inside `reset`; a card can not bust a hand under 12), so
every observation to act on has a sum of 12..21; `player_draws_below_12=False` leaves every
decision to the player. Then the player hits (action 1) or sticks (action 0). Going over 21
loses at once (-1). After a stick the dealer shows the hidden card and draws while under 17,
standing on every 17 (or, with `dealer_hits_soft_17=True`, drawing on a soft 17); a dealer bust
wins for the player (+1), otherwise the higher total wins and equal totals draw (0). Rewards
come only at the end; the episode has no discount.

Naturals. By default a two-card 21 is an ordinary soft 21, and so is the dealer's: a player's
21 draws against it. With `natural=True` (the book's rule) a player's natural is settled on the
first step whatever the action: it wins `natural_payout` (1 by default) unless the dealer's two
cards are a natural too, a draw. With `dealer_peeks=True` a dealer with an ace or a ten up checks
for a natural first: if there is one the hand is over (reset's info says `dealer_natural`), and
the first step, whatever the action, ends it with -1, or 0 if the player holds 21.

Observation: `(player_sum, dealer_card, usable_ace)` as plain ints, the dealer card 1..10
(1 = ace), usable_ace 0 or 1; after a bust the sum is the busted total (up to 31). With
`expanded_state=True` it is `(player_sum, dealer_card, usable_ace, cards, pair)`: the number of
player cards capped at 4, and 1 for a two-card pair (same rank, or with `pair_rule="same_value"`
same value, so any two ten-valued cards), else 0.

Exploring starts: `reset(options={"state": (player_sum, dealer_card, usable_ace)})` (infinite
deck, 3-tuple) with a sum of 12..21 starts from exactly that observation and is never a natural;
`reset(options={"hand": ranks, "dealer_card": rank})` (ranks 1..13, A=1, J=11, Q=12, K=13; the
up card drawn if omitted) starts from those cards, taken out of a fresh shoe. Only the hidden
card (and draws below 12, if the rules have them) is then dealt. Without those draws a state may
have a hard sum from 4. Bad options are a ValueError, non-integer actions a TypeError (`rltorch.envs.actions`).

Gymnasium's `Blackjack-v1` (natural=False, sab=False) is `player_draws_below_12=False` here.
Every card comes through `_draw`, which returns a rank. Every info holds `action_mask`, [1, 1] (`hooks.py`).
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from typing import Any

import gymnasium as gym
from gymnasium import spaces

from rltorch.envs.actions import as_action, integer_option, integer_options, reset_options
from rltorch.envs.blackjack.hooks import BOTH_ACTIONS, BlackjackHooks
from rltorch.envs.blackjack.shoe import PAIR_RULES, RANK_VALUES, SAME_RANK, Shoe, check_start, is_pair

STICK, HIT = 0, 1
CARDS = (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10)
BLACKJACK = 21
DEALER_STANDS_AT = 17
PLAYER_DECIDES_FROM = 12
MAX_COUNTED_CARDS = 4

Observation = tuple[int, ...]


def draw_card(rng: random.Random) -> int:
    """A card value 1..10 from the infinite deck (ace = 1, faces = 10)."""
    return CARDS[int(rng.random() * 13)]


def add_card(total: int, usable_ace: bool, card: int) -> tuple[int, bool]:
    """The hand's (total, usable_ace) after taking `card`; a total over 21 is a bust."""
    total += card
    if card == 1 and not usable_ace and total + 10 <= BLACKJACK:
        return total + 10, True
    if usable_ace and total > BLACKJACK:
        return total - 10, False
    return total, usable_ace


def hand_value(cards: Iterable[int]) -> tuple[int, bool]:
    """The (total, usable_ace) of a hand of card values; a total over 21 is a bust."""
    total, usable = 0, False
    for card in cards:
        total, usable = add_card(total, usable, card)
    return total, usable


def is_natural(cards: Iterable[int]) -> bool:
    """Whether the cards are an ace and a 10-valued card, nothing else."""
    return sorted(cards) == [1, 10]


def dealer_should_hit(total: int, usable_ace: bool, hits_soft_17: bool = False) -> bool:
    """Whether the dealer draws on this hand: under 17, or on a soft 17 when `hits_soft_17`."""
    return total < DEALER_STANDS_AT or (hits_soft_17 and usable_ace and total == DEALER_STANDS_AT)


def dealer_plays(total: int, usable_ace: bool, rng: random.Random, hits_soft_17: bool = False) -> int:
    """Draw for the dealer from the hand (total, usable_ace) until it stands; return the final total."""
    while dealer_should_hit(total, usable_ace, hits_soft_17):
        total, usable_ace = add_card(total, usable_ace, draw_card(rng))
    return total


def outcome(player_total: int, dealer_total: int) -> float:
    """The player's reward: -1 for a player bust, else +1 for a dealer bust, else the comparison."""
    if player_total > BLACKJACK:
        return -1.0
    if dealer_total > BLACKJACK or player_total > dealer_total:
        return 1.0
    return 0.0 if player_total == dealer_total else -1.0


class BlackjackEnv(BlackjackHooks, gym.Env):
    """Sutton & Barto's blackjack for one player against the dealer (rules in the module docstring)."""

    metadata = {"render_modes": ["ansi"]}

    def __init__(
        self,
        natural: bool = False,
        natural_payout: float = 1.0,
        dealer_hits_soft_17: bool = False,
        render_mode: str | None = None,
        *,
        decks: int | None = None,
        penetration: float | None = None,
        dealer_peeks: bool = False,
        expanded_state: bool = False,
        pair_rule: str = SAME_RANK,
        player_draws_below_12: bool = True,
    ) -> None:
        if pair_rule not in PAIR_RULES:
            raise ValueError(f"pair_rule must be one of {PAIR_RULES}, got {pair_rule!r}")
        if penetration is not None and decks is None:
            raise ValueError("penetration needs a finite shoe (decks=k)")
        self.natural = natural
        self.natural_payout = float(natural_payout)
        self.dealer_hits_soft_17 = dealer_hits_soft_17
        self.render_mode = render_mode
        self.decks, self.penetration, self.dealer_peeks = decks, penetration, dealer_peeks
        self.expanded_state, self.pair_rule = expanded_state, pair_rule
        self.player_draws_below_12 = player_draws_below_12
        self._shoe = None if decks is None else Shoe(decks, random.Random(0), penetration)
        if self._shoe is not None:
            self._draw = self._shoe.draw
        counts = (spaces.Discrete(5), spaces.Discrete(2)) if expanded_state else ()
        self.observation_space = spaces.Tuple((spaces.Discrete(32), spaces.Discrete(11), spaces.Discrete(2), *counts))
        self.action_space = spaces.Discrete(2)
        self._rng: random.Random | None = None
        self._sum, self._usable, self._cards, self._pair = 0, False, 0, 0
        self._dealer_card, self._dealer_hole = 1, 1
        self._dealer_total: int | None = None
        self._natural_dealt = self._peeked_natural = self._settled = False
        self._peek_reward = -1.0
        self._done = True

    def _draw(self) -> int:
        """The next card's rank 1..13 from the infinite deck (a finite shoe's `draw` replaces this)."""
        return int(self._rng.random() * 13) + 1

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Observation, dict]:
        """Deal a new hand (or set up `options["state"]` or `options["hand"]`); see the module docstring."""
        state, hand, up = reset_options(options, ("state", "hand", "dealer_card"), ("state",), {"dealer_card": "hand"})
        super().reset(seed=seed)
        if seed is not None or self._rng is None:
            self._rng = random.Random(int(self.np_random.integers(2**63)))
            if self._shoe is not None:
                self._shoe.rng = self._rng
                self._shoe.shuffle()
        if state is not None:
            self._set_up(state)
        elif hand is not None:
            self._set_up_cards(hand, up)
        else:
            self._deal()
        self._dealer_total = None
        self._done = False
        return self._observation(), self._reset_info()

    def _deal(self) -> None:
        """Deal two cards each from the deck or a fresh (or kept) shoe, then settle what the deal decides."""
        if self._shoe is not None:
            self._shoe.start_hand()
        first, second = self._draw(), self._draw()
        total, usable = add_card(0, False, RANK_VALUES[first])
        total, usable = add_card(total, usable, RANK_VALUES[second])
        self._natural_dealt = self.natural and total == BLACKJACK
        self._pair = int(is_pair(first, second, self.pair_rule)) if self.expanded_state else 0
        up = self._draw()
        self._hold(total, usable, 2, up, self._draw())

    def _set_up_cards(self, hand: Any, dealer_card: Any) -> None:
        """Start from these player ranks and dealer up rank (drawn if None), taken out of a fresh shoe."""
        up = None if dealer_card is None else integer_option("dealer_card", dealer_card, 1, 13)
        ranks, up = check_start(integer_options("hand", hand, low=1, high=13), up)  # ranks: A=1, J=11, Q=12, K=13
        if self._shoe is not None:
            self._shoe.shuffle()
            self._shoe.take(ranks if up is None else (*ranks, up))
        total, usable = hand_value(RANK_VALUES[rank] for rank in ranks)
        two_cards = len(ranks) == 2
        self._natural_dealt = self.natural and two_cards and total == BLACKJACK
        self._pair = int(self.expanded_state and two_cards and is_pair(ranks[0], ranks[1], self.pair_rule))
        up = self._draw() if up is None else up
        self._hold(total, usable, min(len(ranks), MAX_COUNTED_CARDS), up, self._draw())

    def _hold(self, total: int, usable: bool, cards: int, up: int, hole: int) -> None:
        """Hold the player's hand against the dealer's (up, hole) ranks: peek, then draw below 12 if the rules say."""
        self._dealer_card, self._dealer_hole = RANK_VALUES[up], RANK_VALUES[hole]
        self._peeked_natural = False
        if self.dealer_peeks:
            self._peek(total)
        while total < PLAYER_DECIDES_FROM and self.player_draws_below_12:
            total, usable = add_card(total, usable, RANK_VALUES[self._draw()])
            cards, self._pair = min(cards + 1, MAX_COUNTED_CARDS), 0
        self._sum, self._usable, self._cards = total, usable, cards
        self._settled = self._natural_dealt or self._peeked_natural

    def _peek(self, player_total: int) -> None:
        """The dealer checks for a natural: if there is one, the hand is a draw for a player's 21, else -1."""
        self._peeked_natural = is_natural((self._dealer_card, self._dealer_hole))
        self._peek_reward = 0.0 if player_total == BLACKJACK else -1.0

    def _set_up(self, state: Any) -> None:
        """Start from the observation `state` (exploring starts); only the hidden card is drawn."""
        if self._shoe is not None or self.expanded_state:
            raise ValueError("with a finite shoe or the expanded state, start from cards: "
                             "reset(options={'hand': ranks, 'dealer_card': rank})")
        player_sum, dealer_card, usable = integer_options("state", state, 3)  # (player_sum, dealer_card, usable_ace)
        lowest = PLAYER_DECIDES_FROM if usable or self.player_draws_below_12 else 4  # hard 4: two twos
        if not (lowest <= player_sum <= BLACKJACK and 1 <= dealer_card <= 10 and usable in (0, 1)):
            raise ValueError(f"reset option 'state' {state!r} needs a sum {lowest}..21, dealer card 1..10, usable 0/1")
        self._sum, self._usable = player_sum, bool(usable)
        self._dealer_card, self._dealer_hole = dealer_card, RANK_VALUES[self._draw()]
        self._natural_dealt = self._peeked_natural = False
        if self.dealer_peeks:
            self._peek(player_sum)
        self._settled = self._peeked_natural

    def _observation(self) -> Observation:
        """The 3-tuple, or with `expanded_state` the 5-tuple (adding cards held, capped at 4, and the pair flag)."""
        if self.expanded_state:
            return self._sum, self._dealer_card, int(self._usable), self._cards, self._pair
        return self._sum, self._dealer_card, int(self._usable)

    def legal_actions(self) -> list[int]:
        """Both actions, stick (0) and hit (1)."""
        return [STICK, HIT]

    def step(self, action: int) -> tuple[Observation, float, bool, bool, dict]:
        """Hit or stick; return (observation, reward, terminated, truncated, info)."""
        if type(action) is not int:
            action = as_action(action, "an integer 0 (stick) or 1 (hit)")
        if self._done:
            raise ValueError(f"cannot take action {action!r}: the episode is over; call reset()")
        if action != HIT and action != STICK:
            raise ValueError(f"action {action!r} is not 0 (stick) or 1 (hit)")
        if self._settled:
            return self._end(self._settled_reward())
        if action == HIT:
            self._sum, self._usable = add_card(self._sum, self._usable, RANK_VALUES[self._draw()])
            if self.expanded_state:
                self._cards, self._pair = min(self._cards + 1, MAX_COUNTED_CARDS), 0
            if self._sum > BLACKJACK:
                return self._end(-1.0)
            return self._observation(), 0.0, False, False, {"action_mask": BOTH_ACTIONS.copy()}
        return self._end(outcome(self._sum, self._play_dealer()))

    def _play_dealer(self) -> int:
        """Turn over the hidden card and draw for the dealer until it stands; return its total."""
        total, usable = add_card(0, False, self._dealer_card)
        total, usable = add_card(total, usable, self._dealer_hole)
        while dealer_should_hit(total, usable, self.dealer_hits_soft_17):
            total, usable = add_card(total, usable, RANK_VALUES[self._draw()])
        self._dealer_total = total
        return total

    def _settled_reward(self) -> float:
        """The reward the deal decided: a peeked dealer natural's, else a player's natural's (a draw against one)."""
        if not (self._peeked_natural or is_natural((self._dealer_card, self._dealer_hole))):
            return self.natural_payout
        self._dealer_total = BLACKJACK
        return self._peek_reward if self._peeked_natural else 0.0

    def _end(self, reward: float) -> tuple[Observation, float, bool, bool, dict]:
        """Finish the episode with `reward`."""
        self._done = True
        return self._observation(), reward, True, False, {"action_mask": BOTH_ACTIONS.copy()}

    def render(self) -> str | None:
        """Return the hands as text in 'ansi' mode."""
        if self.render_mode != "ansi":
            return None
        soft = " (usable ace)" if self._usable else ""
        text = f"player {self._sum}{soft}, dealer shows {'A' if self._dealer_card == 1 else self._dealer_card}"
        if self._dealer_total is not None:
            text += f", dealer ends on {self._dealer_total}"
        return text
