"""Blackjack as in Sutton & Barto's Example 5.1, as a single-agent Gymnasium environment.

Rules. Cards come from an infinite deck: each draw is one of the 13 ranks with equal chance,
ace = 1, two to nine at face value, ten, jack, queen and king = 10 (so a 10-valued card has
chance 4/13). An ace counts 11 whenever that keeps the hand at 21 or less; such a hand has a
"usable ace" (a soft hand) and turns hard, the ace dropping to 1, when a draw would bust it.

The player and the dealer each get two cards; one of the dealer's is shown. The player takes
cards automatically while below 12 (inside `reset`; no decision is involved, since a card can
not bust a hand under 12), so every observation to act on has a sum of 12..21. Then the player
hits (action 1) or sticks (action 0). Going over 21 loses at once (-1). After a stick the dealer
shows the hidden card and draws while under 17, standing on every 17 (or, with
`dealer_hits_soft_17=True`, drawing on a soft 17); a dealer bust wins for the player (+1),
otherwise the higher total wins and equal totals draw (0). Rewards come only at the end; the
episode has no discount.

Naturals. By default a two-card 21 is an ordinary soft 21. With `natural=True` (the book's rule)
a natural is settled on the player's first step whatever the action: it wins `natural_payout`
(1 by default) unless the dealer's two cards are a natural too, a draw. A hand set up by an
exploring start is never a natural.

Observation: `(player_sum, dealer_card, usable_ace)` as plain ints, the dealer card 1..10
(1 = ace), usable_ace 0 or 1; after a bust the sum is the busted total (up to 31).

Exploring starts: `reset(options={"state": (player_sum, dealer_card, usable_ace)})` with a sum of
12..21 starts from exactly that observation; the dealer's hidden card is drawn at random.

Differences from Gymnasium's `Blackjack-v1` (defaults natural=False, sab=False): it does not
draw for the player below 12, so its observations include sums 4..21; the card, dealer and
scoring rules are otherwise the same. All cards here come through `_draw`, the one place a
finite shoe would plug in.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from typing import Any

import gymnasium as gym
from gymnasium import spaces

STICK, HIT = 0, 1
CARDS = (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10)
BLACKJACK = 21
DEALER_STANDS_AT = 17
PLAYER_DECIDES_FROM = 12

Observation = tuple[int, int, int]


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


class BlackjackEnv(gym.Env):
    """Sutton & Barto's blackjack for one player against the dealer (rules in the module docstring)."""

    metadata = {"render_modes": ["ansi"]}

    def __init__(
        self,
        natural: bool = False,
        natural_payout: float = 1.0,
        dealer_hits_soft_17: bool = False,
        render_mode: str | None = None,
    ) -> None:
        self.natural = natural
        self.natural_payout = float(natural_payout)
        self.dealer_hits_soft_17 = dealer_hits_soft_17
        self.render_mode = render_mode
        self.observation_space = spaces.Tuple((spaces.Discrete(32), spaces.Discrete(11), spaces.Discrete(2)))
        self.action_space = spaces.Discrete(2)
        self._rng: random.Random | None = None
        self._sum, self._usable = 0, False
        self._dealer_card, self._dealer_hole = 1, 1
        self._dealer_total: int | None = None
        self._natural_dealt = False
        self._done = True

    def _draw(self) -> int:
        """The next card (the infinite deck)."""
        return CARDS[int(self._rng.random() * 13)]

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Observation, dict]:
        """Deal a new hand (or set up `options["state"]`) and draw for the player below 12."""
        super().reset(seed=seed)
        if seed is not None or self._rng is None:
            self._rng = random.Random(int(self.np_random.integers(2**63)))
        state = None if options is None else options.get("state")
        if state is None:
            self._deal()
        else:
            self._set_up(state)
        self._dealer_total = None
        self._done = False
        return (self._sum, self._dealer_card, int(self._usable)), {}

    def _deal(self) -> None:
        """Deal two cards each, note a natural, then draw for the player below 12."""
        total, usable = add_card(0, False, self._draw())
        total, usable = add_card(total, usable, self._draw())
        self._dealer_card, self._dealer_hole = self._draw(), self._draw()
        self._natural_dealt = self.natural and total == BLACKJACK
        while total < PLAYER_DECIDES_FROM:
            total, usable = add_card(total, usable, self._draw())
        self._sum, self._usable = total, usable

    def _set_up(self, state: Any) -> None:
        """Start from the observation `state` (exploring starts); only the hidden card is drawn."""
        try:
            player_sum, dealer_card, usable = (int(x) for x in state)
        except (TypeError, ValueError):
            raise ValueError(f"state must be (player_sum, dealer_card, usable_ace) ints, got {state!r}") from None
        if tuple(state) != (player_sum, dealer_card, usable):
            raise ValueError(f"state must hold whole numbers, got {state!r}")
        if not (PLAYER_DECIDES_FROM <= player_sum <= BLACKJACK and 1 <= dealer_card <= 10 and usable in (0, 1)):
            raise ValueError(f"state {state!r} needs a sum 12..21, a dealer card 1..10 and usable_ace 0 or 1")
        self._sum, self._usable = player_sum, bool(usable)
        self._dealer_card, self._dealer_hole = dealer_card, self._draw()
        self._natural_dealt = False

    def legal_actions(self) -> list[int]:
        """Both actions, stick (0) and hit (1)."""
        return [STICK, HIT]

    def step(self, action: int) -> tuple[Observation, float, bool, bool, dict]:
        """Hit or stick; return (observation, reward, terminated, truncated, info)."""
        if self._done:
            raise ValueError(f"cannot take action {action!r}: the episode is over; call reset()")
        if action != HIT and action != STICK:
            raise ValueError(f"action {action!r} is not 0 (stick) or 1 (hit)")
        if self._natural_dealt:
            return self._end(self._natural_reward())
        if action == HIT:
            total, usable = add_card(self._sum, self._usable, self._draw())
            self._sum, self._usable = total, usable
            if total > BLACKJACK:
                return self._end(-1.0)
            return (total, self._dealer_card, int(usable)), 0.0, False, False, {}
        return self._end(outcome(self._sum, self._play_dealer()))

    def _play_dealer(self) -> int:
        """Turn over the hidden card and draw for the dealer until it stands; return its total."""
        total, usable = add_card(0, False, self._dealer_card)
        total, usable = add_card(total, usable, self._dealer_hole)
        while dealer_should_hit(total, usable, self.dealer_hits_soft_17):
            total, usable = add_card(total, usable, self._draw())
        self._dealer_total = total
        return total

    def _natural_reward(self) -> float:
        """The payout of a player's natural: a draw if the dealer has one too."""
        if is_natural((self._dealer_card, self._dealer_hole)):
            self._dealer_total = BLACKJACK
            return 0.0
        return self.natural_payout

    def _end(self, reward: float) -> tuple[Observation, float, bool, bool, dict]:
        """Finish the episode with `reward`."""
        self._done = True
        return (self._sum, self._dealer_card, int(self._usable)), reward, True, False, {}

    def render(self) -> str | None:
        """Return the hands as text in 'ansi' mode."""
        if self.render_mode != "ansi":
            return None
        soft = " (usable ace)" if self._usable else ""
        text = f"player {self._sum}{soft}, dealer shows {'A' if self._dealer_card == 1 else self._dealer_card}"
        if self._dealer_total is not None:
            text += f", dealer ends on {self._dealer_total}"
        return text
