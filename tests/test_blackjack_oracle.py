import math
import random
from fractions import Fraction

import gymnasium as gym
import pytest

from rltorch.envs.blackjack.env import HIT, STICK, BlackjackEnv, add_card, dealer_plays
from rltorch.envs.blackjack.solver import (
    BOOK_RULES,
    BUST,
    GYMNASIUM_RULES,
    Rules,
    action_values,
    dealer_distribution_from,
    dealer_final_distribution,
    expected_return,
    natural_probability,
    near_ties,
    optimal_policy,
    optimal_return,
    policy_value,
    q_star,
    start_distribution,
    states,
    stick_value,
    v_star,
)


def stick_on_20(state):
    return STICK if state[0] >= 20 else HIT


def figure_5_2(state):
    """Sutton & Barto's Figure 5.2, the optimal policy, written out from its picture."""
    player_sum, dealer_card, usable = state
    if usable:
        return STICK if player_sum >= 19 or (player_sum == 18 and 2 <= dealer_card <= 8) else HIT
    if player_sum >= 17 or (13 <= player_sum <= 16 and 2 <= dealer_card <= 6):
        return STICK
    return STICK if player_sum == 12 and 4 <= dealer_card <= 6 else HIT


def test_dealer_from_hard_16_and_15_by_hand():
    # Hard 16 draws once: A..5 make 17..21, each 1/13; 6, 7, 8, 9 and the four 10s bust: 8/13.
    sixteen = dealer_distribution_from(16, False, exact=True)
    assert sixteen == {17: Fraction(1, 13), 18: Fraction(1, 13), 19: Fraction(1, 13), 20: Fraction(1, 13),
                       21: Fraction(1, 13), BUST: Fraction(8, 13)}
    # Hard 15: 2..6 make 17..21 directly (1/13 each); an ace makes hard 16 (1/13, then as above),
    # so each final total has 1/13 + 1/169 = 14/169; the rest busts: 1 - 5 * 14/169 = 99/169.
    fifteen = dealer_distribution_from(15, False, exact=True)
    assert all(fifteen[total] == Fraction(14, 169) for total in range(17, 22))
    assert fifteen[BUST] == Fraction(99, 169)


@pytest.mark.parametrize("hits_soft_17", [False, True])
def test_dealer_with_a_10_up_by_hand(hits_soft_17):
    # From hard t in 12..16 every total f in 17..21 is reached either by the one card f - t (1/13)
    # or through a higher hard total u < 17 (an ace or a small card, 1/13 each):
    #     a(t) = 1/13 + (1/13) * sum_{u=t+1}^{16} a(u),  so  a(t) = (14/13) a(t+1),  a(16) = 1/13,
    # i.e. a(t) = (1/13) (14/13)^(16-t), the same for every f. No hand from 12 up can turn soft.
    # Up card 10: the hidden card 7, 8, 9 or A stands at once on 17, 18, 19, 21 (1/13 each), a 10 on
    # 20 (4/13); 2..6 give hard 12..16 (1/13 each), adding to every f
    #     c = (1/13) sum_{k=0}^{4} (1/13)(14/13)^k = (14^5 - 13^5) / 13^6 = 166531 / 4826809.
    c = Fraction(14**5 - 13**5, 13**6)
    assert c == Fraction(166531, 4826809)
    expected = {17: Fraction(1, 13) + c, 18: Fraction(1, 13) + c, 19: Fraction(1, 13) + c,
                20: Fraction(4, 13) + c, 21: Fraction(1, 13) + c}
    expected[BUST] = 1 - sum(expected.values())
    assert dealer_final_distribution(10, hits_soft_17, exact=True) == expected
    assert float(expected[BUST]) == pytest.approx(0.212109, abs=1e-6)


@pytest.mark.parametrize("hits_soft_17", [False, True])
def test_dealer_distribution_is_exact_and_matches_sampling(hits_soft_17):
    rng = random.Random(11)
    n = 20_000
    for up_card in range(1, 11):
        exact = dealer_final_distribution(up_card, hits_soft_17, exact=True)
        assert sum(exact.values()) == 1
        floats = dealer_final_distribution(up_card, hits_soft_17)
        assert all(abs(floats[k] - exact[k]) < 1e-14 for k in exact)
        counts = dict.fromkeys(exact, 0)
        for _ in range(n):
            final = dealer_plays(*add_card(0, False, up_card), rng, hits_soft_17)
            counts[min(final, BUST)] += 1
        for total, p in floats.items():
            assert abs(counts[total] / n - p) < 5 * math.sqrt(p * (1 - p) / n)


def test_hitting_soft_17_only_changes_hands_that_can_reach_soft_17():
    for up_card in (2, 3, 4, 5, 6, 1):
        assert dealer_final_distribution(up_card) != dealer_final_distribution(up_card, hits_soft_17=True)
    assert dealer_final_distribution(10) == dealer_final_distribution(10, hits_soft_17=True)


def test_value_of_the_books_example_state():
    # Usable ace, sum 13, dealer 2, policy "stick only on 20 or 21": the book's Monte Carlo gives -0.27726.
    value = policy_value(stick_on_20)[(13, 2, 1)]
    assert value == pytest.approx(-0.27720, abs=1e-5)
    exact = policy_value(stick_on_20, exact=True)[(13, 2, 1)]
    assert isinstance(exact, Fraction) and abs(float(exact) - value) < 1e-12


