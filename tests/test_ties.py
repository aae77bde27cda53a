"""Ties break at random wherever an algorithm picks an action by argmax (issue 19), in every form.

All-zero tables tie on every first visit, so a first-index argmax is a bias, not a detail (it moved
Figure 6.5's Double Q-learning share of "left" over episodes 15-25 from 0.290 to 0.315). Each test
counts, over seeded draws, that every tied action is picked about equally: in the per-step
trainers' acting and Double Q-learning's target, and in the batched engine's (numba) lanes.
Expected SARSA's expectation over tied maxima is checked by hand in every form. Where a
choice among ties stays deterministic (the exact solver's pi*, off-policy MC's greedy target
policy) it is by design, and the tests pin it down. Each test's comment names the mutants it fails.
"""

from __future__ import annotations

import random

import gymnasium as gym
import numpy as np
import pytest
from gymnasium import spaces
from numba import njit

from rltorch.engines import ALGORITHMS, BatchedEngine
from rltorch.mdp import FiniteModel, Transition
from rltorch.mdp.greedy import greedy_choice
from rltorch.policies import ConstantSchedule
from rltorch.targets import double_q_learning_target, epsilon_greedy_expectation, epsilon_greedy_probabilities
from rltorch.trainers import TRAINERS, DoubleQLearningTrainer, ExpectedSARSATrainer, NStepExpectedSARSATrainer
from rltorch.values import QTable, WeightedQTable

pytestmark = pytest.mark.usefixtures("one_thread")

BANDIT = [[0.0, 1.0]]  # one state, two actions that end the episode: the return says which was taken
FORK = [[0.0], [0.0, 1.0]]  # state 0's one action leads to state 1, whose actions pay 0 and 1
RUNS = 800


class Steps(gym.Env):
    """States 0..len(rewards) - 1 in a row: action a of state s pays rewards[s][a] and moves on; the last ends."""

    def __init__(self, rewards: list[list[float]]) -> None:
        self.rewards, self.state, self.taken = rewards, 0, []
        self.observation_space = spaces.Discrete(len(rewards) + 1)
        self.action_space = spaces.Discrete(max(len(row) for row in rewards))

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self.state = 0
        return 0, {}

    def legal_actions(self) -> list[int]:
        return list(range(len(self.rewards[self.state]))) if self.state < len(self.rewards) else []

    def step(self, action):
        self.taken.append(int(action))
        reward, self.state = self.rewards[self.state][action], self.state + 1
        return self.state, reward, self.state == len(self.rewards), False, {}


def steps_model(rewards: list[list[float]]) -> FiniteModel:
    """`Steps` as a finite model (the state after the last is the terminal "end")."""
    last = len(rewards) - 1
    transitions = {(s, a): [Transition(1.0, "end" if s == last else s + 1, reward, s == last)]
                   for s, row in enumerate(rewards) for a, reward in enumerate(row)}
    actions = {s: list(range(len(row))) for s, row in enumerate(rewards)}
    return FiniteModel(list(range(len(rewards))), actions, transitions, {0: 1.0}, name="steps").validate()


def table(entries: dict, alpha: float = 0.5) -> QTable:
    """A Q table holding `entries`."""
    q = QTable(alpha=alpha)
    q.table.update(entries)
    return q


def share_near(hits: int, runs: int, p: float) -> bool:
    """Whether hits / runs is within 4.5 binomial standard deviations of p (and p > 0 was seen at all)."""
    return hits > 0 and abs(hits / runs - p) <= 4.5 * (p * (1 - p) / runs) ** 0.5


# --- acting: every control trainer's epsilon-greedy choice ----------------------------------------------------
@pytest.mark.parametrize("name", ["sarsa", "qlearning", "expected-sarsa", "double-qlearning", "nstep-sarsa",
                                  "nstep-expected-sarsa", "dyna-q", "mc", "mc-offpolicy"])
