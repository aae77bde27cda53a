import math
import random
import warnings
from collections import Counter

import pytest
from gymnasium.utils.env_checker import check_env

from rltorch.envs.blackjack.env import HIT, STICK, BlackjackEnv
from rltorch.envs.blackjack.shoe import SAME_VALUE, Shoe, check_start, is_pair
from rltorch.envs.blackjack.single_deck import action_values, dealer_natural_chance, expanded_states, exploring_starts
from tests.helpers import RiggedBlackjackEnv, hit_below_15_trace, without_mask


def test_a_single_deck_deals_each_rank_four_times_without_replacement():
    shoe = Shoe(1, random.Random(0))
    shoe.shuffle()
    dealt = [shoe.draw() for _ in range(52)]
    assert Counter(dealt) == {rank: 4 for rank in range(1, 14)}
    assert len(shoe) == 0 and len(Shoe(6, random.Random(0)).full) == 312


def test_an_empty_shoe_refills_with_the_cards_not_on_the_table():
    shoe = Shoe(1, random.Random(1))
    shoe.shuffle()
    for _ in range(52):
        shoe.draw()
    shoe.in_play = [1, 1, 13]
    rank = shoe.draw()
    assert len(shoe) == 48 and Counter(shoe.cards + [rank])[1] == 2 and Counter(shoe.cards + [rank])[13] == 3


def test_a_kept_shoe_reshuffles_only_past_the_penetration():
    shoe = Shoe(1, random.Random(2), penetration=0.5)
    shoe.start_hand()
    assert len(shoe) == 52
    for _ in range(20):
        shoe.draw()
    shoe.start_hand()
    assert len(shoe) == 32  # 38% dealt: kept
    for _ in range(10):
        shoe.draw()
    shoe.start_hand()
    assert len(shoe) == 52  # 58% dealt: reshuffled


def test_take_removes_cards_or_refuses_what_the_shoe_lacks():
    shoe = Shoe(1, random.Random(3))
    shoe.shuffle()
    shoe.take((1, 1, 10))
    assert len(shoe) == 49 and shoe.cards.count(1) == 2
    with pytest.raises(ValueError, match="too few"):
        shoe.take((1, 1, 1))
    assert len(shoe) == 49  # nothing taken


def test_pair_rules():
    assert is_pair(7, 7) and not is_pair(10, 13) and is_pair(10, 13, SAME_VALUE) and not is_pair(6, 8, SAME_VALUE)


@pytest.mark.parametrize(
    "hand, up", [((10,), 5), ((10, 10, 5), 5), ((10, 14), 5), ((10, 6), 0), ((10, 6.5), 5), ("ab", 5), ((10, 6), 2.5)]
)
def test_check_start_rejects_bad_hands(hand, up):
    with pytest.raises(ValueError):
        check_start(hand, up)


def test_fresh_shoe_every_hand_never_deals_a_card_twice():
    env = BlackjackEnv(decks=1)
    env.reset(seed=4)
    for _ in range(3000):
        obs, _ = env.reset()
        done = False
        while not done:
            obs, _, done, _, _ = env.step(HIT if obs[0] < 19 else STICK)
        table = env._shoe.in_play
        assert max(Counter(table).values()) <= 4 and len(env._shoe) + len(table) == 52


def test_exploring_start_takes_the_cards_out_of_a_fresh_shoe():
    env = BlackjackEnv(decks=1, expanded_state=True)
    env.reset(seed=5)
    obs, _ = env.reset(options={"hand": (10, 6), "dealer_card": 10})
    assert obs == (16, 10, 0, 2, 0)
    assert env._shoe.in_play[:3] == [10, 6, 10] and len(env._shoe) == 48  # the hidden card is dealt too
    assert env._shoe.cards.count(10) + env._shoe.in_play.count(10) == 4
    with pytest.raises(ValueError):
        env.reset(options={"hand": (1, 1, 1, 1), "dealer_card": 1})
    with pytest.raises(ValueError, match="hand"):
        env.reset(options={"state": (16, 10, 0)})


@pytest.mark.parametrize(
    "hand, up, pair_rule, obs",
    [
        ((7, 7), 10, "same_rank", (14, 10, 0, 2, 1)),
        ((6, 8), 13, "same_rank", (14, 10, 0, 2, 0)),
        ((10, 13), 2, "same_rank", (20, 2, 0, 2, 0)),
        ((10, 13), 2, "same_value", (20, 2, 0, 2, 1)),
        ((1, 1), 1, "same_rank", (12, 1, 1, 2, 1)),
        ((2, 2, 10), 10, "same_rank", (14, 10, 0, 3, 0)),
        ((6, 4, 4, 2), 10, "same_rank", (16, 10, 0, 4, 0)),
        ((2, 3), 5, "same_rank", (5, 5, 0, 2, 0)),
    ],
)
def test_expanded_state_of_an_exploring_start(hand, up, pair_rule, obs):
    env = BlackjackEnv(decks=1, expanded_state=True, pair_rule=pair_rule, player_draws_below_12=False)
    assert env.reset(seed=0, options={"hand": hand, "dealer_card": up})[0] == obs


