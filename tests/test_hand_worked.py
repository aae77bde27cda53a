"""Numbers worked out by hand: Monte Carlo's visit rules on an episode that revisits a state, Dyna-Q's model of
an env that changes, and a reward that is not a number.

The path env walks 0 -> 1 -> 0 -> end whatever the action (its one action is 0), with the rewards 1, 2, 4.
With gamma = 0.5 the returns of the three steps are
    G_2 = 4                        (the second visit to state 0)
    G_1 = 2 + 0.5 * G_2 = 4        (the visit to state 1)
    G_0 = 1 + 0.5 * G_1 = 3        (the first visit to state 0)
so first-visit Monte Carlo gives V(0) = G_0 = 3 and V(1) = 4, and every-visit Monte Carlo, averaging both
visits to 0, gives V(0) = (3 + 4) / 2 = 3.5. Every number below is exact in binary floating point.
"""

from __future__ import annotations

import math

import gymnasium as gym
import pytest
from gymnasium import spaces

from rltorch import (
    DoubleQLearningTrainer,
    DynaQTrainer,
    ExpectedSARSATrainer,
    MCExploringStarts,
    MCPrediction,
    MCTrainer,
    NStepSARSATrainer,
    OffPolicyMCControl,
    OffPolicyMCPrediction,
    QLearningTrainer,
    QTable,
    RLTorchError,
    SARSATrainer,
    TDPrediction,
    VTable,
)
from rltorch.errors import BadTransition
from rltorch.policies import ConstantSchedule
from rltorch.values import WeightedQTable
from rltorch.values.weighted import WeightedVTable
from tests.chain_env import ChainEnv

ONE = {"progress": False, "eval_every": 0}
GAMMA = 0.5


class PathEnv(gym.Env):
    """States 0, 1, 0, then the end, whatever the action; the rewards of the three steps are given (1, 2, 4)."""

    PATH = (0, 1, 0, 1)  # the state after t steps; the episode ends after 3

    def __init__(self, rewards: tuple = (1.0, 2.0, 4.0)) -> None:
        self.observation_space = spaces.Discrete(2)
        self.action_space = spaces.Discrete(1)
        self.rewards = rewards
        self.t = 0

    def reset(self, *, seed=None, options=None):
        """Start in state 0 (the only start: exploring starts may ask for it by name)."""
        super().reset(seed=seed)
        assert (options or {}).get("state", 0) == 0
        self.t = 0
        return 0, {}

    def step(self, action):
        """One step along the path."""
        self.t += 1
        return self.PATH[self.t], self.rewards[self.t - 1], self.t == 3, False, {}


def stay(state: int) -> int:
    """The fixed policy of the prediction trainers: the one action."""
    return 0


def mc(kind: str, value_fn, first_visit: bool = True):
    """One of the on-policy Monte Carlo trainers on the path env."""
    common = {"gamma": GAMMA, "seed": 0, "first_visit": first_visit, "schedule": ConstantSchedule(0.1)}
    if kind == "prediction":
        return MCPrediction(PathEnv(), value_fn, policy=stay, **common)
    if kind == "control":
        return MCTrainer(PathEnv(), value_fn, **common)
    return MCExploringStarts(PathEnv(), value_fn, start_states=[0], **common)


def key(kind: str, state: int):
    """The table key of `state`: the state for prediction, (state, action 0) for control."""
    return state if kind == "prediction" else (state, 0)


@pytest.mark.parametrize("kind", ["prediction", "control", "exploring-starts"])
def test_first_visit_mc_learns_the_return_after_the_first_visit_only(kind):
    # catches: every visit counted (V(0) = 3.5, N(0) = 2), or the last visit's return kept (V(0) = 4)
    trainer = mc(kind, VTable(alpha=None) if kind == "prediction" else QTable(alpha=None))
    trainer.train(1, **ONE)
    assert trainer.value_fn.table == {key(kind, 0): 3.0, key(kind, 1): 4.0}
    assert trainer.value_fn.counts == {key(kind, 0): 1, key(kind, 1): 1}
    trainer.train(1, **ONE)  # the same episode again: the averages stay, each count grows by one
    assert trainer.value_fn.table == {key(kind, 0): 3.0, key(kind, 1): 4.0}
    assert trainer.value_fn.counts == {key(kind, 0): 2, key(kind, 1): 2}


@pytest.mark.parametrize("kind", ["prediction", "control", "exploring-starts"])
def test_every_visit_mc_averages_both_visits(kind):
    # V(0) = (G_0 + G_2) / 2 = (3 + 4) / 2 = 3.5 from two visits; V(1) = 4 from one
    trainer = mc(kind, VTable(alpha=None) if kind == "prediction" else QTable(alpha=None), first_visit=False)
    trainer.train(1, **ONE)
    assert trainer.value_fn.table == {key(kind, 0): 3.5, key(kind, 1): 4.0}
    assert trainer.value_fn.counts == {key(kind, 0): 2, key(kind, 1): 1}


