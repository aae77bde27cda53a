"""The Thorp study's figures: soft 18 against an ace as MC ES converges (infinite vs single deck), and the
expanded-state policies with their visit counts.

`soft18_history` runs MC ES on the game that follows A-7 against an ace, for each deck (infinite,
one) and peek rule, recording Q(stand) and Q(hit) of A-7 as it learns. Half the episodes start at
A-7, the rest at the 3- and 4-card hands a hit can lead to (`soft18_starts`), so that the states
after a hit are explored too and the greedy play after a hit becomes the best one; `figure_soft18` draws them beside the
exact values: the single-deck oracle, and for the infinite deck `rltorch.envs.blackjack.solver.q_star`
(no peek) or `infinite_deck_values(..., dealer_peeks=True)`. With a peek the values are those at
the decision (no dealer natural), as MC ES sees them, since a peeked natural leaves no decision.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from matplotlib.colors import ListedColormap  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from tqdm import tqdm  # noqa: E402

from rltorch.envs.blackjack.env import BLACKJACK, add_card  # noqa: E402
from rltorch.envs.blackjack.shoe import RANK_NAMES  # noqa: E402
from rltorch.envs.blackjack.single_deck import DEALER_FINALS, ExpandedState, action_values  # noqa: E402
from rltorch.envs.blackjack.solver import card_probabilities, dealer_distribution_from, q_star  # noqa: E402
from rltorch.run.output import refuse_to_run
from trainers.thorp.engine import BatchedES  # noqa: E402
from trainers.thorp.learning import LearnedPolicy  # noqa: E402
from trainers.thorp.table import DEALER_CARDS, thorp_action  # noqa: E402

SOFT_18, ACE = (1, 7), 1
# Font sizes in points, legible in the PNGs at the study's --dpi default (150): visit counts in the policy cells,
# panel titles, legends.
COUNT_FONT, TITLE_FONT, LEGEND_FONT = 9, 12, 10
DECKS = ((None, "infinite deck"), (1, "single deck"))
PEEKS = ((True, "dealer peeks (Thorp's game)"), (False, "no peek (Sutton & Barto's game)"))
History = dict[tuple[int | None, bool], dict[str, list[float]]]


def infinite_deck_values(total: int, soft: bool, dealer_card: int, dealer_peeks: bool) -> tuple[float, float]:
    """Exact (stand, hit) on the infinite deck at the decision; with a peek the hidden card makes no natural."""
    needed = {1: 10, 10: 1}.get(dealer_card) if dealer_peeks else None
    chances = {card: p for card, p in card_probabilities().items() if card != needed}
    up_total, up_soft = add_card(0, False, dealer_card)
    finals = np.zeros(len(DEALER_FINALS))
    for hole, p in chances.items():
        finals += p * np.array(list(dealer_distribution_from(*add_card(up_total, up_soft, hole)).values()))
    finals /= sum(chances.values())

    def stand(player: int) -> float:
        return float(sum(q * ((f > BLACKJACK or f < player) - (player < f <= BLACKJACK))
                         for f, q in zip(DEALER_FINALS, finals, strict=True)))

    @cache
    def best(hand_total: int, hand_soft: bool) -> float:
        return -1.0 if hand_total > BLACKJACK else max(stand(hand_total), hit(hand_total, hand_soft))

    def hit(hand_total: int, hand_soft: bool) -> float:
        return sum(p * best(*add_card(hand_total, hand_soft, card)) for card, p in card_probabilities().items())

    return stand(total), hit(total, soft)


def soft18_exact(decks: int | None, dealer_peeks: bool) -> tuple[float, float]:
    """The exact (stand, hit) of A-7 against an ace at the decision, for the deck and peek rule."""
    if decks is None:
        return infinite_deck_values(18, True, ACE, True) if dealer_peeks else q_star()[(18, ACE, 1)]
    return action_values(SOFT_18, ACE, dealer_peeks=dealer_peeks, decks=decks)


def soft18_starts() -> list[tuple[tuple[int, ...], int]]:
    """A-7 against an ace, repeated to make up half the list, and every A-7-x and A-7-x-y (values 1..10) against it."""
    values = range(1, 11)
    later = [(*SOFT_18, x) for x in values] + [(*SOFT_18, x, y) for x in values for y in values if x <= y]
    later = [hand for hand in later if sum(hand) <= BLACKJACK and hand.count(ACE) < 4]
    return [(SOFT_18, ACE)] * len(later) + [(hand, ACE) for hand in later]


def soft18_history(episodes: int = 8_000_000, seed: int = 0, points: int = 40, progress: bool = False,
                   stop: Callable[[], bool] = lambda: False) -> History:
    """MC ES after A-7 against an ace for each deck and peek rule: Q(stand), Q(hit) of A-7 at log-spaced counts.

    `progress` shows one bar over the four runs; `stop()` returning True ends the side runs early.
    """
    marks = np.unique(np.geomspace(100, episodes, points).astype(int))
    history: History = {}
    bar = tqdm(total=4 * int(marks[-1]), desc="soft-18 side runs", unit="ep", unit_scale=True,
               disable=not progress, dynamic_ncols=True)
    for decks, _ in DECKS:
        for peeks, _ in PEEKS:
            if stop():
                break
            engine = BatchedES(soft18_starts(), decks=decks, dealer_peeks=peeks, seed=seed)
            record: dict[str, list[float]] = {"episodes": [], "stand": [], "hit": []}
            for mark in marks:
                bar.update(int(mark) - engine.episodes)
                engine.train(int(mark) - engine.episodes, batch=1 << 16)
                stand, hit = engine.action_values((18, ACE, 1, 2, 0))
                record["episodes"].append(int(mark))
                record["stand"].append(stand)
                record["hit"].append(hit)
            history[(decks, peeks)] = record
    bar.close()
    return history


def figure_soft18(history: History) -> Figure:
    """Q(hit), Q(stand) (top) and Q(hit) - Q(stand) (bottom) of A-7 against an ace as MC ES learns,
    beside the exact values (dotted), with and without the dealer's peek."""
    figure, axes = plt.subplots(2, 2, figsize=(12, 8), layout="constrained", sharex=True)
    colors = {None: ("tab:orange", "tab:red"), 1: ("tab:cyan", "tab:blue")}
    for column, (peeks, title) in enumerate(PEEKS):
        values, gaps = axes[0][column], axes[1][column]
        exact_values = []
        for decks, deck_name in DECKS:
            record, (stand_color, hit_color) = history[(decks, peeks)], colors[decks]
            exact_stand, exact_hit = soft18_exact(decks, peeks)
            exact_values += [exact_stand, exact_hit]
            for action, color, exact in (("hit", hit_color, exact_hit), ("stand", stand_color, exact_stand)):
                values.plot(record["episodes"], record[action], color=color, label=f"{deck_name}, {action}")
                values.axhline(exact, color=color, linestyle=":", linewidth=1.2)
            gap, exact_gap = np.array(record["hit"]) - np.array(record["stand"]), exact_hit - exact_stand
            gaps.plot(record["episodes"], gap, color=hit_color, label=f"{deck_name}: exact {exact_gap:+.4f}")
            gaps.axhline(exact_gap, color=hit_color, linestyle=":", linewidth=1.2)
        values.set_ylim(min(exact_values) - 0.06, max(exact_values) + 0.06)
        values.set_title(title, fontsize=TITLE_FONT)
        values.set_ylabel("value at the decision")
        values.legend(fontsize=LEGEND_FONT)
        gaps.axhline(0, color="black", linewidth=0.8)
        gaps.set_ylim(-0.06, 0.06)
        gaps.set_ylabel("Q(hit) − Q(stand)  (> 0: hit)")
        gaps.set_xscale("log")
        gaps.set_xlabel("episodes (half of them from A-7 vs A; log scale)")
        gaps.legend(fontsize=LEGEND_FONT)
    figure.suptitle("Soft 18 (A-7) against an ace: MC ES estimates (solid) and exact values (dotted)")
    return figure


