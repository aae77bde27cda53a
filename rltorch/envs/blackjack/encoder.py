"""Blackjack states as network input."""

from __future__ import annotations

from collections.abc import Hashable

from rltorch.values.encoders import Encoder, one_hot


class BlackjackEncoder(Encoder):
    """Blackjack states (sum, dealer card, usable ace): one-hot sum 4..21, one-hot dealer 1..10, ace flag."""

    size = 18 + 10 + 1

    def features(self, key: Hashable) -> list[float]:
        """The features of one state."""
        player_sum, dealer_card, usable_ace = key
        return one_hot(min(max(player_sum, 4), 21) - 4, 18) + one_hot(dealer_card - 1, 10) + [float(usable_ace)]
