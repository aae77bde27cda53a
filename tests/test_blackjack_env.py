import random
import re
import warnings

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from rltorch.envs.blackjack.env import (
    HIT,
    STICK,
    BlackjackEnv,
    add_card,
    dealer_plays,
    dealer_should_hit,
    draw_card,
    hand_value,
    is_natural,
    outcome,
)
from tests.helpers import RiggedBlackjackEnv, hit_below_15_trace, without_mask


class NoDraws(random.Random):
    """An rng that fails the test if a card is drawn."""

    def random(self):
        raise AssertionError("no card should be drawn")


@pytest.mark.parametrize(
    "cards, expected",
    [
        ([1, 1], (12, True)),
        ([1, 6], (17, True)),
        ([1, 10], (21, True)),
        ([1, 1, 9], (21, True)),
        ([1, 6, 10], (17, False)),  # the soft 17 turns hard: the ace drops to 1
        ([1, 6, 5], (12, False)),
        ([1, 10, 1], (12, False)),
        ([10, 1], (21, True)),
        ([10, 6, 1], (17, False)),  # an ace that would bust counts 1
        ([10, 10, 5], (25, False)),
        ([2, 3], (5, False)),
    ],
)
def test_hand_value_counts_an_ace_as_11_when_that_does_not_bust(cards, expected):
    assert hand_value(cards) == expected


def test_add_card_turns_a_soft_hand_hard_instead_of_busting():
    assert add_card(17, True, 10) == (17, False)
    assert add_card(20, True, 5) == (15, False)
    assert add_card(13, True, 1) == (14, True)
    assert add_card(0, False, 1) == (11, True)


def test_naturals():
    assert is_natural([1, 10]) and is_natural((10, 1))
    assert not is_natural([1, 5, 5]) and not is_natural([10, 10])


def test_draw_card_has_the_infinite_deck_frequencies():
    rng = random.Random(0)
    draws = [draw_card(rng) for _ in range(130_000)]
    assert set(draws) == set(range(1, 11))
    assert draws.count(10) / len(draws) == pytest.approx(4 / 13, abs=0.005)
    assert draws.count(1) / len(draws) == pytest.approx(1 / 13, abs=0.003)


def test_dealer_stands_on_soft_17_unless_told_to_hit_it():
    assert not dealer_should_hit(17, True)
    assert dealer_should_hit(17, True, hits_soft_17=True)
    assert not dealer_should_hit(17, False, hits_soft_17=True)
    assert dealer_should_hit(16, False) and not dealer_should_hit(18, True, hits_soft_17=True)
    assert dealer_plays(17, True, NoDraws()) == 17


def test_outcome_scores_busts_and_comparisons():
    assert outcome(22, 25) == -1.0  # the player's bust loses even if the dealer busts later
    assert outcome(15, 22) == 1.0
    assert (outcome(20, 19), outcome(19, 19), outcome(18, 19)) == (1.0, 0.0, -1.0)


def test_player_draws_automatically_below_12():
    env = RiggedBlackjackEnv([2, 3, 10, 7, 4, 9])
    assert env.reset()[0] == (18, 10, 0)
    assert env.step(STICK)[1:3] == (1.0, True)
    assert env.cards == []


def test_auto_draw_can_make_a_usable_ace():
    env = RiggedBlackjackEnv([5, 4, 6, 10, 1])
    assert env.reset()[0] == (20, 6, 1)


def test_soft_hand_turns_hard_on_a_draw_and_play_goes_on():
    env = RiggedBlackjackEnv([1, 6, 10, 7, 8])
    assert env.reset()[0] == (17, 10, 1)
    assert without_mask(env.step(HIT)) == ((15, 10, 0), 0.0, False, False, {})


def test_bust_ends_the_episode_with_minus_one():
    env = RiggedBlackjackEnv([10, 3, 9, 8, 10])
    env.reset()
    assert without_mask(env.step(HIT)) == ((23, 9, 0), -1.0, True, False, {})
    with pytest.raises(ValueError, match="over"):
        env.step(STICK)


