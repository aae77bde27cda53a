"""The Thorp study (seed 001): MC ES over every single-deck start, checked hand by hand against the exact oracle.

The game is Thorp's: one deck, a fresh shuffle each hand, the dealer peeks under an ace or a ten
and stands on soft 17, hit or stand only (no doubling, splitting or surrender), a two-card 21 is an
ordinary 21. The player sees the expanded state (total, dealer card, usable ace, cards held capped
at 4, two-card pair of one rank) and decides on every total. Each MC ES episode starts from one of
the 10,720 (hand, up card) deals of `rltorch.envs.blackjack.single_deck.exploring_starts`, drawn uniformly,
takes a random first action and then plays greedily; values are sample averages with visit counts.

`make_engine` is the fast batched engine (`trainers.thorp.engine`); `make_trainer` is the same
study on `BlackjackEnv` through `MCExploringStarts` (about 50 times slower, and it scores a peeked dealer
natural as -1 for the random first action instead of leaving it out). `LearnedPolicy` reads either.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from typing import Any

from rltorch.envs.blackjack.env import HIT, STICK, BlackjackEnv
from rltorch.envs.blackjack.shoe import RANK_NAMES, RANK_VALUES, SAME_RANK
from rltorch.envs.blackjack.single_deck import ExpandedState, action_values, expanded_state, exploring_starts
from rltorch.policies import ConstantSchedule
from rltorch.run.output import refuse_to_run
from rltorch.trainers.mc import MCExploringStarts
from rltorch.values import QTable
from trainers.thorp.engine import BatchedES

CLEAR_GAP = 0.02  # |EV(hit) - EV(stand)| from which a 2-card decision must be learned
TEN = 10
Hand = tuple[int, ...]
KEY_HANDS = {  # the acceptance's named exceptions against a ten, with the exact play
    "7-7 vs 10: stand": (((7, 7), TEN), STICK),
    "10-6 vs 10: hit": (((6, 10), TEN), HIT),
    "9-7 vs 10: hit": (((7, 9), TEN), HIT),
}


def make_env(pair_rule: str = SAME_RANK) -> BlackjackEnv:
    """The study's game as a Gymnasium env: one deck, dealer peek, expanded state, every total decided."""
    return BlackjackEnv(decks=1, dealer_peeks=True, expanded_state=True, pair_rule=pair_rule,
                        player_draws_below_12=False)


def make_engine(seed: int = 0, device: str = "cpu", pair_rule: str = SAME_RANK) -> BatchedES:
    """The batched MC ES engine over the 10,720 single-deck starts, dealer peeking."""
    return BatchedES(exploring_starts(), decks=1, dealer_peeks=True, pair_rule=pair_rule, seed=seed, device=device)


def make_trainer(seed: int = 0, logger: Any = None, pair_rule: str = SAME_RANK) -> MCExploringStarts:
    """The same MC ES on `BlackjackEnv` via `MCExploringStarts`: starts as reset options, sample averages."""
    starts = [{"hand": hand, "dealer_card": up} for hand, up in exploring_starts()]
    return MCExploringStarts(make_env(pair_rule), QTable(alpha=None), gamma=1.0, seed=seed, logger=logger,
                             schedule=ConstantSchedule(0.0), start_states=starts)


@dataclass(frozen=True)
class LearnedPolicy:
    """Learned action values and visit counts per expanded state; the greedy action hits only on a higher Q."""

    q: dict[ExpandedState, tuple[float, float]]
    visits: dict[ExpandedState, tuple[int, int]]

    @classmethod
    def from_engine(cls, engine: BatchedES) -> LearnedPolicy:
        """Read a batched engine's averages and counts."""
        table = engine.to_qtable()
        return cls.from_table(table)

    @classmethod
    def from_table(cls, table: QTable) -> LearnedPolicy:
        """Read a sample-average QTable keyed by (expanded state, action), with its visit counts."""
        states = {state for state, _ in table.table}
        q = {s: (table.value((s, STICK)), table.value((s, HIT))) for s in states}
        return cls(q, {s: (table.counts.get((s, STICK), 0), table.counts.get((s, HIT), 0)) for s in states})

    def action(self, state: ExpandedState) -> int:
        """The greedy action (ties and unvisited states stand)."""
        stand, hit = self.q.get(state, (0.0, 0.0))
        return HIT if hit > stand else STICK

    def gap(self, state: ExpandedState) -> float:
        """Q(hit) - Q(stand), 0 where unvisited."""
        stand, hit = self.q.get(state, (0.0, 0.0))
        return hit - stand

    def z_score(self, state: ExpandedState) -> float:
        """The gap over its standard error (each return's variance taken as 1 - Q^2, at most 1)."""
        stand, hit = self.q.get(state, (0.0, 0.0))
        n_stand, n_hit = self.visits.get(state, (0, 0))
        if not (n_stand and n_hit):
            return 0.0
        variance = (1 - stand * stand) / n_stand + (1 - hit * hit) / n_hit
        return (hit - stand) / max(variance, 1e-18) ** 0.5