def test_expanded_state_caps_the_card_count_at_four_and_drops_the_pair_on_a_hit():
    env = RiggedBlackjackEnv([2, 2, 9, 9, 2, 1, 3, 1], expanded_state=True, player_draws_below_12=False)
    assert env.reset()[0] == (4, 9, 0, 2, 1)
    assert env.step(HIT)[0] == (6, 9, 0, 3, 0)
    assert env.step(HIT)[0] == (17, 9, 1, 4, 0)
    assert env.step(HIT)[0] == (20, 9, 1, 4, 0)
    assert env.step(HIT)[0] == (21, 9, 1, 4, 0)


def test_every_exploring_start_reaches_exactly_the_818_expanded_states():
    env = BlackjackEnv(decks=1, dealer_peeks=True, expanded_state=True, player_draws_below_12=False)
    env.reset(seed=6)
    seen = {env.reset(options={"hand": hand, "dealer_card": up})[0] for hand, up in exploring_starts()}
    assert len(seen) == 818 and seen == expanded_states()


def test_played_observations_stay_in_the_expanded_states():
    states = expanded_states()
    env = BlackjackEnv(decks=1, expanded_state=True, player_draws_below_12=False)
    env.reset(seed=7)
    rng = random.Random(7)
    for _ in range(3000):
        obs, _ = env.reset()
        done = False
        while not done:
            assert obs in states
            obs, _, done, _, _ = env.step(rng.choice(env.legal_actions()))


def test_a_peeked_dealer_natural_ends_the_hand_at_the_first_step():
    env = RiggedBlackjackEnv([10, 6, 1, 10], dealer_peeks=True)
    assert without_mask(env.reset()) == ((16, 1, 0), {"dealer_natural": True})
    assert without_mask(env.step(HIT)) == ((16, 1, 0), -1.0, True, False, {})
    assert env.cards == []  # no card drawn
    env = RiggedBlackjackEnv([1, 13, 10, 1], dealer_peeks=True)
    env.reset()
    assert env.step(STICK)[1] == 0.0  # natural against natural
    env = RiggedBlackjackEnv([1, 13, 10, 1], dealer_peeks=True, natural=True, natural_payout=1.5)
    env.reset()
    assert env.step(STICK)[1] == 0.0


def test_without_a_peek_the_dealer_natural_is_a_21_that_a_drawn_21_ties():
    env = RiggedBlackjackEnv([10, 6, 1, 10, 5])
    assert without_mask(env.reset()) == ((16, 1, 0), {})
    assert env.step(HIT)[:3] == ((21, 1, 0), 0.0, False)
    assert env.step(STICK)[1] == 0.0


def test_peek_only_looks_for_a_natural():
    env = RiggedBlackjackEnv([10, 6, 1, 9, 5], dealer_peeks=True)
    assert without_mask(env.reset()) == ((16, 1, 0), {})
    assert env.step(HIT)[:3] == ((21, 1, 0), 0.0, False)


def _sampled(env, start, policy, episodes):
    """Mean and standard error of the return from `start` under `policy` (a function of the step number),
    over the hands the dealer's peek did not end, and the share of hands it ended."""
    total = total_sq = 0.0
    played = 0
    for _ in range(episodes):
        _, info = env.reset(options=start)
        if info.get("dealer_natural"):
            assert env.step(HIT)[1:3] == (-1.0, True)
            continue
        step, done = 0, False
        while not done:
            _, reward, done, _, _ = env.step(policy(step))
            step += 1
        played += 1
        total += reward
        total_sq += reward * reward
    mean = total / played
    return mean, math.sqrt((total_sq / played - mean * mean) / played), 1 - played / episodes


@pytest.mark.parametrize("peeks", [True, False])
@pytest.mark.parametrize("hand, up", [((1, 7), 1), ((10, 6), 10)])
def test_single_deck_returns_match_the_exact_oracle(hand, up, peeks):
    env = BlackjackEnv(decks=1, dealer_peeks=peeks, player_draws_below_12=False)
    env.reset(seed=8)
    start = {"hand": hand, "dealer_card": up}
    stand, hit = action_values(hand, up, peeks)
    mean, stderr, peeked = _sampled(env, start, lambda step: STICK, 20_000)
    assert abs(mean - stand) < 4 * stderr
    natural = dealer_natural_chance(hand, up)
    assert abs(peeked - (natural if peeks else 0.0)) < 4 * math.sqrt(natural * (1 - natural) / 20_000)
    if hand == (10, 6):  # after one hit, standing is the oracle's play on every card
        mean, stderr, _ = _sampled(env, start, lambda step: HIT if step == 0 else STICK, 20_000)
        assert abs(mean - hit) < 4 * stderr


def test_same_seed_same_hands_from_a_kept_shoe():
    def run(seed):
        env = BlackjackEnv(decks=2, penetration=0.75, dealer_peeks=True, expanded_state=True)
        return hit_below_15_trace(env, seed, 300)

    assert run(9) == run(9) and run(9) != run(10)


def test_options_are_checked():
    with pytest.raises(ValueError):
        BlackjackEnv(penetration=0.5)
    with pytest.raises(ValueError):
        BlackjackEnv(decks=0)
    with pytest.raises(ValueError):
        BlackjackEnv(decks=1, penetration=1.5)
    with pytest.raises(ValueError):
        BlackjackEnv(pair_rule="suits")


@pytest.mark.parametrize(
    "rules",
    [{"decks": 1, "dealer_peeks": True, "expanded_state": True, "player_draws_below_12": False},
     {"decks": 6, "penetration": 0.8, "natural": True, "pair_rule": "same_value", "expanded_state": True}],
)
def test_check_env_passes_with_a_shoe(rules):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_env(BlackjackEnv(**rules))
