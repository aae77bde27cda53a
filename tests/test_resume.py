"""Resuming from a checkpoint is bit for bit training straight through: N episodes, save, a fresh trainer built
with the same arguments, `restore`, M more, against N + M in one go.

Each case compares the value function's state (tables exactly, networks tensor by tensor, optimizer included),
the counters, the trainer's generator, the next few epsilon-greedy choices, a few more training episodes
(the training env's generator) and greedy test games (the evaluation env's generator).
"""

from __future__ import annotations

from collections.abc import Callable

import gymnasium as gym
import pytest
import torch

import rltorch
from rltorch import (
    AfterstateKeys,
    MCExploringStarts,
    MCPrediction,
    MCTrainer,
    OffPolicyMCControl,
    QLearningTrainer,
    QTable,
    RLTorchError,
    SARSATrainer,
    VTable,
)
from rltorch.checkpoints import load_checkpoint
from rltorch.envs.blackjack.env import BlackjackEnv
from rltorch.envs.blackjack.evaluation import StickAtLeast
from rltorch.envs.blackjack.solver import states
from rltorch.envs.tictactoe.encoder import BoardEncoder
from rltorch.envs.tictactoe.env import TicTacToeEnv, afterstate
from rltorch.policies import ConstantSchedule, ExponentialSchedule
from rltorch.trainers.base import Trainer
from rltorch.trainers.dqn import DQNTrainer
from rltorch.values import QNetwork, VNetwork, WeightedQTable

QUIET = {"progress": False, "eval_every": 0}
# greedy test games every 50 episodes use the evaluation env's generator; blocks of one episode keep the
# evaluations on the same episodes whatever the split, so the straight and the resumed runs draw alike
EVALUATING = {"progress": False, "log_every": 1, "eval_every": 50, "eval_games": 3}
FAST_DECAY = ExponentialSchedule(decay=100.0)  # epsilon moves a lot within the run, so the episode count matters


pytestmark = pytest.mark.usefixtures("one_thread")


def same(a: object, b: object) -> bool:
    """Exact equality of nested dicts, lists, tuples, tensors and numbers."""
    if isinstance(a, torch.Tensor):
        return isinstance(b, torch.Tensor) and a.dtype == b.dtype and torch.equal(a, b)
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    return a == b


def snapshot(trainer: Trainer) -> dict:
    """What must match after a resume, then a look ahead: choices, more training, test games."""
    state = {
        "values": trainer.value_fn.state_dict(),
        "training": trainer.value_fn.training_state(),
        "episodes": trainer.episodes_done,
        "steps": trainer.steps_done,
        "rng": trainer.rng.getstate(),
    }
    env_state, _ = trainer.env.reset()
    state["choices"] = [trainer.choose(env_state, 0.5)[0] for _ in range(6)]
    trainer.train(5, **QUIET)
    state["after_more"] = trainer.value_fn.state_dict()
    state["test"] = trainer.test(10).mean_return
    return state


def assert_resume_is_exact(make: Callable[[], Trainer], n: int, m: int, tmp_path) -> Trainer:
    """N + M straight against N, save to a file, restore into a fresh trainer, M more. Returns the resumed one."""
    torch.manual_seed(0)
    straight = make().train(n + m, **EVALUATING)
    torch.manual_seed(0)
    first = make().train(n, **EVALUATING)
    path = first.save(tmp_path / "run.pt")
    torch.manual_seed(1)  # the fresh trainer starts from other weights: restore must put every one back
    resumed = make().restore(load_checkpoint(path))
    resumed.train(m, **EVALUATING)
    assert resumed.episodes_done == straight.episodes_done == n + m
    expected, got = snapshot(straight), snapshot(resumed)
    for name in expected:
        assert same(got[name], expected[name]), f"{name} differs after the resume"
    return resumed


def tictactoe_td(cls: type, seat: str, table: str) -> Callable[[], Trainer]:
    """A SARSA or Q-learning learner on tic-tac-toe with a Q table or an afterstate table."""
    def make() -> Trainer:
        keys = AfterstateKeys(afterstate) if table == "afterstate" else None
        value_fn = VTable(alpha=0.2) if table == "afterstate" else QTable(alpha=0.2)
        return cls(TicTacToeEnv(seat=seat), value_fn, keys=keys, schedule=FAST_DECAY, seed=3)
    return make


@pytest.mark.parametrize("cls", [SARSATrainer, QLearningTrainer])
@pytest.mark.parametrize("seat", ["X", "both"])
@pytest.mark.parametrize("table", ["q", "afterstate"])
def test_td_tables_on_tictactoe_resume_exactly(cls, seat, table, tmp_path):
    # catches: a restore that forgets the trainer's generator, the env's generators (training and evaluation),
    # the seat ("both" flips `mark` at every reset: an odd N leaves it on the other seat than a fresh env's),
    # the episode count (epsilon schedule), or any table entry
    resumed = assert_resume_is_exact(tictactoe_td(cls, seat, table), 151, 120, tmp_path)
    assert resumed.env.mark in (1, -1)


