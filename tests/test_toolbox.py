"""Issue 12's algorithms, each on a hand-worked update: Expected SARSA, Double Q-learning, n-step SARSA / Expected
SARSA / TD, TD(0) and constant-alpha MC prediction, Dyna-Q; n = 1 against the one-step methods; exact resume.

Hand-worked cases run on `Line`, a deterministic chain written here, with the expected entries worked out in the
comments; the comment in each test names the mutants it catches.
"""

from __future__ import annotations

import random

import gymnasium as gym
import pytest
import torch
from gymnasium import spaces

import rltorch
from rltorch.checkpoints import load_checkpoint
from rltorch.envs.tictactoe.encoder import BoardEncoder
from rltorch.envs.tictactoe.env import TicTacToeEnv
from rltorch.policies import ConstantSchedule, ExponentialSchedule
from rltorch.targets import epsilon_greedy_probabilities
from rltorch.trainers import (
    TRAINERS,
    DoubleQLearningTrainer,
    DynaQTrainer,
    ExpectedSARSATrainer,
    MCPrediction,
    NStepExpectedSARSATrainer,
    NStepSARSATrainer,
    NStepTDPrediction,
    QLearningTrainer,
    SARSATrainer,
    TDPrediction,
)
from rltorch.values import DoubleQ, QNetwork, QTable, VTable

QUIET = {"progress": False, "eval_every": 0}
WALK = "rltorch/RandomWalk-v0"


pytestmark = pytest.mark.usefixtures("one_thread")


def walk(state: int) -> int:
    """The random walk's only action."""
    return 0


class Line(gym.Env):
    """States 0..len(rewards); every legal action moves one right with reward rewards[state]; the last is terminal.

    `actions[s]` actions are legal in state s (one by default); `log` records ("step", s) before each step.
    """

    def __init__(self, rewards=(1.0, 2.0), actions=None, log=None) -> None:
        self.rewards, self.log = list(rewards), log
        self.actions = list(actions or [1] * len(self.rewards))
        self.observation_space = spaces.Discrete(len(self.rewards) + 1)
        self.action_space = spaces.Discrete(max(self.actions))
        self.state = 0

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self.state = 0
        return 0, {}

    def legal_actions(self):
        return list(range(self.actions[self.state])) if self.state < len(self.rewards) else []

    def step(self, action):
        assert action in self.legal_actions()
        if self.log is not None:
            self.log.append(("step", self.state))
        reward, self.state = self.rewards[self.state], self.state + 1
        return self.state, reward, self.state == len(self.rewards), False, {}


class LoggedQTable(QTable):
    """A Q table with preset `entries` that appends ("update", key) to a shared log."""

    def __init__(self, log, entries=(), alpha=0.5) -> None:
        super().__init__(alpha=alpha)
        self.log = log
        self.table.update(entries)

    def update(self, key, target):
        self.log.append(("update", key))
        return super().update(key, target)


def table(entries, alpha=0.5):
    """A Q table with preset entries."""
    q = QTable(alpha=alpha)
    q.table.update(entries)
    return q


# --- Expected SARSA ------------------------------------------------------------------------------
def test_epsilon_greedy_probabilities_split_the_greedy_mass_among_ties_as_choose_does():
    # mutant: all greedy mass on the first tie ([0.8, 0.1, 0.1]), or (1 - eps) to every tie (sum 1.7)
    assert epsilon_greedy_probabilities([0.5, 0.5, -1.0], 0.3) == pytest.approx([0.45, 0.45, 0.1])
    trainer = SARSATrainer(Line(actions=[3, 3]), table({(0, 0): 0.5, (0, 1): 0.5, (0, 2): -1.0}), seed=1)
    counts = [0, 0, 0]
    for _ in range(20_000):
        counts[trainer.choose(0, 0.3)[0]] += 1
    assert [c / 20_000 for c in counts] == pytest.approx([0.45, 0.45, 0.1], abs=0.015)