def test_first_visit_mc_with_a_constant_step_moves_once_per_episode():
    # alpha = 0.5 from 0: V(0) = 0 + 0.5 * (3 - 0) = 1.5, V(1) = 0 + 0.5 * (4 - 0) = 2;
    # episode 2: V(0) = 1.5 + 0.5 * (3 - 1.5) = 2.25, V(1) = 2 + 0.5 * (4 - 2) = 3
    trainer = mc("prediction", VTable(alpha=0.5))
    trainer.train(1, **ONE)
    assert trainer.value_fn.table == {0: 1.5, 1: 2.0}
    trainer.train(1, **ONE)
    assert trainer.value_fn.table == {0: 2.25, 1: 3.0}


def test_off_policy_mc_control_counts_every_visit_backward_with_weights():
    # One action, so b(0|s) = pi(0|s) = 1 and W stays 1. Backward: t = 2: G = 4, C(0,0) = 1, Q(0,0) = 4;
    # t = 1: G = 2 + 0.5 * 4 = 4, Q(1,0) = 4; t = 0: G = 1 + 0.5 * 4 = 3, C(0,0) = 2, Q(0,0) = 4 + 1/2 * (3 - 4) = 3.5
    trainer = OffPolicyMCControl(PathEnv(), WeightedQTable(), gamma=GAMMA, seed=0, schedule=ConstantSchedule(0.3))
    trainer.train(1, **ONE)
    assert trainer.value_fn.table == {(0, 0): 3.5, (1, 0): 4.0}
    assert trainer.value_fn.weights == {(0, 0): 2.0, (1, 0): 1.0}


@pytest.mark.parametrize("weighted", [True, False])
def test_off_policy_mc_prediction_counts_every_visit(weighted):
    # rho = 1 at every step (one action). Forward: V(0) <- G_0 = 3, V(1) <- 4, V(0) <- (3 + 4) / 2 = 3.5, both as
    # a weighted average (C(0) = 2) and as the ordinary sample average of W * G
    value_fn = WeightedVTable() if weighted else VTable(alpha=None)
    trainer = OffPolicyMCPrediction(PathEnv(), value_fn, target_policy=stay, weighted=weighted, gamma=GAMMA, seed=0)
    trainer.train(1, **ONE)
    assert trainer.value_fn.table == {0: 3.5, 1: 4.0}
    assert trainer.value_fn.counts == {0: 2, 1: 1}


# --- Dyna-Q: a model of an env that changes -----------------------------------------------------------------


class SwitchEnv(ChainEnv):
    """One state, one action, one step per episode: the reward is 0 on the first step ever, then 1 (a switch flips)."""

    def __init__(self) -> None:
        super().__init__(size=1, start=0, actions=1)
        self.steps = 0

    def step(self, action):
        """End the episode with the reward of the switch's position."""
        self.steps += 1
        return 0, 0.0 if self.steps == 1 else 1.0, True, False, {}


def test_dyna_q_plans_with_the_last_outcome_of_a_pair():
    # alpha = 0.5, one planning step, the only remembered pair is (0, 0):
    # episode 1, R = 0: direct Q = 0 + 0.5 * (0 - 0) = 0; model (0, 0) -> R 0; planning: Q = 0
    # episode 2, R = 1: direct Q = 0 + 0.5 * (1 - 0) = 0.5; model -> R 1; planning: Q = 0.5 + 0.5 * (1 - 0.5) = 0.75
    #   (a model that kept the first outcome plans toward 0: Q = 0.5 + 0.5 * (0 - 0.5) = 0.25)
    # episode 3, R = 1: direct Q = 0.75 + 0.5 * 0.25 = 0.875; planning: Q = 0.875 + 0.5 * 0.125 = 0.9375
    trainer = DynaQTrainer(SwitchEnv(), QTable(alpha=0.5), gamma=0.9, seed=0, planning_steps=1,
                           schedule=ConstantSchedule(0.0))
    values = []
    for _ in range(3):
        trainer.train(1, **ONE)
        values.append(trainer.value_fn.value((0, 0)))
    assert values == [0.0, 0.75, 0.9375]
    assert trainer.model == {(0, 0): (1.0, 0, True, ())}
    assert trainer.planning_updates == 3


class MovingDoorEnv(gym.Env):
    """From 0 the one action leads to 1 on the first episode and to 2 after; from 1 the episode ends with reward 0,
    from 2 with reward 1."""

    def __init__(self) -> None:
        self.observation_space = spaces.Discrete(3)
        self.action_space = spaces.Discrete(1)
        self.episodes = 0
        self.state = 0

    def reset(self, *, seed=None, options=None):
        """Start in 0; count the episodes (the trainer's own reset at construction is episode 0)."""
        super().reset(seed=seed)
        self.episodes += 1
        self.state = 0
        return 0, {}

    def step(self, action):
        """Through the door (to 1 on episode 1, to 2 later), then out."""
        if self.state == 0:
            self.state = 1 if self.episodes <= 2 else 2
            return self.state, 0.0, False, False, {}
        return self.state, float(self.state == 2), True, False, {}