def test_dealer_stands_on_soft_17_by_default():
    env = RiggedBlackjackEnv([10, 8, 1, 6])
    env.reset()
    assert env.step(STICK)[1] == 1.0


def test_dealer_hits_soft_17_with_the_option():
    env = RiggedBlackjackEnv([10, 8, 1, 6, 3], dealer_hits_soft_17=True)
    env.reset()
    assert env.step(STICK)[1] == -1.0
    assert env.cards == []


def test_a_natural_is_settled_on_the_first_step():
    env = RiggedBlackjackEnv([1, 10, 5, 10], natural=True)
    assert env.reset()[0] == (21, 5, 1)
    assert env.step(HIT)[1:3] == (1.0, True)
    env = RiggedBlackjackEnv([10, 1, 1, 10], natural=True, natural_payout=1.5)
    env.reset()
    assert env.step(STICK)[1] == 0.0  # the dealer's natural makes it a draw
    env = RiggedBlackjackEnv([10, 1, 9, 10], natural=True, natural_payout=1.5)
    env.reset()
    assert env.step(STICK)[1] == 1.5


def test_without_the_natural_rule_a_natural_is_an_ordinary_soft_21():
    env = RiggedBlackjackEnv([1, 10, 5, 10, 4])
    env.reset()
    assert without_mask(env.step(HIT)) == ((15, 5, 0), 0.0, False, False, {})


@pytest.mark.parametrize("state", [(12, 1, 0), (13, 2, 1), (21, 10, 1), (16, 10, 0), (20, 7, 1)])
def test_exploring_start_gives_exactly_the_requested_observation(state):
    env = BlackjackEnv(natural=True)
    for seed in range(5):
        obs, _ = env.reset(seed=seed, options={"state": state})
        assert obs == state and all(type(x) is int for x in obs)
    assert not env._natural_dealt  # a set-up 21 is never a natural


@pytest.mark.parametrize("state", [(11, 5, 0), (22, 5, 0), (15, 0, 0), (15, 11, 0), (15, 5, 2), (15, 5), (12.5, 5, 0)])
def test_exploring_start_rejects_impossible_states(state):
    with pytest.raises(ValueError):
        BlackjackEnv().reset(options={"state": state})


def test_observations_are_plain_ints_and_sums_start_at_12():
    env = BlackjackEnv()
    env.reset(seed=3)
    for _ in range(2000):
        obs, _ = env.reset()
        assert 12 <= obs[0] <= 21 and 1 <= obs[1] <= 10 and obs[2] in (0, 1)
        assert all(type(x) is int for x in obs)
        done = False
        while not done:
            obs, reward, done, truncated, info = env.step(HIT if obs[0] < 17 else STICK)
            assert all(type(x) is int for x in obs) and type(reward) is float and not truncated
        assert reward in (-1.0, 0.0, 1.0)


def test_actions_are_checked():
    env = BlackjackEnv()
    env.reset(seed=0)
    assert env.legal_actions() == [0, 1]
    with pytest.raises(ValueError, match="action 2 "):
        env.step(2)
    with pytest.raises(TypeError, match="'hit'"):
        env.step("hit")
    with pytest.raises(ValueError, match="reset"):
        BlackjackEnv().step(HIT)


@pytest.mark.parametrize("action", [np.int64(1), np.uint8(1), np.array(1), 1.0, np.float32(1.0), np.array(1.0)])
def test_integer_like_actions_play_as_the_int(action):
    assert hit_below_15_trace(IntegerLike(action), 5, 200) == hit_below_15_trace(BlackjackEnv(), 5, 200)


@pytest.mark.parametrize("action", ["1", 0.5, float("nan"), float("inf"), None, True, np.True_, [1], np.array([1])])
def test_other_actions_are_a_type_error_naming_them(action):
    env = BlackjackEnv()
    env.reset(seed=0)
    with pytest.raises(TypeError, match=re.escape(f"action must be an integer 0 (stick) or 1 (hit), got {action!r}")):
        env.step(action)