def test_one_expected_sarsa_update_with_tied_greedy_actions_by_hand():
    # Q(1, .) = [0.5, 0.5, -1], epsilon 0.3 from the schedule: pi = [0.45, 0.45, 0.1], expectation 0.35;
    # Q(0,0) <- 1 + 0.5 * (1 + 0.9 * 0.35 - 1) = 1.1575. Mutants: the max (Q-learning, 1.225), uniform pi
    # (expectation 0: 0.95), epsilon 0 instead of the episode's, a bootstrap at the terminal step.
    q = table({(0, 0): 1.0, (1, 0): 0.5, (1, 1): 0.5, (1, 2): -1.0})
    trainer = ExpectedSARSATrainer(Line(actions=[1, 3]), q, gamma=0.9, schedule=ConstantSchedule(0.3), seed=0)
    trainer.train(1, **QUIET)
    assert q.value((0, 0)) == pytest.approx(1.1575)
    # the last step is terminal: the chosen (1, a) moves halfway to R = 2, the others stay
    old = {0: 0.5, 1: 0.5, 2: -1.0}
    moved = [a for a in old if q.value((1, a)) != old[a]]
    assert len(moved) == 1 and q.value((1, moved[0])) == old[moved[0]] + 0.5 * (2.0 - old[moved[0]])


# --- Double Q-learning ---------------------------------------------------------------------------
@pytest.mark.parametrize(("seed", "coins"), [(9, "HT"), (0, "TH")])
def test_double_q_coin_picks_the_half_and_the_other_values_its_argmax(seed, coins):
    # the trainer's draws per step with epsilon 0 are (epsilon test, coin): the coins follow random.Random(seed)
    draws = random.Random(seed)
    assert "".join("H" if [draws.random(), draws.random()][1] < 0.5 else "T" for _ in range(2)) == coins
    # Q1(1,.) = [4, 3, 1], Q2(1,.) = [0, 2, 2.5]: acting on the sum [4, 5, 3.5] takes action 1 (Q1 alone: 0,
    # Q2 alone: 2). Step 1, R = 1: heads Q1(0,0) <- 0.5 (1 + 0.9 Q2(1, argmax Q1 = 0) = 1) = 0.5;
    # tails Q2(0,0) <- 0.5 (1 + 0.9 Q1(1, argmax Q2 = 2) = 1.9) = 0.95. Step 2, terminal R = 4 on (1, 1):
    # heads Q1(1,1) <- 3 + 0.5 (4 - 3) = 3.5; tails Q2(1,1) <- 2 + 0.5 (4 - 2) = 3.
    # Mutants: own max (target 4.6), other's max (3.25), both halves updated, coin inverted, acting on one half.
    q1, q2 = table({(1, 0): 4.0, (1, 1): 3.0, (1, 2): 1.0}), table({(1, 0): 0.0, (1, 1): 2.0, (1, 2): 2.5})
    trainer = DoubleQLearningTrainer(Line(rewards=(1.0, 4.0), actions=[1, 3]), DoubleQ(q1, q2), gamma=0.9, seed=seed)
    trainer.run_episode(0.0)
    first, second = ({(0, 0): 0.5}, {(1, 1): 3.0}) if coins == "HT" else ({(1, 1): 3.5}, {(0, 0): 0.95})
    assert q1.table == {(1, 0): 4.0, (1, 1): 3.0, (1, 2): 1.0, **first}
    assert q2.table == {(1, 0): 0.0, (1, 1): 2.0, (1, 2): 2.5, **second}
    keys = [(0, 0), (1, 0), (1, 1), (1, 2)]
    assert trainer.value_fn.values(keys) == [(q1.value(key) + q2.value(key)) / 2 for key in keys]  # the mean