def test_dyna_q_plans_toward_the_last_next_state_of_a_pair():
    # After episode 2 the model holds (0,0) -> S' 2, (1,0) -> end with 0, (2,0) -> end with 1. Many planning
    # steps drive Q to the model's fixed point: Q(2,0) = 1, Q(1,0) = 0, Q(0,0) = 0 + 0.5 * max Q(2, .) = 0.5.
    # A model that kept the first next state of (0,0), state 1, would plan Q(0,0) toward 0.5 * Q(1,0) = 0.
    env = MovingDoorEnv()  # the trainer's reset at construction counts as episode 1: training starts at 2
    trainer = DynaQTrainer(env, QTable(alpha=0.5), gamma=0.5, seed=0, planning_steps=300,
                           schedule=ConstantSchedule(0.0))
    trainer.train(2, **ONE)
    assert trainer.model[0, 0] == (0.0, 2, False, (0,))
    assert trainer.value_fn.value((2, 0)) == pytest.approx(1.0, abs=1e-12)
    assert trainer.value_fn.value((1, 0)) == 0.0
    assert trainer.value_fn.value((0, 0)) == pytest.approx(0.5, abs=1e-12)


# --- a reward that is not a finite number stops training before anything learns from it ------------------------


def builders() -> dict:
    """A trainer of every algorithm family on a given env, with tables of step 0.5."""
    common = {"gamma": GAMMA, "seed": 0, "schedule": ConstantSchedule(0.0)}
    return {
        "sarsa": lambda env: SARSATrainer(env, QTable(alpha=0.5), **common),
        "qlearning": lambda env: QLearningTrainer(env, QTable(alpha=0.5), **common),
        "expected-sarsa": lambda env: ExpectedSARSATrainer(env, QTable(alpha=0.5), **common),
        "double-qlearning": lambda env: DoubleQLearningTrainer(env, QTable(alpha=0.5), **common),
        "nstep-sarsa": lambda env: NStepSARSATrainer(env, QTable(alpha=0.5), n=2, **common),
        "dyna-q": lambda env: DynaQTrainer(env, QTable(alpha=0.5), planning_steps=2, **common),
        "mc": lambda env: MCTrainer(env, QTable(alpha=None), **common),
        "mc-es": lambda env: MCExploringStarts(env, QTable(alpha=None), start_states=[0], **common),
        "mc-offpolicy": lambda env: OffPolicyMCControl(env, WeightedQTable(), **common),
        "mc-prediction": lambda env: MCPrediction(env, VTable(alpha=None), policy=stay, **common),
        "td-prediction": lambda env: TDPrediction(env, VTable(alpha=0.5), policy=stay, **common),
    }


def finite_entries(value_fn) -> bool:
    """Whether every entry of a table (or of both halves of a pair) is a finite number."""
    parts = getattr(value_fn, "parts", (value_fn,))
    return all(math.isfinite(value) for part in parts for value in part.table.values())


@pytest.mark.parametrize("algorithm", list(builders()))
@pytest.mark.parametrize("reward", [math.nan, math.inf, -math.inf, None])
def test_a_reward_that_is_not_a_finite_number_stops_before_learning_from_it(algorithm, reward):
    trainer = builders()[algorithm](PathEnv(rewards=(1.0, 2.0, reward)))
    shown = reward if reward is not None else "None"
    with pytest.raises(BadTransition, match=f"^env PathEnv returned the reward {shown} at step 3 of episode 1; "):
        trainer.train(5, **ONE)
    assert finite_entries(trainer.value_fn)
    assert trainer.episodes_done == 0 and trainer.steps_done == 3


def test_a_bad_reward_leaves_what_the_steps_before_taught():
    # Q-learning, alpha = 0.5, gamma = 0.5: step 1: Q(0,0) = 0.5 * (1 + 0.5 * 0) = 0.5;
    # step 2: Q(1,0) = 0.5 * (2 + 0.5 * Q(0,0)) = 0.5 * 2.25 = 1.125; step 3 returns NaN: nothing more moves
    trainer = builders()["qlearning"](PathEnv(rewards=(1.0, 2.0, math.nan)))
    with pytest.raises(RLTorchError) as error:
        trainer.train(1, **ONE)
    assert trainer.value_fn.table == {(0, 0): 0.5, (1, 0): 1.125}
    assert "\n" not in str(error.value)
    assert (error.value.episode, error.value.step, math.isnan(error.value.reward)) == (1, 3, True)


def test_the_bad_step_is_counted_within_its_episode():
    # a NaN on the third step of the second episode: the message says step 3 of episode 2, not step 6
    class LaterNaN(PathEnv):
        def step(self, action):
            state, reward, terminated, truncated, info = super().step(action)
            self.calls = getattr(self, "calls", 0) + 1
            return state, math.nan if self.calls == 6 else reward, terminated, truncated, info

    trainer = builders()["sarsa"](LaterNaN())
    with pytest.raises(BadTransition, match="at step 3 of episode 2;"):
        trainer.train(3, **ONE)
    assert trainer.episodes_done == 1