@dataclass(frozen=True)
class ExactPlay:
    """The exact single-deck (stand, hit) values of a hand against an up card, dealer peeking."""

    hand: Hand
    up: int
    stand: float
    hit: float

    @property
    def gap(self) -> float:
        """EV(hit) - EV(stand)."""
        return self.hit - self.stand

    @property
    def action(self) -> int:
        """The exact best action (a tie stands)."""
        return HIT if self.hit > self.stand else STICK


@cache
def exact_play(hand: Hand, up: int) -> ExactPlay:
    """The oracle's values for ranks `hand` against up rank `up` (single deck, dealer peeks)."""
    stand, hit = action_values(hand, up, dealer_peeks=True)
    return ExactPlay(tuple(hand), up, stand, hit)


def hand_name(hand: Iterable[int]) -> str:
    """A hand of ranks as text, aces first, then by value: '10-6', 'A-7', '6-4-4-2'."""
    ranks = sorted(hand, key=lambda rank: (rank != 1, -RANK_VALUES[rank], -rank))
    return "-".join(RANK_NAMES[rank] for rank in ranks)


def two_card_starts() -> list[tuple[Hand, int]]:
    """Every 2-card hand by rank against every up rank a single deck allows (1,183)."""
    return [(hand, up) for hand, up in exploring_starts() if len(hand) == 2]


def _value_key(hand: Hand, up: int) -> tuple[Hand, int]:
    """A start with its ranks replaced by values (ten, jack, queen, king grouped)."""
    return tuple(sorted(RANK_VALUES[rank] for rank in hand)), RANK_VALUES[up]


def agreement(policy: LearnedPolicy, pair_rule: str = SAME_RANK) -> dict[str, Any]:
    """How the learned policy plays every 2-card hand against every up card, next to the exact best action.

    Counted by ranks (1,183 deals) and by values (550; one agrees when all its rank deals do), over all
    hands and over the clear ones (|EV(hit) - EV(stand)| >= CLEAR_GAP), with every clear disagreement.
    """
    by_value: dict[tuple[Hand, int], bool] = {}
    clear_values: set[tuple[Hand, int]] = set()
    agreeing = clear = clear_agreeing = 0
    wrong: list[str] = []
    for hand, up in two_card_starts():
        play = exact_play(hand, up)
        same = policy.action(expanded_state(hand, up, pair_rule)) == play.action
        key = _value_key(hand, up)
        by_value[key] = by_value.get(key, True) and same
        agreeing += same
        if abs(play.gap) >= CLEAR_GAP:
            clear += 1
            clear_agreeing += same
            clear_values.add(key)
            if not same:
                wrong.append(f"{hand_name(hand)} vs {RANK_NAMES[up]} (gap {play.gap:+.4f})")
    deals = len(two_card_starts())
    return {
        "deals": deals, "deals_agreeing": agreeing, "deal_agreement": agreeing / deals,
        "hands": len(by_value), "hands_agreeing": sum(by_value.values()),
        "hand_agreement": sum(by_value.values()) / len(by_value),
        "clear_deals": clear, "clear_deals_agreeing": clear_agreeing,
        "clear_hands": len(clear_values), "clear_hands_agreeing": sum(by_value[key] for key in clear_values),
        "clear_disagreements": wrong,
    }


def acceptance(policy: LearnedPolicy, pair_rule: str = SAME_RANK) -> dict[str, bool]:
    """The issue's MC ES acceptance: every clear 2-card decision right, and the 7-7 and two-card 16 exceptions."""
    checks = {"every clear 2-card decision": not agreement(policy, pair_rule)["clear_disagreements"]}
    for name, ((hand, up), action) in KEY_HANDS.items():
        checks[name] = policy.action(expanded_state(hand, up, pair_rule)) == action
    return checks


def key_states(policy: LearnedPolicy) -> dict[str, dict[str, float]]:
    """Q gap, z score and visits of the states behind Thorp's exceptions and the closest clear cells."""
    states = {"7-7 vs 10": (14, 10, 0, 2, 1), "2-card 16 vs 10": (16, 10, 0, 2, 0),
              "3-card 16 vs 10": (16, 10, 0, 3, 0), "4+-card 16 vs 10": (16, 10, 0, 4, 0),
              "soft 18 (2 cards) vs A": (18, 1, 1, 2, 0), "hard 12 (2 cards) vs 4": (12, 4, 0, 2, 0),
              "hard 12 (2 cards) vs 6": (12, 6, 0, 2, 0), "hard 13 (2 cards) vs 2": (13, 2, 0, 2, 0)}
    return {name: {"q_gap": round(policy.gap(s), 5), "z": round(policy.z_score(s), 2),
                   "visits": sum(policy.visits.get(s, (0, 0)))} for name, s in states.items()}


__all__ = [
    "CLEAR_GAP",
    "ExactPlay",
    "LearnedPolicy",
    "acceptance",
    "agreement",
    "exact_play",
    "hand_name",
    "key_states",
    "make_engine",
    "make_env",
    "make_trainer",
    "two_card_starts",
]


if __name__ == "__main__":
    refuse_to_run(__file__, "study.py", "trainers/thorp/study.py")
