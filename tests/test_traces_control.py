"""SARSA(λ) and true online SARSA(λ): updates worked by hand, λ = 0 is SARSA, tables as one-hot features."""

from __future__ import annotations

import gymnasium as gym
import pytest
import torch
from gymnasium import spaces

from rltorch.features import StateAggregation
from rltorch.policies import ConstantSchedule
from rltorch.run.envs import make_env
from rltorch.trainers import SARSALambdaTrainer, SARSATrainer, TrueOnlineSARSALambdaTrainer
from rltorch.values import QNetwork, QTable
from rltorch.values.encoders import SpaceEncoder
from rltorch.values.linear import LinearValueFunction
from trainers.chapter10.engine import book_coder


class ScriptEnv(gym.Env):
    """One action; states 0, 0, 1 then the end, with rewards 1, 2, 3 (a revisit, so the traces differ)."""

    observation_space = spaces.Discrete(2)
    action_space = spaces.Discrete(1)
    STATES, REWARDS = (0, 0, 1), (1.0, 2.0, 3.0)

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[int, dict]:
        super().reset(seed=seed)
        self.t = 0
        return self.STATES[0], {}

    def step(self, action: int) -> tuple[int, float, bool, bool, dict]:
        self.t += 1
        done = self.t == len(self.STATES)
        return (0 if done else self.STATES[self.t]), self.REWARDS[self.t - 1], done, False, {}


def weights_after_one_episode(cls: type, **kwargs: object) -> list[float]:
    """w after one episode with x(0) = e0, x(1) = e1, alpha 0.5, gamma 1, lambda 0.5."""
    value_fn = LinearValueFunction(StateAggregation(2, 0.0, 2.0), 0.5, actions=1)
    trainer = cls(ScriptEnv(), value_fn, gamma=1.0, schedule=ConstantSchedule(0.0), lam=0.5, **kwargs)
    trainer.run_episode(0.0)
    return value_fn.weights[0].tolist()


def test_accumulating_traces_by_hand() -> None:
    # t0: z=(1,0), δ=1 -> w=(0.5,0), z=(0.5,0); t1: z=(1.5,0), δ=2-0.5=1.5 -> w0 += 0.75*1.5 -> 1.625, z=(0.75,0);
    # t2: z=(0.75,1), δ=3-0=3 -> w += 1.5 z -> (2.75, 1.5)
    assert weights_after_one_episode(SARSALambdaTrainer, trace="accumulating") == [2.75, 1.5]


def test_replacing_traces_by_hand() -> None:
    # t0 as above; t1: z0 = 1 (replaced), δ=1.5 -> w0 = 0.5+0.75 = 1.25, z=(0.5,0); t2: z=(0.5,1), δ=3 -> (2.0, 1.5)
    assert weights_after_one_episode(SARSALambdaTrainer, trace="replacing") == [2.0, 1.5]


class TwoActionScriptEnv(ScriptEnv):
    """ScriptEnv with two actions (the script ignores them): state 0 comes back, so its other action has a trace."""

    action_space = spaces.Discrete(2)


class ScriptedChoices:
    """A trainer's rng that always explores (random() = 0) and picks the scripted actions in turn."""

    def __init__(self, actions: list[int]) -> None:
        self.actions = list(actions)

    def random(self) -> float:
        return 0.0

    def randrange(self, n: int) -> int:
        return self.actions.pop(0)


def clearing_weights(trace: str) -> list[list[float]]:
    """w after one episode of actions 0, 1, 0 in states 0, 0, 1: x(s, a) one-hot at a * 2 + s, alpha 0.5, lambda 0.5."""
    value_fn = LinearValueFunction(StateAggregation(2, 0.0, 2.0), 0.5, actions=2)
    trainer = SARSALambdaTrainer(TwoActionScriptEnv(), value_fn, gamma=1.0, schedule=ConstantSchedule(1.0), lam=0.5,
                                 trace=trace)
    trainer.rng = ScriptedChoices([0, 1, 0])
    trainer.run_episode(1.0)
    return value_fn.weights.tolist()


def test_clearing_traces_by_hand() -> None:
    # t0: z(0,0)=1, δ=1 -> w(0,0)=0.5, z(0,0)=0.5
    # t1 in state 0 with action 1: replacing keeps z(0,0)=0.5; clearing sets it to 0. z(0,1)=1, δ=2:
    #   replacing w(0,0)=0.5+0.5=1.0, clearing stays 0.5; both w(0,1)=1.0; decay: z(0,0)=0.25 (or 0), z(0,1)=0.5
    # t2 in state 1 with action 0: z(1,0)=1, δ=3: w += 1.5 z
    assert clearing_weights("replacing") == [[1.375, 1.5], [1.75, 0.0]]
    assert clearing_weights("clearing") == [[0.5, 1.5], [1.75, 0.0]]


def test_true_online_by_hand() -> None:
    # t0: Q=0,Q'=0,δ=1, z=e0, w += 0.5*1*z -> (0.5,0), Q_old=0
    # t1: Q=0.5,Q'=0,δ=1.5, z = 0.5 z + (1 - 0.25 * 1) e0 = (1.25,0), w += 0.5*2*z - 0.5*0.5*e0 -> (1.5,0), Q_old=0
    # t2: Q=0, δ=3, z = 0.5 z + e1 = (0.625,1), w += 0.5*3*z -> (2.4375, 1.5)
    assert weights_after_one_episode(TrueOnlineSARSALambdaTrainer) == [2.4375, 1.5]


def test_sarsa_lambda_zero_is_sarsa_bit_for_bit() -> None:
    def trained(cls: type, **kwargs: object) -> torch.Tensor:
        value_fn = LinearValueFunction(book_coder(), 0.5 / 8, actions=3)
        env = make_env("MountainCar-v0", {"max_episode_steps": 150})
        cls(env, value_fn, gamma=1.0, schedule=ConstantSchedule(0.1), seed=4, **kwargs).train(
            3, eval_every=0, progress=False)
        return value_fn.weights

    assert torch.equal(trained(SARSALambdaTrainer, lam=0.0), trained(SARSATrainer))


@pytest.mark.parametrize(("cls", "kwargs", "expected"), [(SARSALambdaTrainer, {"trace": "accumulating"}, [2.75, 1.5]),
                                                     (SARSALambdaTrainer, {"trace": "replacing"}, [2.0, 1.5]),
                                                     (TrueOnlineSARSALambdaTrainer, {}, [2.4375, 1.5])])
def test_a_table_learns_as_one_hot_features(cls, kwargs, expected):
    table = QTable(alpha=0.5)
    cls(ScriptEnv(), table, gamma=1.0, schedule=ConstantSchedule(0.0), lam=0.5, **kwargs).run_episode(0.0)
    assert [table.value((0, 0)), table.value((1, 0))] == expected


@pytest.mark.parametrize("value_fn", [QTable(alpha=None), QNetwork(SpaceEncoder([(0, 2)]), 1, [4], 0.01, "cpu")])
def test_a_network_or_an_averaging_table_is_refused(value_fn):
    for cls in (SARSALambdaTrainer, TrueOnlineSARSALambdaTrainer):
        with pytest.raises(ValueError, match="linear value function"):
            cls(ScriptEnv(), value_fn)