def test_a_gymnasium_env_resumes_with_its_numpy_generator(tmp_path):
    # catches: an env state without `np_random` (FrozenLake's slips come from it), or one lost behind wrappers
    def make() -> Trainer:
        env = gym.make("FrozenLake-v1", map_name="4x4")
        return SARSATrainer(env, QTable(alpha=0.3), schedule=FAST_DECAY, gamma=0.95, seed=5)

    assert_resume_is_exact(make, 151, 100, tmp_path)


def test_a_restore_of_the_values_alone_is_not_a_resume(tmp_path):
    # the comparison can fail: values and counters without the generators give a different run
    make = tictactoe_td(SARSATrainer, "both", "q")
    straight = make().train(300, **QUIET)
    first = make().train(150, **QUIET)
    partial = make()
    partial.value_fn.load_state_dict(first.value_fn.state_dict())
    partial.episodes_done = first.episodes_done
    partial.train(150, **QUIET)
    assert partial.value_fn.table != straight.value_fn.table


def test_qlearning_with_replay_and_a_target_network_resumes_exactly(tmp_path):
    # catches: a lost replay buffer, target copy, fit counter (target refresh phase) or Adam state
    def make() -> Trainer:
        network = QNetwork(BoardEncoder(), 9, hidden=(8,), lr=0.01)
        return DQNTrainer(TicTacToeEnv(), network, schedule=FAST_DECAY, seed=1, replay_size=150, batch_size=8,
                          target_update_every=40)

    resumed = assert_resume_is_exact(make, 30, 30, tmp_path)
    assert resumed.fits > 40 and len(resumed.replay) == 150
    assert resumed.fits % 40 != 0  # the restore lands between two refreshes of the target copy


def test_an_afterstate_network_resumes_with_its_optimizer_state(tmp_path):
    # catches: a network restored without Adam's moments and step counts (the next steps differ)
    def make() -> Trainer:
        network = VNetwork(BoardEncoder(), hidden=(8,), lr=0.01)
        return SARSATrainer(TicTacToeEnv(seat="both"), network, keys=AfterstateKeys(afterstate), schedule=FAST_DECAY,
                            seed=2)

    resumed = assert_resume_is_exact(make, 40, 30, tmp_path)
    assert resumed.value_fn.optimizer.state_dict()["state"][0]["step"].item() > 0


def blackjack(method: str, env: Callable[[], BlackjackEnv] = BlackjackEnv) -> Callable[[], Trainer]:
    """The chapter-5 trainers on blackjack, built as trainers/chapter5/methods.py builds them."""
    def make() -> Trainer:
        common = {"gamma": 1.0, "seed": 4}
        if method == "prediction":
            return MCPrediction(env(), VTable(alpha=None), policy=StickAtLeast(20), schedule=ConstantSchedule(0.0),
                                **common)
        if method == "es":
            return MCExploringStarts(env(), QTable(alpha=None), start_states=states(),
                                     schedule=ConstantSchedule(0.0), **common)
        if method == "on-policy":
            return MCTrainer(env(), QTable(alpha=None), schedule=ConstantSchedule(0.1), **common)
        return OffPolicyMCControl(env(), WeightedQTable(), schedule=ConstantSchedule(0.3), **common)
    return make


@pytest.mark.parametrize("method", ["prediction", "es", "on-policy", "off-policy-control"])
def test_monte_carlo_on_blackjack_resumes_exactly(method, tmp_path):
    # catches: lost visit counts (sample averages), cumulative weights C, the env's card generator
    resumed = assert_resume_is_exact(blackjack(method), 400, 300, tmp_path)
    extra = resumed.value_fn.get_extra_state()
    assert extra["counts"] and (method != "off-policy-control" or extra["weights"])


def test_a_kept_shoe_resumes_with_its_cards(tmp_path):
    # catches: env state read only from the env's own generators, not from the shoe it deals from
    shoe = blackjack("on-policy", lambda: BlackjackEnv(decks=1, penetration=0.75))
    resumed = assert_resume_is_exact(shoe, 200, 150, tmp_path)
    assert 0 < len(resumed.env.unwrapped._shoe.cards) < 52


def test_restore_refuses_a_checkpoint_of_another_kind_of_run(tmp_path):
    path = tictactoe_td(SARSATrainer, "X", "q")().train(5, **QUIET).save(tmp_path / "run.pt")
    other = tictactoe_td(QLearningTrainer, "X", "afterstate")()
    with pytest.raises(RLTorchError, match="another kind of run: algorithm 'sarsa'.*keys 'q'.*value_fn 'QTable'"):
        other.restore(load_checkpoint(path))
    with pytest.raises(RLTorchError, match="no 'episodes'"):
        other.restore({key: value for key, value in load_checkpoint(path).items() if key != "episodes"})


def test_prediction_checkpoints_load_as_values_with_the_policy_given(tmp_path):
    trainer = blackjack("prediction")().train(300, **QUIET)
    path = trainer.save(tmp_path / "prediction.pt")
    agent = rltorch.load(path, policy=StickAtLeast(20))
    assert isinstance(agent, rltorch.PolicyAgent) and agent.act((20, 5, 0), [0, 1]) == 0
    assert agent.value_fn.table == trainer.value_fn.table
    values_only = rltorch.load(path)  # no policy: a greedy agent over the values, for `agent.value_fn`
    assert values_only.value_fn.value((20, 5, 0)) == trainer.value_fn.value((20, 5, 0))
