"""Exact expected squared error of ordinary and weighted importance sampling (Figure 5.3's curves).

Off-policy prediction of one blackjack state: every episode starts there, the behaviour picks
stick or hit with probability 1/2, the target policy is deterministic. An episode's ratio is then
2^k when the behaviour took the target's action at all k decisions, else 0, so the pair
(ratio, return) has an exact distribution, worked out here from the dealer's final totals.

After n episodes ordinary importance sampling, V = sum(rho G) / n, is unbiased with squared
error Var(rho G) / n. Weighted importance sampling, V = sum(rho G) / sum(rho) (0 while every ratio
is 0), has error D / S with S = sum(rho) and D = sum(rho (G - v)). The ratios are integers, so a
dynamic program over S carries P(S = s), E[D; S = s] and E[D^2; S = s] episode by episode, and
E[(D / S)^2] follows without ever listing the returns. Sums of ratios above `max_ratio_sum` are
dropped; the mass dropped bounds the error that leaves (every squared error is below (1 + |v|)^2).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from rltorch.envs.blackjack.env import BLACKJACK, HIT, add_card, outcome
from rltorch.envs.blackjack.solver import BOOK_RULES, Rules, _spread, card_probabilities, dealer_final_distribution

State = tuple[int, int, int]
RatioReturn = dict[tuple[int, float], float]


def _outcome_chances(player_sum: int, dealer_card: int, hits_soft_17: bool) -> dict[float, float]:
    """P(return = +1, 0, -1) when sticking on `player_sum` against the up card."""
    chances = {1.0: 0.0, 0.0: 0.0, -1.0: 0.0}
    for final, p in dealer_final_distribution(dealer_card, hits_soft_17).items():
        chances[outcome(player_sum, final)] += p
    return chances


def ratio_return_distribution(
    start: State, target: Callable[[State], int], rules: Rules = BOOK_RULES
) -> RatioReturn:
    """P(ratio, return) of one episode from `start` under the uniformly random behaviour.

    Keys are (ratio, return) with the ratio 2^k of an episode that followed `target` for its k
    decisions; all episodes that left the target policy are lumped under (0, 0.0). The hands on
    the target's path are carried forward one decision at a time, merged by (total, usable ace).
    """
    player_sum, dealer_card, usable = start
    cards = tuple(card_probabilities().items())
    distribution: RatioReturn = {}
    frontier: dict[tuple[int, bool], float] = {}
    _spread(frontier, player_sum, bool(usable), 1.0, rules.player_draws_below_12, cards)  # draws below 12
    ratio = 1
    while frontier:
        ratio *= 2
        hits: dict[tuple[int, bool], float] = {}
        for (total, soft), p in frontier.items():
            _add(distribution, (0, 0.0), p / 2)  # the behaviour takes the other action
            if target((total, dealer_card, int(soft))) != HIT:
                for reward, p_reward in _outcome_chances(total, dealer_card, rules.dealer_hits_soft_17).items():
                    _add(distribution, (ratio, reward), p * p_reward / 2)
                continue
            for card, p_card in cards:
                after = add_card(total, soft, card)
                if after[0] > BLACKJACK:
                    _add(distribution, (ratio, -1.0), p * p_card / 2)
                else:
                    _add(hits, after, p * p_card / 2)
        frontier = hits
    return distribution


def _add(chances: dict, key: tuple, p: float) -> None:
    """Add chance `p` to `chances[key]`."""
    chances[key] = chances.get(key, 0.0) + p


def target_value(distribution: RatioReturn) -> float:
    """v_pi(start) = E_b[rho G]."""
    return sum(p * ratio * reward for (ratio, reward), p in distribution.items())


def ordinary_mse(distribution: RatioReturn, episodes: np.ndarray | int) -> np.ndarray | float:
    """Expected squared error of ordinary importance sampling after `episodes` episodes: Var(rho G) / n."""
    second_moment = sum(p * (ratio * reward) ** 2 for (ratio, reward), p in distribution.items())
    return (second_moment - target_value(distribution) ** 2) / np.asarray(episodes, dtype=float)


def _moments_by_ratio(distribution: RatioReturn, value: float) -> dict[int, tuple[float, float, float]]:
    """For each ratio r: (P(r), E[d; r], E[d^2; r]) with d = r (G - v)."""
    moments: dict[int, tuple[float, float, float]] = {}
    for (ratio, reward), p in distribution.items():
        d = ratio * (reward - value)
        p0, p1, p2 = moments.get(ratio, (0.0, 0.0, 0.0))
        moments[ratio] = (p0 + p, p1 + p * d, p2 + p * d * d)
    return moments


def weighted_mse(
    distribution: RatioReturn, episodes: int, max_ratio_sum: int = 1 << 15
) -> tuple[np.ndarray, float]:
    """Expected squared error of weighted importance sampling after 1..`episodes` episodes.

    Returns the errors and a bound on what truncating the ratio sum at `max_ratio_sum` left out.
    """
    value = target_value(distribution)
    moments = _moments_by_ratio(distribution, value)
    size = max_ratio_sum + 1
    mass, first, second = np.zeros(size), np.zeros(size), np.zeros(size)
    mass[0] = 1.0
    inverse_squares = np.zeros(size)
    inverse_squares[1:] = 1.0 / np.arange(1, size, dtype=float) ** 2
    errors, dropped = np.empty(episodes), 0.0
    for n in range(episodes):
        new_mass, new_first, new_second = np.zeros(size), np.zeros(size), np.zeros(size)
        for ratio, (p0, p1, p2) in moments.items():
            if ratio >= size:
                dropped += p0 * mass.sum()
                continue
            keep = slice(0, size - ratio)
            dropped += p0 * mass[size - ratio:].sum()
            new_mass[ratio:] += p0 * mass[keep]
            new_first[ratio:] += p0 * first[keep] + p1 * mass[keep]
            new_second[ratio:] += p0 * second[keep] + 2 * p1 * first[keep] + p2 * mass[keep]
        mass, first, second = new_mass, new_first, new_second
        errors[n] = second @ inverse_squares + value**2 * mass[0]
    return errors, dropped * (1 + abs(value)) ** 2
