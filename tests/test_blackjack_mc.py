from collections import Counter

import gymnasium as gym
import pytest

from rltorch import MCExploringStarts, MCPrediction, MCTrainer, QTable, VTable, load
from rltorch.agents import PolicyAgent
from rltorch.envs.blackjack.env import HIT, STICK, BlackjackEnv
from rltorch.envs.blackjack.evaluation import ExactBlackjack, StickAtLeast
from rltorch.envs.blackjack.solver import GYMNASIUM_RULES, policy_value, states
from rltorch.logger import NullLogger
from rltorch.policies import ConstantSchedule
from tests.helpers import RiggedBlackjackEnv
from trainers.chapter5.methods import make_trainer


class RecordingEnv(BlackjackEnv):
    """Remembers the options of every reset."""

    def __init__(self):
        super().__init__()
        self.starts = []

    def reset(self, *, seed=None, options=None):
        self.starts.append(None if options is None else options.get("state"))
        return super().reset(seed=seed, options=options)



class RecordingLogger(NullLogger):
    def __init__(self):
        self.tags = Counter()

    def scalars(self, values, step):
        self.tags.update(values.keys())


def test_first_visit_prediction_of_a_rigged_hand_by_hand():
    # Player 7 + 6 = 13 (no ace), dealer shows 2 with a 10 hidden. Stick-on-20 hits: 7 -> 20, sticks.
    # Dealer 12 draws 5 -> 17 and stands: 20 beats 17, reward +1 for both states of the episode.
    env = RiggedBlackjackEnv([10, 10, 10, 10, 7, 6, 2, 10, 7, 5])  # the first four feed the seeding reset
    trainer = MCPrediction(env, VTable(alpha=None), gamma=1.0, policy=StickAtLeast(20), seed=0)
    assert trainer.run_episode(0.0) == 1.0
    assert trainer.value_fn.table == {(13, 2, 0): 1.0, (20, 2, 0): 1.0}
    assert trainer.value_fn.counts == {(13, 2, 0): 1, (20, 2, 0): 1}


def test_first_visit_prediction_meets_the_10k_acceptance_error():
    trainer = make_trainer("prediction", seed=0)
    trainer.train(10_000, progress=False, eval_every=0)
    assert trainer.exact_eval(trainer.agent())["exact/rms_error"] <= 0.26
    trainer.train(40_000, progress=False, eval_every=0)
    assert trainer.exact_eval(trainer.agent())["exact/rms_error"] <= 0.09


def test_every_visit_equals_first_visit_on_blackjack():
    # A blackjack hand never meets a state twice, so both rules see the same samples.
    first = make_trainer("prediction", seed=5).train(3000, progress=False, eval_every=0)
    every = make_trainer("prediction", seed=5, first_visit=False).train(3000, progress=False, eval_every=0)
    assert first.value_fn.table == every.value_fn.table


def test_exploring_starts_cover_every_state_and_first_action_uniformly():
    env = RecordingEnv()
    trainer = MCExploringStarts(env, QTable(alpha=None), gamma=1.0, seed=1, schedule=ConstantSchedule(0.0),
                                start_states=states())
    first_actions = Counter()
    for _ in range(8000):
        keys, _ = trainer.generate_episode(0.0)
        assert keys[0][0] == env.starts[-1]
        first_actions[keys[0][1]] += 1
    assert set(env.starts[1:]) == set(states())  # starts[0] is the seeding reset in __init__
    assert max(Counter(env.starts[1:]).values()) < 80  # about 40 each
    assert abs(first_actions[STICK] - first_actions[HIT]) < 300


def test_exploring_starts_are_greedy_after_the_first_action():
    # Sticking is worth 1 everywhere, so every action after the random first one is a stick.
    table = QTable(alpha=None)
    table.table.update({(state, STICK): 1.0 for state in states()})
    trainer = MCExploringStarts(BlackjackEnv(), table, gamma=1.0, seed=2, start_states=states())
    for _ in range(300):
        keys, _ = trainer.generate_episode(0.0)
        assert len(keys) <= 2 and all(action == STICK for _, action in keys[1:])


def test_exploring_starts_refuse_an_env_that_ignores_the_start_state():
    trainer = MCExploringStarts(gym.make("Blackjack-v1"), QTable(alpha=None), seed=0, start_states=[(13, 2, 1)])
    with pytest.raises(ValueError, match="honours reset"):
        trainer.run_episode(0.0)