def test_double_q_is_one_value_function_saved_and_logged_as_one(tmp_path):
    # mutant: values of one half only, a checkpoint that loses a half, a config without the halves' settings
    pair = DoubleQ(table({(0, 0): 1.0}, alpha=0.25), QTable(alpha=0.25))
    # each half steps toward 3: 1 -> 1.5 and 0 -> 0.75, so the mean 0.5 -> 1.125; the error is 3 - 0.5
    assert pair.update((0, 0), 3.0) == 2.5 and pair.value((0, 0)) == pytest.approx(1.125)
    trainer = DoubleQLearningTrainer(TicTacToeEnv(), QTable(alpha=0.2), seed=2).train(200, **QUIET)
    halves = trainer.value_fn.parts
    assert all(len(half) > 100 for half in halves) and halves[0].table != halves[1].table
    assert trainer.value_fn.diagnostics() == {"table/size": len(halves[0].table.keys() | halves[1].table.keys())}
    agent = rltorch.load(trainer.save(tmp_path / "double.pt"))
    assert isinstance(agent.value_fn, DoubleQ) and agent.value_fn.config() == trainer.value_fn.config()
    keys = list(halves[0].table)[:50]
    assert agent.value_fn.values(keys) == trainer.value_fn.values(keys) == [(halves[0].value(k) + halves[1].value(k))
                                                                              / 2 for k in keys]


def test_double_dqn_fits_only_the_network_the_coin_picks(tmp_path):
    # mutants: a fit of both networks, or of the sum, on every step; a checkpoint that rebuilds one network only
    torch.manual_seed(0)
    trainer = DoubleQLearningTrainer(TicTacToeEnv(), QNetwork(BoardEncoder(), 9, hidden=(8,), lr=0.01), seed=0)
    before = [[p.clone() for p in half.parameters()] for half in trainer.value_fn.parts]
    trainer.rng = random.Random(9)  # heads on the first coin: Q1 moves
    trainer.learn_one_half(((0,) * 9, 4), 0.0, [((0,) * 9, a) for a in range(9)], False)
    changed = [any(not torch.equal(a, b) for a, b in zip(half.parameters(), old, strict=True))
               for half, old in zip(trainer.value_fn.parts, before, strict=True)]
    assert changed == [True, False] and not hasattr(trainer.value_fn, "__len__")
    keys = [((0,) * 9, a) for a in range(9)]
    assert rltorch.load(trainer.save(tmp_path / "ddqn.pt")).value_fn.values(keys) == trainer.value_fn.values(keys)


# --- n-step methods -------------------------------------------------------------------------------
# Line rewards 1, 2, 4, 8 (T = 4), Q(s, 0) preset 10, 20, 30, 40, alpha 0.5, gamma 0.5; G_tau -> Q(tau):
#   n = 2: G0 = 1 + 1 + 0.25*30 = 9.5 -> 9.75; G1 = 2 + 2 + 0.25*40 = 14 -> 17; G2 = 4 + 4 = 8 -> 19; G3 = 8 -> 24
#   n = 3: G0 = 1 + 1 + 1 + 0.125*40 = 8 -> 9; G1 = 2 + 2 + 2 = 6 (tau + n = T: no bootstrap) -> 13; 19; 24
#   n = 5 (longer than the episode): Monte Carlo returns G0 = 4 -> 7, G1 = 6 -> 13, G2 = 8 -> 19, G3 = 8 -> 24
NSTEP_CASES = [(2, [9.75, 17.0, 19.0, 24.0]), (3, [9.0, 13.0, 19.0, 24.0]), (5, [7.0, 13.0, 19.0, 24.0])]


@pytest.mark.parametrize(("n", "expected"), NSTEP_CASES)
@pytest.mark.parametrize("cls", [NStepSARSATrainer, NStepExpectedSARSATrainer])
def test_n_step_sarsa_on_a_chain_by_hand(cls, n, expected):
    # mutants: gamma^(n-1) on the bootstrap, a bootstrap when tau + n = T, the loop stopping before tau = T - 1
    # (last keys never updated), updates only at the episode's end (the order below)
    log = []
    q = LoggedQTable(log, {(s, 0): 10.0 * (s + 1) for s in range(4)})
    cls(Line(rewards=(1.0, 2.0, 4.0, 8.0), log=log), q, gamma=0.5, n=n, seed=0).run_episode(0.1)
    assert [q.value((s, 0)) for s in range(4)] == expected
    if n == 2:  # the book's order: Q(S_0) right after the second step, then one update per step, two at the end
        assert [(event, s if event == "step" else s[0]) for event, s in log] == [
            ("step", 0), ("step", 1), ("update", 0), ("step", 2), ("update", 1), ("step", 3), ("update", 2),
            ("update", 3)]