def test_each_trainer_acts_on_a_tie_at_random(name):
    # all-zero Q, epsilon 0: the first action is a fair coin between the two tied ones.
    # Mutant: `greedy` without its generator in `Trainer.choose` (action 0 every time).
    taken = []
    for seed in range(RUNS // 4):
        env = Steps(BANDIT)
        value_fn = WeightedQTable() if name == "mc-offpolicy" else QTable(alpha=0.5)
        TRAINERS[name](env, value_fn, seed=seed, schedule=ConstantSchedule(0.0)).run_episode(0.0)
        taken.append(env.taken[0])
    assert share_near(sum(taken), len(taken), 0.5)


@pytest.mark.parametrize("name", list(ALGORITHMS))
def test_each_engine_lane_acts_on_a_tie_at_random(name):
    # Mutant: the engine's `greedy` taking the first tie without the choice draw.
    result = BatchedEngine(steps_model(BANDIT)).run(name, [0.5] * RUNS, 1, epsilon=0.0, n=2, seed=3)
    assert share_near(int(result.returns.sum()), RUNS, 0.5)


# --- Double Q-learning's target: Q_other(S', argmax_a Q_own(S', a)) -------------------------------------------
def test_the_double_q_target_breaks_a_tie_with_its_generator():
    # own [0, 0, -1] ties actions 0 and 1, valued 1 and 2 by the other half: r + gamma * (1 or 2), half each.
    # Mutants: the first best (always 1.9), the last best (always 2.8), a draw without a tie or at the end.
    rng = random.Random(5)
    targets = [double_q_learning_target(1.0, [0.0, 0.0, -1.0], [1.0, 2.0, 3.0], 0.9, False, rng) for _ in range(400)]
    assert set(targets) == {1.0 + 0.9 * 1.0, 1.0 + 0.9 * 2.0}
    assert share_near(targets.count(1.0 + 0.9 * 2.0), 400, 0.5)
    state = rng.getstate()
    assert double_q_learning_target(1.0, [0.0, 2.0], [5.0, 7.0], 0.5, False, rng) == 4.5
    assert double_q_learning_target(1.0, [0.0, 0.0], [5.0, 7.0], 0.5, True, rng) == 1.0
    assert rng.getstate() == state  # no tie, or no bootstrap: no draw


def fork_values_trainer(seed: int) -> float:
    """Q1 + Q2 of (0, 0) after two greedy FORK episodes of the per-step trainer (alpha 1, gamma 1)."""
    trainer = DoubleQLearningTrainer(Steps(FORK), QTable(alpha=1.0), gamma=1.0, seed=seed)
    for _ in range(2):
        trainer.run_episode(0.0)
    return sum(part.value((0, 0)) for part in trainer.value_fn.parts)


@pytest.mark.parametrize("form", ["trainer", "engine"])
def test_double_q_breaks_its_target_tie_at_random_in_both_forms(form):
    # FORK, epsilon 0, alpha 1: episode 1 takes a tied action in state 1 (action 1, paying 1, half the time) and
    # writes it into one half. Episode 2's update of (0, 0) reads the other half's argmax in state 1 half the time:
    # still [0, 0], a tie; picking action 1 (half the time) is valued 1 by the first half. So Q(0, 0) = 1 in
    # 1/8 of the runs, 0 in the rest. Mutant: the first maximal action (old `argmax`, old `max(range(..))`): never.
    if form == "trainer":
        values = np.array([fork_values_trainer(seed) for seed in range(RUNS)])
    else:
        result = BatchedEngine(steps_model(FORK)).run("double-qlearning", [1.0] * RUNS, 2, epsilon=0.0, seed=9)
        values = result.values[:, :, 0, 0].sum(dim=1).numpy()
    assert set(np.unique(values)) <= {0.0, 1.0}
    assert share_near(int((values == 1.0).sum()), RUNS, 1 / 8)


def test_double_q_draws_its_target_tie_right_after_its_coin_in_both_forms():
    # The trainer's order (`learn_one_half`): ... transition, coin, [tie]. On FORK the target's argmax ties on every
    # first visit; each engine lane, fed the same stream, must equal the trainer. Mutants: the engine's tie drawn
    # before its coin, or not drawn (the first best), or drawn at the end of an episode.
    from tests.test_batched_engine import SEED, assert_lane_is_the_trainer

    model = steps_model(FORK)
    result = BatchedEngine(model).run("double-qlearning", [1.0] * 4, 6, epsilon=0.1, gamma=0.9, seed=SEED)
    for lane in range(4):
        assert_lane_is_the_trainer(result, lane, model, "double-qlearning", 1.0, 6, None, epsilon=0.1)


# --- Expected SARSA: the greedy mass is shared by the tied best actions -------------------------------------
TIED, EPSILON, HAND = [0.5, 0.5, -1.0], 0.3, 0.35  # pi = [0.45, 0.45, 0.1]: 0.45 * 0.5 * 2 - 0.1 = 0.35


def test_expected_sarsa_probabilities_share_the_greedy_mass():
    # Mutants: all greedy mass to the first tie ([0.8, 0.1, 0.1]); (1 - epsilon) to each tie (sum 1.7).
    assert epsilon_greedy_probabilities(TIED, EPSILON) == pytest.approx([0.45, 0.45, 0.1])


def test_expected_sarsa_expectation_over_tied_maxima_by_hand_in_every_form():
    # Mutant: (1 - epsilon) to every tie (0.7). (All greedy mass to one tie gives the same 0.35: tied values are
    # equal, so only the total greedy mass matters to the expectation.)
    q = table({(1, a): value for a, value in enumerate(TIED)})
    one_step = ExpectedSARSATrainer(Steps([[0.0], TIED]), q, gamma=1.0, seed=0)
    one_step.env.state = 1
    assert one_step.expected_target(0.0, 1, False, EPSILON) == pytest.approx(HAND)
    n_step = NStepExpectedSARSATrainer(Steps([[0.0], TIED]), q, gamma=1.0, seed=0, n=2)
    n_step.env.state = 1
    assert n_step.bootstrap(1, None, EPSILON) == pytest.approx(HAND)
    import rltorch.engines.core  # noqa: F401 - registers the targets with numba, as the engine compiles them

    compiled = njit(lambda values, epsilon: epsilon_greedy_expectation(values, epsilon))
    assert epsilon_greedy_expectation(TIED, EPSILON) == compiled(np.array(TIED), EPSILON) == pytest.approx(HAND)


# --- deterministic by design ---------------------------------------------------------------------------------
def test_off_policy_mc_targets_the_first_best_action_and_weights_by_the_split_behaviour():
    # The book's box (section 5.7): pi(S) = argmax_a Q(S, a) "with ties broken consistently"; W /= b(A|S) needs a
    # deterministic pi. b is epsilon-greedy with random ties: a tied best action has epsilon/n + (1-epsilon)/ties.
    trainer = TRAINERS["mc-offpolicy"](Steps(BANDIT), WeightedQTable(), seed=1, schedule=ConstantSchedule(0.2))
    episode = trainer.behaviour_episode(0.2)
    assert episode.probabilities == [pytest.approx(0.1 + 0.8 / 2)]


def test_the_exact_solvers_choice_among_tied_optimal_actions_is_the_lowest_numbered():
    # pi* of a model is reproducible with no generator: exactly tied optimal actions go to the lowest index.
    arrays = steps_model([[1.0, 1.0, 0.0]]).arrays()
    q = np.array([[1.0, 1.0, 0.0]])
    candidates = arrays.legal & (q >= 1.0)
    for by_value in (True, False):
        choice, _ = greedy_choice(arrays, q, candidates, finishing=False, by_value=by_value)
        assert choice.tolist() == [0]
