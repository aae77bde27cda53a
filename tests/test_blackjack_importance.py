import pytest
import torch

from rltorch.envs.blackjack.env import HIT, STICK, BlackjackEnv
from rltorch.envs.blackjack.evaluation import StickAtLeast
from rltorch.importance import (
    epsilon_greedy_probability,
    greedy_probability,
    ordinary_estimate,
    ratios_after,
    ratios_to_end,
    step_ratio,
    weighted_estimate,
)
from rltorch.trainers.offpolicy import BehaviourEpisode, OffPolicyMCControl, OffPolicyMCPrediction
from rltorch.values import VTable
from rltorch.values.weighted import WeightedQTable, WeightedVTable
from trainers.chapter5.methods import BOOK_START_STATE, make_trainer

SOFT_13, SOFT_16, SOFT_20, HARD_12 = (13, 2, 1), (16, 2, 1), (20, 2, 1), (12, 2, 0)


def episode(steps, reward):
    """A hand-built behaviour episode of (state, action) steps under the random behaviour (b = 1/2)."""
    built = BehaviourEpisode()
    for state, action in steps:
        built.states.append(state)
        built.legal.append([STICK, HIT])
        built.actions.append(action)
        built.keys.append((state, action))
        built.probabilities.append(0.5)
        built.rewards.append(0.0)
    built.rewards[-1] = reward
    return built


def prediction_trainer(weighted):
    table = WeightedVTable() if weighted else VTable(alpha=None)
    return OffPolicyMCPrediction(BlackjackEnv(), table, gamma=1.0, target_policy=StickAtLeast(20), weighted=weighted)


def test_ratios_of_a_short_episode_by_hand():
    # Soft 13 hit, soft 16 hit, soft 20 stick: stick-on-20 takes all three (pi = 1), b = 1/2 each.
    # rho_{0:2} = 2 * 2 * 2 = 8, rho_{1:2} = 4, rho_{2:2} = 2; for Q the own action is not corrected.
    target, behaviour = [1.0, 1.0, 1.0], [0.5, 0.5, 0.5]
    assert ratios_to_end(target, behaviour) == [8.0, 4.0, 2.0]
    assert ratios_after(target, behaviour) == [4.0, 2.0, 1.0]
    # Sticking on 13 is not the target's action: every ratio through that step is 0.
    assert ratios_to_end([0.0, 1.0], [0.5, 0.5]) == [0.0, 2.0]
    assert step_ratio(0.0, 0.0) == 0.0
    with pytest.raises(ValueError, match="coverage"):
        step_ratio(1.0, 0.0)


def test_policy_probabilities():
    assert greedy_probability([0.2, 0.5, 0.5], 1) == 1.0 and greedy_probability([0.2, 0.5, 0.5], 2) == 0.0
    # epsilon 0.3 over 3 actions, two tied best: 0.1 each, plus 0.35 for each of the best.
    assert epsilon_greedy_probability([0.2, 0.5, 0.5], 0, 0.3) == pytest.approx(0.1)
    assert epsilon_greedy_probability([0.2, 0.5, 0.5], 2, 0.3) == pytest.approx(0.45)
    assert ordinary_estimate([8.0, 0.0, 4.0], [1.0, -1.0, -1.0]) == pytest.approx(4 / 3)
    assert weighted_estimate([8.0, 0.0, 4.0], [1.0, -1.0, -1.0]) == pytest.approx(1 / 3)
    assert weighted_estimate([0.0], [1.0]) == 0.0