def test_n_step_sarsa_bootstraps_from_the_chosen_action_and_expected_sarsa_from_the_mean():
    # n = 2, epsilon 0.5, Q(2, .) = [30, 50]: pi = [0.25, 0.75], mean 45; G0 = 1 + 0.5*2 + 0.25 * bootstrap.
    # Expected: 2 + 11.25 -> Q(0,0) = 10 + 0.5 * 3.25 = 11.625. SARSA: A_2 = 0 -> 9.5 -> 9.75; A_2 = 1 -> 14.5 ->
    # 12.25. Mutants: SARSA bootstrapping from the mean or the max, Expected SARSA from the sampled action.
    seen = set()
    for cls in (NStepSARSATrainer, NStepExpectedSARSATrainer):
        for seed in range(6):
            log = []
            q = LoggedQTable(log, {(0, 0): 10.0, (1, 0): 20.0, (2, 0): 30.0, (2, 1): 50.0, (3, 0): 40.0})
            cls(Line(rewards=(1.0, 2.0, 4.0, 8.0), actions=[1, 1, 2, 1]), q, gamma=0.5, n=2, seed=seed).run_episode(0.5)
            second = next(key[1] for _, key in log if key[0] == 2)  # A_2, the action updated at tau = 2
            seen.add((cls, second))
            assert q.value((0, 0)) == (11.625 if cls is NStepExpectedSARSATrainer else [9.75, 12.25][second])
    assert {second for cls, second in seen if cls is NStepSARSATrainer} == {0, 1}


def test_n_step_td_prediction_and_td0_by_hand():
    # V(0), V(1) = 10, 20 and 100 on the terminal observation 2; rewards 1, 2; alpha 0.5, gamma 0.5.
    # TD(0): V(0) <- 10 + 0.5 (1 + 0.5*20 - 10) = 10.5; V(1) <- 20 + 0.5 (2 - 20) = 11 (mutant bootstrapping
    # from the terminal state: 36). n = 2: G0 = 1 + 0.5*2 = 2, no bootstrap (T = 2) -> 6; V(1) -> 11.
    for cls, n, first in [(TDPrediction, None, 10.5), (NStepTDPrediction, 2, 6.0)]:
        v = VTable(alpha=0.5)
        v.table.update({0: 10.0, 1: 20.0, 2: 100.0})
        cls(Line(), v, gamma=0.5, policy=lambda s: 0, seed=0, **({"n": n} if n else {})).run_episode(0.0)
        assert v.table == {0: first, 1: 11.0, 2: 100.0}


def tictactoe(cls, **kwargs):
    """A learner on tic-tac-toe against the random opponent."""
    return cls(TicTacToeEnv(), QTable(alpha=0.3), schedule=ConstantSchedule(0.2), seed=5, **kwargs)


def short_chain(cls, **kwargs):
    """tests/chain_env.py's corridor cut at 6 steps: time limits end some episodes (truncation)."""
    import tests.chain_env  # noqa: F401  (registers Chain-v0)
    return cls(gym.make("Chain-v0", max_episode_steps=6), QTable(alpha=0.3), schedule=ConstantSchedule(0.5), seed=3,
               gamma=0.9, **kwargs)


def random_walk(cls, **kwargs):
    """TD prediction on the 5-state random walk, V starting at 0.5 (the book's start)."""
    return cls(gym.make(WALK), VTable(alpha=0.1, initial=0.5), gamma=1.0, policy=walk, seed=7, **kwargs)


@pytest.mark.parametrize(("one_step", "n_step", "make"), [
    (SARSATrainer, NStepSARSATrainer, tictactoe), (SARSATrainer, NStepSARSATrainer, short_chain),
    (ExpectedSARSATrainer, NStepExpectedSARSATrainer, tictactoe),
    (ExpectedSARSATrainer, NStepExpectedSARSATrainer, short_chain), (TDPrediction, NStepTDPrediction, random_walk),
])
def test_n_equal_to_one_is_the_one_step_method_exactly(one_step, n_step, make):
    # mutants: another order of choosing and updating (different draws), a truncated episode not bootstrapped
    # (short_chain), any difference in the targets' arithmetic (tables compared with ==)
    a, b = make(one_step).train(200, **QUIET), make(n_step, n=1).train(200, **QUIET)
    assert a.value_fn.table == b.value_fn.table and a.rng.getstate() == b.rng.getstate()
    assert a.steps_done == b.steps_done and len(a.value_fn) > 4