def test_optimal_policy_is_figure_5_2_in_all_200_states():
    policy = optimal_policy()
    assert len(policy) == 200
    assert [s for s in states() if policy[s] != figure_5_2(s)] == []
    assert optimal_policy(exact=True) == policy


def test_no_state_is_a_near_tie():
    # The closest calls are hard 12 against a 4 (stick by 0.0025) and hard 16 against a 10 (hit by 0.0065).
    assert near_ties(tolerance=1e-3) == {}
    assert set(near_ties(tolerance=0.007)) == {(12, 4, 0), (16, 10, 0)}


def test_optimal_values_are_consistent():
    q = q_star()
    v = v_star()
    pi = optimal_policy()
    v_pi = policy_value(pi)
    assert all(abs(v[s] - v_pi[s]) < 1e-12 and v[s] == q[s][pi[s]] for s in states())
    assert all(q[s][STICK] == stick_value(s[0], s[1]) for s in states())
    for policy in (stick_on_20, figure_5_2, lambda s: STICK):
        values = policy_value(policy)
        assert all(values[s] <= v[s] + 1e-12 for s in states())
    assert optimal_return() == pytest.approx(expected_return(figure_5_2), abs=1e-15)
    assert optimal_return() == pytest.approx(-0.046556, abs=1e-6)


def test_q_pi_of_a_policy_uses_the_policy_after_the_first_action():
    q = action_values(stick_on_20)
    v = policy_value(stick_on_20)
    assert q[(21, 5, 0)][HIT] == -1.0
    assert q[(20, 5, 0)][HIT] == pytest.approx(v[(21, 5, 0)] / 13 - 12 / 13)  # only an ace keeps it alive


def test_policy_must_give_stick_or_hit():
    with pytest.raises(ValueError, match="action 2"):
        policy_value(lambda s: 2)
    with pytest.raises(KeyError):
        policy_value({(12, 1, 0): STICK})


def test_start_distribution():
    assert sum(start_distribution(exact=True).values()) == 1
    assert natural_probability(exact=True) == Fraction(8, 169)
    with_naturals = start_distribution(Rules(natural=True), exact=True)
    assert sum(with_naturals.values()) == 1 - Fraction(8, 169)
    assert min(s for s, _ in start_distribution()) == 12
    low = start_distribution(GYMNASIUM_RULES, exact=True)
    assert low[(4, 0)] == Fraction(1, 169) and low[(12, 1)] == Fraction(1, 169)  # 2+2, and A+A


def test_gymnasium_rules_add_the_low_sums_and_keep_the_rest():
    assert len(states(include_low_sums=True)) == 280
    book, gym_q = q_star(), q_star(GYMNASIUM_RULES)
    assert len(gym_q) == 280 and all(gym_q[s] == book[s] for s in book)
    policy = optimal_policy(GYMNASIUM_RULES)
    assert all(policy[s] == HIT for s in states(include_low_sums=True) if s[0] < 12)
    assert optimal_return(GYMNASIUM_RULES) == pytest.approx(optimal_return(), abs=1e-12)


def sampled_mean(env, policy, episodes, seed):
    """Mean return and its standard error over seeded episodes."""
    env.reset(seed=seed)
    total = total_sq = 0.0
    for _ in range(episodes):
        obs, _ = env.reset()
        done = False
        while not done:
            obs, reward, done, _, _ = env.step(policy(obs))
        total += reward
        total_sq += reward * reward
    mean = total / episodes
    return mean, math.sqrt((total_sq / episodes - mean * mean) / episodes)


@pytest.mark.parametrize(
    "rules, episodes",
    [(BOOK_RULES, 200_000), (Rules(natural=True, natural_payout=1.5, dealer_hits_soft_17=True), 100_000)],
)
def test_env_mean_return_matches_the_exact_expected_return(rules, episodes):
    env = BlackjackEnv(rules.natural, rules.natural_payout, rules.dealer_hits_soft_17)
    mean, stderr = sampled_mean(env, stick_on_20, episodes, seed=2024)
    assert abs(mean - expected_return(stick_on_20, rules)) < 4 * stderr


def test_exploring_start_returns_match_the_exact_value():
    env = BlackjackEnv()
    env.reset(seed=5)
    returns = []
    for _ in range(40_000):
        obs, _ = env.reset(options={"state": (13, 2, 1)})
        done = False
        while not done:
            obs, reward, done, _, _ = env.step(stick_on_20(obs))
        returns.append(reward)
    mean = sum(returns) / len(returns)
    stderr = math.sqrt(sum((r - mean) ** 2 for r in returns) / len(returns) ** 2)
    assert abs(mean - policy_value(stick_on_20)[(13, 2, 1)]) < 4 * stderr


def test_gymnasiums_blackjack_matches_the_gymnasium_rules():
    def low_sum_policy(state):  # sticks on some hard sums below 12, so those states matter
        return STICK if 8 <= state[0] <= 11 or state[0] >= 18 else HIT

    exact = expected_return(low_sum_policy, GYMNASIUM_RULES)
    assert abs(exact - expected_return(low_sum_policy)) > 0.05  # the book's auto-draw gives another value
    env = gym.make("Blackjack-v1").unwrapped
    mean, stderr = sampled_mean(env, lambda obs: low_sum_policy(tuple(int(x) for x in obs)), 10_000, seed=9)
    assert abs(mean - exact) < 4 * stderr
