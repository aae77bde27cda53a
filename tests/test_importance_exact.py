"""The exact expected errors of ordinary and weighted importance sampling (Figure 5.3's dashed curves)."""

import itertools
import math

import numpy as np
import pytest

from rltorch.envs.blackjack.env import add_card
from rltorch.envs.blackjack.evaluation import StickAtLeast
from rltorch.envs.blackjack.importance_sampling import (
    ordinary_mse,
    ratio_return_distribution,
    target_value,
    weighted_mse,
)
from rltorch.envs.blackjack.solver import (
    GYMNASIUM_RULES,
    card_probabilities,
    dealer_final_distribution,
    policy_value,
)
from rltorch.run.many_runs import run_seeds
from trainers.chapter5.figures import importance_sampling_errors
from trainers.chapter5.methods import BOOK_START_STATE

STICK_ON_20 = StickAtLeast(20)


@pytest.fixture(scope="module")
def book():
    """The (ratio, return) distribution of Figure 5.3's start state."""
    return ratio_return_distribution(BOOK_START_STATE, STICK_ON_20)


def value_with_draws(state, values):
    """v_pi(state), drawing first while the book's player sits below 12 (a state `values` lacks)."""
    if state in values:
        return values[state]
    total, dealer_card, usable = state
    after = {card: add_card(total, bool(usable), card) for card in card_probabilities()}
    return sum(p * value_with_draws((after[card][0], dealer_card, int(after[card][1])), values)
               for card, p in card_probabilities().items())


@pytest.mark.parametrize(("start", "rules"), [
    (BOOK_START_STATE, None), ((12, 10, 0), None), ((5, 2, 0), None), ((7, 9, 0), GYMNASIUM_RULES),
])
def test_the_distribution_is_one_and_its_ratio_has_mean_one_and_weights_returns_to_v_pi(start, rules):
    distribution = ratio_return_distribution(start, STICK_ON_20, *(() if rules is None else (rules,)))
    assert math.fsum(distribution.values()) == pytest.approx(1, abs=1e-14)
    assert math.fsum(p * ratio for (ratio, _), p in distribution.items()) == pytest.approx(1, abs=1e-14)
    truth = value_with_draws(start, policy_value(STICK_ON_20, *(() if rules is None else (rules,))))
    assert target_value(distribution) == pytest.approx(truth, abs=1e-14)


def test_a_hand_that_sticks_at_once_worked_by_hand():
    # On hard 20 against a 7 the target sticks: ratio 2 with chance 1/2, the dealer decides G.
    dealer = dealer_final_distribution(7)
    win = dealer[22] + dealer[17] + dealer[18] + dealer[19]
    lose = dealer[21]
    distribution = ratio_return_distribution((20, 7, 0), STICK_ON_20)
    assert distribution == pytest.approx({(0, 0.0): 0.5, (2, 1.0): win / 2, (2, 0.0): dealer[20] / 2,
                                          (2, -1.0): lose / 2})
    v = win - lose
    variance = win + lose - v * v  # of G on the target's path
    assert ordinary_mse(distribution, 3) == pytest.approx((2 * (win + lose) - v * v) / 3)
    errors, bound = weighted_mse(distribution, 2)
    # One episode: no weight (error v^2) or G itself. Two: neither, one, or the mean of two returns.
    assert errors[0] == pytest.approx(v * v / 2 + variance / 2)
    assert errors[1] == pytest.approx(v * v / 4 + variance / 2 + variance / 8)
    assert bound == 0


def brute_force_weighted(distribution, episodes):
    """E[(weighted estimate - v)^2] by listing every sequence of `episodes` (ratio, return) outcomes."""
    v = target_value(distribution)
    outcomes = list(distribution.items())
    total = 0.0
    for sequence in itertools.product(outcomes, repeat=episodes):
        p = math.prod(chance for _, chance in sequence)
        weight = sum(ratio for (ratio, _), _ in sequence)
        estimate = sum(ratio * reward for (ratio, reward), _ in sequence) / weight if weight else 0.0
        total += p * (estimate - v) ** 2
    return total


def test_the_dynamic_program_equals_listing_every_sequence(book):
    errors, bound = weighted_mse(book, 3)
    assert bound < 1e-15
    for n in (1, 2, 3):
        assert errors[n - 1] == pytest.approx(brute_force_weighted(book, n), rel=1e-12)


def test_truncating_the_ratio_sum_stays_within_its_bound(book):
    full, _ = weighted_mse(book, 30, max_ratio_sum=1 << 12)
    cut, bound = weighted_mse(book, 30, max_ratio_sum=64)
    assert bound > 0 and np.all(np.abs(full - cut) <= bound)


def test_weighted_is_lower_in_expectation_at_10_and_100_episodes(book):
    weighted, _ = weighted_mse(book, 100)
    ordinary = ordinary_mse(book, np.arange(1, 101))
    assert ordinary[0] == pytest.approx(10.156, abs=1e-3)  # Var(rho G): ratios up to 2^16
    assert weighted[9] < ordinary[9] / 1.9 and weighted[99] < ordinary[99]
    assert np.all(weighted < ordinary)


def test_100_runs_agree_with_the_exact_expectation(book):
    errors = importance_sampling_errors(runs=100, episodes=300, seed=0)
    expected, _ = weighted_mse(book, 300)
    sampled = errors["weighted"].mean(axis=0)
    # Weighted squared errors are at most 1.28^2, so 100 runs pin the mean to a few hundredths.
    for n in (1, 10, 100, 300):
        spread = errors["weighted"][:, n - 1].std() / 10
        assert abs(sampled[n - 1] - expected[n - 1]) < 4 * spread + 1e-3
    ordinary = errors["ordinary"].mean(axis=0)
    assert ordinary[0] > 5 * sampled[0] and sampled[9] < ordinary[9]
    assert sampled[-1] < 0.06 and ordinary[-1] < 0.06  # both about 0.03 after 300
    assert np.all(errors["weighted"] <= (1 + 0.28) ** 2)  # a weighted average of returns in [-1, 1]


def test_run_seeds_are_independent_of_neighbouring_base_seeds():
    assert len(set(run_seeds(0, 100))) == 100
    assert not set(run_seeds(0, 100)) & set(run_seeds(1, 100))
    assert run_seeds(0, 3) == run_seeds(0, 3)