def _panels() -> list[tuple[str, list[str], Callable[[int, int], ExpandedState]]]:
    """(title, row labels, state of a row index and dealer card) for each policy panel."""
    hard_two = list(range(5, 21))
    pairs = list(range(2, 11))
    three, four, soft = list(range(6, 22)), list(range(8, 22)), list(range(13, 22))
    return [
        ("hard, 2 cards, no pair", [str(t) for t in hard_two], lambda i, d: (hard_two[i], d, 0, 2, 0)),
        ("2-card pairs", [f"{RANK_NAMES[v]}-{RANK_NAMES[v]}" for v in pairs] + ["A-A"],
         lambda i, d: (2 * pairs[i], d, 0, 2, 1) if i < len(pairs) else (12, d, 1, 2, 1)),
        ("hard, 3 cards", [str(t) for t in three], lambda i, d: (three[i], d, 0, 3, 0)),
        ("hard, 4 or more cards", [str(t) for t in four], lambda i, d: (four[i], d, 0, 4, 0)),
        ("soft, 2 cards", [f"A-{t - 11}" for t in soft], lambda i, d: (soft[i], d, 1, 2, 0)),
    ]


def figure_policies(policy: LearnedPolicy) -> Figure:
    """The learned policy of each kind of hand against each up card (dark: hit), visits in each cell,
    a red square where it differs from Thorp's play."""
    panels = _panels()
    figure, axes = plt.subplots(2, 3, figsize=(17, 12), layout="constrained")
    for ax, (title, labels, state_of) in zip(axes.flat, panels, strict=False):  # a spare panel may stay empty
        grid = np.full((len(labels), len(DEALER_CARDS)), np.nan)
        for row in range(len(labels)):
            for column, dealer in enumerate(DEALER_CARDS):
                state = state_of(row, dealer)
                visits = sum(policy.visits.get(state, (0, 0)))
                if not visits:
                    continue
                grid[row, column] = policy.action(state)
                ax.text(column, row, _short(visits), ha="center", va="center", fontsize=COUNT_FONT,
                        color="white" if grid[row, column] else "black")
                if grid[row, column] != thorp_action(state[0], dealer, state[2], state[3], state[4]):
                    ax.add_patch(plt.Rectangle((column - 0.5, row - 0.5), 1, 1, fill=False, ec="red", lw=2))
        ax.imshow(grid, origin="lower", cmap=ListedColormap(["#f4e3b5", "#3b6ea5"]), vmin=0, vmax=1, aspect="auto")
        ax.set_xticks(range(len(DEALER_CARDS)), [RANK_NAMES[d] for d in DEALER_CARDS])
        ax.set_yticks(range(len(labels)), labels)
        ax.set_xlabel("dealer up card")
        ax.set_title(title, fontsize=TITLE_FONT)
    axes.flat[-1].axis("off")
    axes.flat[-1].text(0, 0.5, "dark: hit, light: stand\nnumbers: visits (stand + hit)\n"
                       "red square: differs from Thorp", fontsize=TITLE_FONT)
    figure.suptitle("MC ES policy on the expanded state, single deck, dealer peeks")
    return figure


def _short(count: int) -> str:
    """A visit count as 950, 12k or 3.4M."""
    if count >= 1_000_000:
        return f"{count / 1e6:.1f}M"
    return f"{count // 1000}k" if count >= 10_000 else str(count)


__all__ = [
    "figure_policies",
    "figure_soft18",
    "infinite_deck_values",
    "soft18_exact",
    "soft18_history",
    "soft18_starts",
]


if __name__ == "__main__":
    refuse_to_run(__file__, "study.py", "trainers/thorp/study.py")