# --- prediction on the random walk -----------------------------------------------------------------
@pytest.mark.parametrize(("cls", "alpha"), [(TDPrediction, 0.02), (MCPrediction, 0.01)])
def test_constant_alpha_prediction_finds_the_random_walks_values(cls, alpha):
    # true values 1/6 .. 5/6; the worst state's error over eight seeds was at most 0.06 (TD), 0.10 (MC).
    # Mutants: TD targets without the bootstrap (the inner states' values go to 0), V keyed by something else
    trainer = cls(gym.make(WALK), VTable(alpha=alpha, initial=0.5), gamma=1.0, policy=walk, seed=1)
    trainer.train(2500, **QUIET)
    assert all(abs(trainer.value_fn.value(s) - s / 6) < 0.15 for s in range(1, 6))


def test_constant_alpha_mc_prediction_by_hand():
    # rewards 1, 2, gamma 0.5: returns G0 = 2, G1 = 2; alpha 0.5 from 0: both 1.0 after one episode, V(0) 1.5
    # after two. Mutant: sample averages (alpha ignored) give 2.0 at once.
    trainer = MCPrediction(Line(), VTable(alpha=0.5), gamma=0.5, policy=lambda s: 0, seed=0)
    trainer.run_episode(0.0)
    assert trainer.value_fn.table == {0: 1.0, 1: 1.0}
    trainer.run_episode(0.0)
    assert trainer.value_fn.value(0) == 1.5


# --- Dyna-Q ------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("seed", "drawn", "expected"), [(0, 1, {(0, 0): 0.75, (1, 0): 1.5}),
                                                         (5, 0, {(0, 0): 1.125, (1, 0): 1.0})])
def test_dyna_q_plans_from_remembered_pairs_by_hand(seed, drawn, expected):
    # rewards 1, 2, alpha 0.5, gamma 0.5, one planning step. Step 0: Q(0,0) <- 0.5 (1 + 0) = 0.5, then the only
    # remembered pair (0,0) again: 0.5 + 0.5 (1 - 0.5) = 0.75. Step 1: Q(1,0) <- 0.5 * 2 = 1; planning draws
    # index rng.randrange(2) of [(0,0), (1,0)]: (1,0) -> 1 + 0.5 (2 - 1) = 1.5, or (0,0) -> target 1 + 0.5 * 1
    # = 1.5, 0.75 + 0.5 (1.5 - 0.75) = 1.125. Mutants: no planning, a model without the newest pair, another order.
    draws = random.Random(seed)
    draws.random(), draws.randrange(1), draws.random()  # choose, plan, choose
    assert draws.randrange(2) == drawn
    trainer = DynaQTrainer(Line(), QTable(alpha=0.5), gamma=0.5, planning_steps=1, seed=seed)
    trainer.run_episode(0.0)
    assert trainer.value_fn.table == expected and trainer.planning_updates == 2
    assert trainer.model == {(0, 0): (1.0, 1, False, (0,)), (1, 0): (2.0, 2, True, ())}


def test_dyna_q_counts_its_planning_updates_and_is_reproducible():
    # mutants: planning once per episode instead of per step, draws from another generator (not reproducible)
    log = []
    counting = LoggedQTable(log, alpha=0.3)
    trainer = DynaQTrainer(TicTacToeEnv(), counting, planning_steps=4, seed=2).train(30, **QUIET)
    assert trainer.planning_updates == 4 * trainer.steps_done and len(log) == 5 * trainer.steps_done
    again = DynaQTrainer(TicTacToeEnv(), QTable(alpha=0.3), planning_steps=4, seed=2).train(30, **QUIET)
    assert again.value_fn.table == counting.table and list(again.model.items()) == list(trainer.model.items())
    other = DynaQTrainer(TicTacToeEnv(), QTable(alpha=0.3), planning_steps=4, seed=3).train(30, **QUIET)
    assert other.value_fn.table != counting.table
    plain = tictactoe(DynaQTrainer, planning_steps=0).train(200, **QUIET)  # no planning: Q-learning exactly
    assert plain.value_fn.table == tictactoe(QLearningTrainer).train(200, **QUIET).value_fn.table