class IntegerLike(BlackjackEnv):
    """Steps with `hit` (an integer-like 1) wherever it is told to hit."""

    def __init__(self, hit):
        super().__init__()
        self.hit = hit

    def step(self, action):
        return super().step(self.hit if action == HIT else action)


INF = float("inf")


@pytest.mark.parametrize(
    "options, name",
    [
        ({"state": (INF, 2, 1)}, "'state'"),
        ({"state": (13, INF, 1)}, "'state'"),
        ({"state": "abc"}, "'state'"),
        ({"state": b"\x0d\x02\x01"}, "'state'"),  # bytes iterate as the ints 13, 2, 1
        ({"state": 13}, "'state'"),
        ({"state": (13, 2)}, "'state'"),
        ({"state": (13, 2, 1, 0)}, "'state'"),
        ({"state": (13.5, 2, 1)}, "'state'"),
        ({"state": (13, 2, True)}, "'state'"),
        ({"state": (13, 2, 1), "hand": (10, 3)}, "'state'"),
        ({"hand": (10, INF)}, "'hand'"),
        ({"hand": (10, "6")}, "'hand'"),
        ({"hand": "A6"}, "'hand'"),
        ({"hand": 10}, "'hand'"),
        ({"hand": (0, 5)}, "'hand'"),
        ({"hand": (10, 14)}, "'hand'"),
        ({"hand": (10, 10, 10)}, "hand"),  # a hard 30
        ({"hand": (10, 6), "dealer_card": 14}, "'dealer_card'"),
        ({"hand": (10, 6), "dealer_card": 2.5}, "'dealer_card'"),
        ({"hand": (10, 6), "dealer_card": INF}, "'dealer_card'"),
        ({"hand": (10, 6), "dealer_card": "K"}, "'dealer_card'"),
        ({"dealer_card": 5}, "'dealer_card'"),
        ({"stat": (13, 2, 1)}, "'stat'"),
        ("state", "must be a dict"),
    ],
)
def test_bad_reset_options_raise_value_error_naming_the_option(options, name):
    with pytest.raises(ValueError, match=re.escape(name)):
        BlackjackEnv().reset(options=options)


def test_reset_options_take_integer_like_values_and_none_for_absent():
    env = BlackjackEnv()
    obs, _ = env.reset(seed=0, options={"state": (np.int64(13), 2.0, np.array(1)), "hand": None})
    assert obs == (13, 2, 1) and all(type(x) is int for x in obs)
    obs, _ = env.reset(options={"hand": np.array([10, 6]), "dealer_card": np.int8(13), "state": None})
    assert obs == (16, 10, 0) and all(type(x) is int for x in obs)
    assert env.reset(options={})[0] in env.observation_space


@pytest.mark.parametrize("draws_below_12", [True, False])
def test_every_advertised_start_state_can_be_reset_to(draws_below_12):
    env = BlackjackEnv(player_draws_below_12=draws_below_12)
    starts = env.start_states()
    assert any(s[0] < 12 for s in starts) != draws_below_12  # hard 4..11 only when the player decides there
    for state in starts:
        assert env.reset(seed=0, options={"state": state})[0] == state
    with pytest.raises(ValueError, match="'state'"):
        env.reset(options={"state": (11, 5, 1)})  # a usable ace makes at least 12
    with pytest.raises(ValueError, match="'state'"):
        env.reset(options={"state": (3, 5, 0)})


def test_same_seed_same_episodes():
    def run(seed):
        return hit_below_15_trace(BlackjackEnv(), seed, 200)

    assert run(7) == run(7)
    assert run(7) != run(8)


@pytest.mark.parametrize("rules", [{}, {"natural": True, "dealer_hits_soft_17": True}])
def test_check_env_passes(rules):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # only the note that a bare env has no spec for other render modes
        check_env(BlackjackEnv(**rules))


def test_render_ansi():
    env = RiggedBlackjackEnv([1, 2, 1, 10, 3], render_mode="ansi")
    env.reset()
    assert env.render() == "player 13 (usable ace), dealer shows A"
    env.step(STICK)
    assert env.render().endswith("dealer ends on 21")
    assert BlackjackEnv().render() is None