def test_off_policy_prediction_of_three_hand_built_episodes():
    # 1: soft 13 hit, soft 16 hit, soft 20 stick, +1: weights 8, 4, 2.
    # 2: soft 13 stick, -1: the target hits on 13, weight 0.
    # 3: soft 13 hit, hard 12 hit, bust, -1: weights 4, 2.
    episodes = [episode([(SOFT_13, HIT), (SOFT_16, HIT), (SOFT_20, STICK)], 1.0),
                episode([(SOFT_13, STICK)], -1.0),
                episode([(SOFT_13, HIT), (HARD_12, HIT)], -1.0)]
    ordinary, weighted = prediction_trainer(False), prediction_trainer(True)
    for built in episodes:
        ordinary.update_prediction(built)
        weighted.update_prediction(built)
    # ordinary: (8 * 1 + 0 * -1 + 4 * -1) / 3; weighted: (8 * 1 + 4 * -1) / (8 + 4)
    assert ordinary.value_fn.value(SOFT_13) == pytest.approx(4 / 3)
    assert weighted.value_fn.value(SOFT_13) == pytest.approx(1 / 3)
    assert weighted.value_fn.cumulative_weight(SOFT_13) == 12.0
    assert ordinary.value_fn.value(SOFT_16) == 4.0 and weighted.value_fn.value(SOFT_16) == 1.0
    assert ordinary.value_fn.value(HARD_12) == -2.0 and weighted.value_fn.value(HARD_12) == -1.0


def test_off_policy_control_backward_loop_by_hand():
    trainer = OffPolicyMCControl(BlackjackEnv(), WeightedQTable(), gamma=1.0)
    q = trainer.value_fn
    # Soft 13 hit, soft 20 stick, +1. Q(20, stick) = 1 (W 1); greedy there is stick, so W = 2;
    # Q(13, hit) = 0 + 2/2 * (1 - 0) = 1 and C(13, hit) = 2.
    trainer.update_control(episode([(SOFT_13, HIT), (SOFT_20, STICK)], 1.0))
    assert q.value((SOFT_20, STICK)) == 1.0 and q.value((SOFT_13, HIT)) == 1.0
    assert q.cumulative_weight((SOFT_13, HIT)) == 2.0
    # Soft 13 hit, soft 20 hit, bust: Q(20, hit) = -1, but greedy at 20 sticks: the loop stops there.
    trainer.update_control(episode([(SOFT_13, HIT), (SOFT_20, HIT)], -1.0))
    assert q.value((SOFT_20, HIT)) == -1.0
    assert q.value((SOFT_13, HIT)) == 1.0 and q.cumulative_weight((SOFT_13, HIT)) == 2.0


def test_weighted_table_arithmetic_and_weights_only_state_dict(tmp_path):
    table = WeightedVTable()
    assert table.update_weighted("s", 1.0, 8.0) == 1.0
    table.update_weighted("s", -1.0, 0.0)
    table.update_weighted("s", -1.0, 4.0)
    assert table.value("s") == pytest.approx(1 / 3) and table.cumulative_weight("s") == 12.0
    with pytest.raises(ValueError, match="never negative"):
        table.update_weighted("s", 1.0, -1.0)
    errors = table.fit_weighted(["t", "t"], torch.tensor([2.0, 4.0]), [1.0, 3.0])
    assert errors.tolist() == [2.0, 2.0] and table.value("t") == pytest.approx(3.5)
    torch.save(table.state_dict(), tmp_path / "table.pt")
    restored = WeightedVTable()
    restored.load_state_dict(torch.load(tmp_path / "table.pt", weights_only=True))
    assert restored.table == table.table and restored.weights == table.weights


def test_weighted_needs_a_weighted_table():
    with pytest.raises(ValueError, match="update_weighted"):
        OffPolicyMCPrediction(BlackjackEnv(), VTable(alpha=None), target_policy=StickAtLeast(20), weighted=True)


def test_off_policy_prediction_starts_in_the_books_state_and_control_learns():
    trainer = make_trainer("off-policy-prediction", start_state=BOOK_START_STATE, seed=0)
    trainer.train(2000, progress=False, eval_every=0)
    assert trainer.value_fn.counts[BOOK_START_STATE] == 2000
    assert abs(trainer.exact_eval(trainer.agent())["exact/start_state_error"]) < 0.15
    control = make_trainer("off-policy-control", seed=0)
    control.train(60_000, progress=False, eval_every=0)
    assert control.exact_eval(control.agent())["exact/return_gap"] < 0.015