# --- registry, settings, resume --------------------------------------------------------------------
def test_the_control_algorithms_are_registered_with_their_settings():
    # mutant: a missing registration, a config without n or planning_steps, n < 1 or planning_steps < 0 accepted
    for name in ("expected-sarsa", "double-qlearning", "nstep-sarsa", "nstep-expected-sarsa", "dyna-q"):
        assert TRAINERS[name].algorithm == name
    assert tictactoe(NStepSARSATrainer, n=4).config()["n"] == 4
    assert tictactoe(DynaQTrainer, planning_steps=7).config()["planning_steps"] == 7
    for cls, bad in [(NStepSARSATrainer, {"n": 0}), (DynaQTrainer, {"planning_steps": -1})]:
        with pytest.raises(ValueError):
            tictactoe(cls, **bad)


def same(a, b) -> bool:
    """Exact equality of nested dicts, lists, tuples, tensors and numbers."""
    if isinstance(a, torch.Tensor):
        return isinstance(b, torch.Tensor) and torch.equal(a, b)
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    return a == b


def look(trainer) -> dict:
    """What must match after a resume: values, training state, counters, generator, model; then more training."""
    state = {"values": trainer.value_fn.state_dict(), "training": trainer.value_fn.training_state(),
             "counts": (trainer.episodes_done, trainer.steps_done), "rng": trainer.rng.getstate(),
             "model": list(getattr(trainer, "model", {}).items()), "planned": getattr(trainer, "planning_updates", 0)}
    trainer.train(5, **QUIET)
    return {**state, "after_more": trainer.value_fn.state_dict(), "test": trainer.test(5).mean_return}


RESUMABLE = {
    "expected-sarsa": lambda: tictactoe(ExpectedSARSATrainer),
    "double-qlearning": lambda: tictactoe(DoubleQLearningTrainer),
    "double-dqn": lambda: DoubleQLearningTrainer(TicTacToeEnv(), QNetwork(BoardEncoder(), 9, hidden=(8,), lr=0.01),
                                                 schedule=ExponentialSchedule(decay=100.0), seed=1),
    "nstep-sarsa": lambda: tictactoe(NStepSARSATrainer, n=3),
    "nstep-expected-sarsa": lambda: tictactoe(NStepExpectedSARSATrainer, n=2),
    "dyna-q": lambda: tictactoe(DynaQTrainer, planning_steps=3),
    "td-prediction": lambda: random_walk(TDPrediction),
    "nstep-td-prediction": lambda: random_walk(NStepTDPrediction, n=3),
    "mc-prediction-constant-alpha": lambda: random_walk(MCPrediction),
}


@pytest.mark.parametrize("name", RESUMABLE)
def test_each_new_trainer_resumes_bit_for_bit(name, tmp_path):
    # mutants: a Dyna-Q checkpoint without its model or planning count, a DoubleQ state_dict or training state
    # (Adam's) without one half, a lost generator; N + M straight against N, save, restore into a fresh one, M more
    make, n, m = RESUMABLE[name], 31 if "dqn" in name else 121, 20 if "dqn" in name else 90
    evaluating = {"progress": False, "log_every": 1, "eval_every": 25, "eval_games": 3}
    torch.manual_seed(0)
    straight = make().train(n + m, **evaluating)
    torch.manual_seed(0)
    path = make().train(n, **evaluating).save(tmp_path / "run.pt")
    torch.manual_seed(1)  # other initial weights: the restore must put every one back
    resumed = make().restore(load_checkpoint(path)).train(m, **evaluating)
    expected, got = look(straight), look(resumed)
    for key in expected:
        assert same(got[key], expected[key]), f"{key} differs after the resume"
