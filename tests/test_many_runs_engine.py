"""The engine features `--runs` needs: an epsilon per episode, and lanes continued from where a batch left them."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
import torch

from rltorch.engines import BatchedEngine, LaneState
from rltorch.errors import RLTorchError
from rltorch.mdp import from_gymnasium
from rltorch.policies import ExponentialSchedule


@pytest.fixture(scope="module")
def engine():
    return BatchedEngine(from_gymnasium(gym.make("FrozenLake-v1")))


@pytest.mark.parametrize("algorithm", ["sarsa", "double-qlearning", "nstep-sarsa"])
def test_a_batch_cut_in_two_equals_one_batch(engine, algorithm):
    # Mutants: the second batch starting from zero tables, or from fresh streams, or counting its epsilons from 0.
    schedule = ExponentialSchedule(0.9, 0.05, 20)
    epsilons = [schedule(k) for k in range(90)]
    settings = {"gamma": 0.95, "n": 3, "seed": 5, "time_limit": 100, "run_index": [3, 1, 8]}
    whole = engine.run(algorithm, [0.3, 0.6, 0.9], 90, epsilon=epsilons, **settings)
    first = engine.run(algorithm, [0.3, 0.6, 0.9], 35, epsilon=epsilons[:35], **settings)
    second = engine.run(algorithm, [0.3, 0.6, 0.9], 55, epsilon=epsilons[35:], start=first.lanes_state(), **settings)
    assert torch.equal(whole.values, second.values)
    assert torch.equal(whole.returns, torch.cat([first.returns, second.returns], dim=1))
    assert torch.equal(whole.lengths, torch.cat([first.lengths, second.lengths], dim=1))
    assert np.array_equal(whole.streams, second.streams) and second.episodes_done == 90


def test_the_epsilon_of_each_episode_is_used(engine):
    # Epsilon 1 for the first 10 episodes, then 0: the same lanes under a constant 1 agree for 10 episodes only.
    varying = engine.run("qlearning", [0.5] * 4, 30, epsilon=[1.0] * 10 + [0.0] * 20, gamma=1.0, seed=2)
    constant = engine.run("qlearning", [0.5] * 4, 30, epsilon=1.0, gamma=1.0, seed=2)
    assert torch.equal(varying.lengths[:, :10], constant.lengths[:, :10])
    assert not torch.equal(varying.lengths, constant.lengths)


def test_bad_epsilons_and_starts_are_one_line(engine):
    with pytest.raises(RLTorchError, match="one per episode"):
        engine.run("sarsa", [0.5], 5, epsilon=[0.1, 0.2])
    with pytest.raises(RLTorchError, match=r"epsilon must be in \[0, 1\]"):
        engine.run("sarsa", [0.5], 2, epsilon=[0.1, 1.5])
    with pytest.raises(RLTorchError, match="to continue"):
        engine.run("sarsa", [0.5, 0.5], 2, start=LaneState(np.zeros((1, 1, 16, 4)), np.zeros((1, 4), np.uint64), 0))
    result = engine.run("sarsa", [0.5], 2, keep_values=False)
    with pytest.raises(RLTorchError, match="cannot be continued"):
        result.lanes_state()