def test_mc_es_learns_most_of_pi_star():
    trainer = make_trainer("es", seed=0)
    trainer.train(60_000, progress=False, eval_every=0)
    scalars = trainer.exact_eval(trainer.agent())
    assert scalars["exact/policy_agreement"] >= 0.9 and scalars["exact/return_gap"] < 0.02


def test_epsilon_soft_on_policy_control_nears_the_optimum():
    trainer = make_trainer("on-policy", seed=0, schedule=ConstantSchedule(0.1))
    trainer.train(60_000, progress=False, eval_every=0)
    assert trainer.exact_eval(trainer.agent())["exact/return_gap"] < 0.02


@pytest.mark.parametrize("method", ["prediction", "es", "on-policy", "off-policy-prediction", "off-policy-control"])
def test_the_same_seed_gives_identical_tables(method):
    def table(seed):
        trainer = make_trainer(method, seed=seed)
        trainer.train(1500, progress=False, eval_every=500, eval_games=20)
        return trainer.value_fn.table

    assert table(3) == table(3)
    assert table(3) != table(4)


def test_tensorboard_gets_the_exact_scalars_and_epsilon_only_where_used():
    control_log, prediction_log = RecordingLogger(), RecordingLogger()
    make_trainer("on-policy", seed=0, logger=control_log).train(400, progress=False, eval_every=200, eval_games=10)
    make_trainer("prediction", seed=0, logger=prediction_log).train(400, progress=False, eval_every=200,
                                                                    eval_games=10)
    for tag in ("train/return", "train/epsilon", "exact/rms_error", "exact/policy_agreement",
                "exact/expected_return"):
        assert control_log.tags[tag] > 0, tag
    assert prediction_log.tags["exact/rms_error"] == 2 and prediction_log.tags["train/return"] == 4
    assert "train/epsilon" not in prediction_log.tags


def test_the_same_trainers_learn_on_gymnasium_blackjack():
    # Gymnasium's player also decides on hard 4..11: 280 states; the oracle covers them.
    prediction = make_trainer("prediction", env=gym.make("Blackjack-v1"), rules=GYMNASIUM_RULES, seed=0)
    before = prediction.exact_eval(prediction.agent())["exact/rms_error"]
    prediction.train(8000, progress=False, eval_every=0)
    assert any(state[0] < 12 for state in prediction.value_fn.table)
    assert prediction.exact_eval(prediction.agent())["exact/rms_error"] < min(0.25, before / 2)
    control = make_trainer("on-policy", env=gym.make("Blackjack-v1"), rules=GYMNASIUM_RULES, seed=0)
    gap_before = control.exact_eval(control.agent())["exact/return_gap"]
    control.train(8000, progress=False, eval_every=4000, eval_games=100)
    gap_after = control.exact_eval(control.agent())["exact/return_gap"]
    assert len(control.exact_eval.decision_states) == 280 and gap_after < min(0.1, gap_before / 2)


def test_prediction_checkpoint_loads_the_policy_and_its_values(tmp_path):
    trainer = make_trainer("prediction", seed=0).train(2000, progress=False, eval_every=0)
    # A data checkpoint holds the values, not the policy function: the policy is given back at load time.
    agent = load(trainer.save(tmp_path / "prediction.pt"), policy=StickAtLeast(20))
    assert isinstance(agent, PolicyAgent) and agent.policy == StickAtLeast(20)
    assert agent.value_fn.table == trainer.value_fn.table
    assert agent.act((19, 5, 0), [STICK, HIT]) == HIT and agent.act((20, 5, 0), [STICK, HIT]) == STICK


def test_exact_evaluation_of_the_oracle_itself_is_perfect():
    exact = ExactBlackjack()
    table = QTable(alpha=None)
    for state, pair in exact.q_star.items():
        table.table.update({(state, STICK): pair[0], (state, HIT): pair[1]})
    trainer = MCTrainer(BlackjackEnv(), table, gamma=1.0)
    scalars = exact(trainer.agent())
    assert scalars["exact/rms_error"] == 0 and scalars["exact/policy_agreement"] == 1
    assert scalars["exact/return_gap"] == pytest.approx(0, abs=1e-12)
    values = VTable(alpha=None)
    values.table.update(policy_value(StickAtLeast(20)))
    assert ExactBlackjack(policy=StickAtLeast(20))(PolicyAgent(StickAtLeast(20), values))["exact/rms_error"] == 0
