"""The batched engine against the per-step trainers (exact, fed the same draws), its seeds, slices and Figure 6.3.

How the equivalence tests feed both sides the same numbers: one recorded stream of floats per run.
The per-step trainer draws from it through `RecordedRandom` (`random()` is the next float,
`randrange(n)` is floor(u * n) of the next float) and through `StreamEnv`, a Gymnasium env over the
same finite model that draws its start state and transition outcomes from the stream (inverse CDF,
only when there is more than one outcome). The engine gets the same list through `SequenceDraws`,
which hands a lane its next number only when the sequential algorithm would draw one; the order is
documented in `rltorch.engines.onestep` and `rltorch.engines.nstep`. Both must end with the same
values (float64, compared exactly) and the same episode returns, having consumed the same draws.
"""

from __future__ import annotations

import math
import random
import re

import gymnasium as gym
import numpy as np
import pytest
import torch
from gymnasium import spaces

from rltorch.engines import BatchedEngine, SequenceDraws, numba_control, run_keys
from rltorch.engines.draws import hash_words
from rltorch.mdp import FiniteModel, Transition
from rltorch.policies import ConstantSchedule
from rltorch.trainers import (
    DoubleQLearningTrainer,
    ExpectedSARSATrainer,
    NStepSARSATrainer,
    QLearningTrainer,
    SARSATrainer,
    TDPrediction,
)
from rltorch.values import QTable, VTable

EPSILON = 0.2
pytestmark = pytest.mark.usefixtures("one_thread")  # small tensor ops: a second thread only waits


class Stream:
    """A recorded list of floats read in order."""

    def __init__(self, values: list[float]) -> None:
        self.values, self.position = values, 0

    def next(self) -> float:
        value = self.values[self.position]
        self.position += 1
        return value


class RecordedRandom(random.Random):
    """`random.Random` whose draws come from a `Stream`."""

    def __init__(self, stream: Stream) -> None:
        super().__init__(0)
        self.stream = stream

    def random(self) -> float:
        return self.stream.next()

    def randrange(self, n: int) -> int:  # type: ignore[override]
        return math.floor(self.stream.next() * n)


def categorical(probabilities: list[float], stream: Stream) -> int:
    """The engine's convention: first running sum above u, a draw only with several positive outcomes."""
    positive = [i for i, p in enumerate(probabilities) if p > 0]
    if len(positive) == 1:
        return positive[0]
    u, running = stream.next(), 0.0
    for index, p in enumerate(probabilities):
        running += p
        if u < running:
            return index
    return positive[-1]


class StreamEnv(gym.Env):
    """A finite model as a Gymnasium env whose randomness comes from a `Stream` (attached after construction)."""

    def __init__(self, model: FiniteModel) -> None:
        self.model = model
        self.observation_space = spaces.Discrete(len(model.states))
        self.action_space = spaces.Discrete(1 + max(a for acts in model.actions.values() for a in acts))
        self.stream: Stream | None = None
        self.state = model.states[0]

    def legal_actions(self) -> list[int]:
        return sorted(self.model.legal_actions(self.state))

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        if self.stream is not None:
            states = list(self.model.start)
            self.state = states[categorical([self.model.start[s] for s in states], self.stream)]
        return self.state, {}

    def step(self, action):
        outcomes = self.model.transitions[(self.state, int(action))]
        p, next_state, reward, terminal = outcomes[categorical([o.probability for o in outcomes], self.stream)]
        self.state = next_state
        return next_state, reward, bool(terminal or not self.model.actions.get(next_state)), False, {}


def chain_model() -> FiniteModel:
    """4 states, a random start, state-dependent legal actions, stochastic outcomes, fractional rewards."""
    t = Transition
    transitions = {
        (0, 1): [t(1.0, 1, -0.3, False)],
        (1, 0): [t(1.0, 0, -1.0, False)],
        (1, 1): [t(0.75, 2, -1.0, False), t(0.25, 1, -2.5, False)],
        (2, 0): [t(1.0, 1, -1.0, False)],
        (2, 1): [t(0.6, "goal", 5.0, True), t(0.4, 3, -3.0, False)],
        (2, 2): [t(1.0, 2, -0.5, False)],
        (3, 0): [t(1.0, 2, -1.0, False)],
        (3, 2): [t(0.5, "goal", 0.7, True), t(0.5, 0, -1.1, False)],
    }
    actions = {0: [1], 1: [0, 1], 2: [0, 1, 2], 3: [0, 2]}
    return FiniteModel([0, 1, 2, 3], actions, transitions, {1: 0.7, 3: 0.3}, name="chain").validate()


def cliff_model(rows: int = 3, columns: int = 5) -> FiniteModel:
    """A small cliff walk: start bottom-left, goal bottom-right, the cliff between them sends back to the start."""
    start, goal = (rows - 1) * columns, rows * columns - 1
    cliff = set(range(start + 1, goal))
    states = [s for s in range(rows * columns) if s not in cliff]
    moves = ((-1, 0), (0, 1), (1, 0), (0, -1))
    transitions = {}
    for s in states:
        row, column = divmod(s, columns)
        for action, (dr, dc) in enumerate(moves):
            r, c = min(max(row + dr, 0), rows - 1), min(max(column + dc, 0), columns - 1)
            target = r * columns + c
            if target in cliff:
                transitions[(s, action)] = [Transition(1.0, start, -100.0, False)]
            else:
                transitions[(s, action)] = [Transition(1.0, target, -1.0, target == goal)]
    actions = {s: [0, 1, 2, 3] for s in states}
    return FiniteModel(states, actions, transitions, {start: 1.0}, name="tiny-cliff").validate()


MODELS = {"chain": chain_model, "cliff": cliff_model}


def recorded(seed: int, count: int = 40_000) -> list[float]:
    """A recorded stream of draws."""
    rng = random.Random(seed)
    return [rng.random() for _ in range(count)]


def make_trainer(algorithm: str, env: gym.Env, alpha: float, policy=None):
    common = {"gamma": 0.9, "schedule": ConstantSchedule(EPSILON), "seed": 0}
    if algorithm == "td-prediction":
        return TDPrediction(env, VTable(alpha=alpha), gamma=0.9, seed=0, policy=policy)
    classes = {"sarsa": SARSATrainer, "expected-sarsa": ExpectedSARSATrainer, "qlearning": QLearningTrainer,
               "double-qlearning": DoubleQLearningTrainer, "nstep-sarsa": NStepSARSATrainer}
    extra = {"n": 3} if algorithm == "nstep-sarsa" else {}
    return classes[algorithm](env, QTable(alpha=alpha), **common, **extra)


def uniform_policy(model: FiniteModel) -> np.ndarray:
    arrays = model.arrays()
    return arrays.legal / arrays.legal.sum(axis=1, keepdims=True)


def q_array(table: QTable, model: FiniteModel) -> np.ndarray:
    arrays = model.arrays()
    q = np.zeros(arrays.legal.shape)
    for (state, action), value in table.table.items():
        q[model.index[state], action] = value
    return q


def per_step_run(model, algorithm, alpha, stream_values, episodes):
    """The trainer's final values, episode returns and draws consumed, fed `stream_values`."""
    env, stream = StreamEnv(model), Stream(stream_values)
    pi = uniform_policy(model)

    def policy(state):
        return categorical(list(pi[model.index[state]]), stream)

    trainer = make_trainer(algorithm, env, alpha, policy)
    env.stream, trainer.rng = stream, RecordedRandom(stream)
    returns = [trainer.run_episode(EPSILON) for _ in range(episodes)]
    fn = trainer.value_fn
    if algorithm == "td-prediction":
        values = np.array([fn.value(s) for s in model.states])
    elif algorithm == "double-qlearning":
        values = np.stack([q_array(fn.first, model), q_array(fn.second, model)])
    else:
        values = q_array(fn, model)
    return values, returns, stream.position


@pytest.mark.parametrize("model_name", sorted(MODELS))
@pytest.mark.parametrize("algorithm", ["sarsa", "expected-sarsa", "qlearning", "double-qlearning", "nstep-sarsa",
                                       "td-prediction"])
def test_a_lane_equals_the_per_step_trainer_fed_the_same_draws(algorithm, model_name):
    # Mutants that fail here (each tried): SARSA choosing A' after its own update; Q-learning choosing before its
    # update; ties broken by the first index (in acting, or in Double Q's target argmax); n-step bootstrapping at
    # h = T; a start draw after the last episode; a transition draw for a one-outcome pair.
    model = MODELS[model_name]()
    alphas, episodes = [0.5, 0.1, 1.0], 20 if model_name == "chain" else 12
    streams = [recorded(100 * lane + 7) for lane in range(len(alphas))]
    pi = torch.as_tensor(uniform_policy(model))
    draws = SequenceDraws(streams)
    result = BatchedEngine(model).run(algorithm, alphas, episodes, epsilon=EPSILON, gamma=0.9, n=3, policy=pi,
                                      draws=draws)
    for lane, alpha in enumerate(alphas):
        values, returns, consumed = per_step_run(model, algorithm, alpha, streams[lane], episodes)
        assert torch.equal(result.values[lane], torch.as_tensor(values)), f"lane {lane} values differ"
        assert result.returns[lane].tolist() == returns
        assert draws.consumed()[lane] == consumed


def test_mixed_control_lanes_each_equal_their_trainer():
    # Mutant: the SARSA/Q-learning choice-row patch applied to every lane (SARSA reads its own update) fails.
    model, episodes = cliff_model(), 12
    names, alphas = ["sarsa", "qlearning", "expected-sarsa", "sarsa"], [0.5, 0.5, 0.9, 1.0]
    streams = [recorded(lane) for lane in range(4)]
    result = BatchedEngine(model).run(names, alphas, episodes, epsilon=EPSILON, gamma=0.9,
                                      draws=SequenceDraws(streams))
    for lane, (name, alpha) in enumerate(zip(names, alphas, strict=True)):
        values, returns, _ = per_step_run(model, name, alpha, streams[lane], episodes)
        assert torch.equal(result.values[lane], torch.as_tensor(values))
        assert result.returns[lane].tolist() == returns


def test_draw_order_is_the_documented_one():
    # Mutant: a start state drawn after the last episode (the trainer draws none) fails the count.
    model = chain_model()
    draws = SequenceDraws([recorded(3)], record=True)
    BatchedEngine(model).run("qlearning", [0.5], 3, epsilon=EPSILON, draws=draws)
    letters = {"start": "S", "epsilon": "E", "choice": "C", "transition": "T"}
    trace = "".join(letters[purpose] for _, purpose, _ in draws.trace)
    assert re.fullmatch(r"SEC?(T?S?EC?)*T?", trace), trace  # start, A_0; then per step: [T] [S] E [C]
    assert trace.count("S") == 3 and "T" in trace and "C" in trace


BACKENDS = ["torch", pytest.param("numba", marks=pytest.mark.skipif(not numba_control.available(),
                                                                    reason="numba is not installed"))]


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_same_seed_gives_identical_results_and_another_seed_does_not(backend):
    # Mutant: CounterDraws ignoring the seed (keys from the run index alone) fails the last assertion.
    engine = BatchedEngine(cliff_model(), backend=backend)
    first, second = (engine.run("sarsa", [0.5] * 4, 30, seed=11) for _ in range(2))
    other = engine.run("sarsa", [0.5] * 4, 30, seed=12)
    assert torch.equal(first.returns, second.returns) and torch.equal(first.values, second.values)
    assert not torch.equal(first.returns, other.returns)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_slice_of_runs_alone_equals_the_same_runs_in_a_bigger_batch(backend):
    # Mutant: keys drawn from SeedSequence(seed).generate_state(total) (batch-size dependent) fails.
    engine = BatchedEngine(cliff_model(), backend=backend)
    names = ["sarsa", "qlearning", "expected-sarsa"] * 4
    alphas = [0.2, 0.2, 0.2, 0.6, 0.6, 0.6, 0.9, 0.9, 0.9, 0.4, 0.4, 0.4]
    runs = list(range(10, 22))
    whole = engine.run(names, alphas, 25, seed=5, run_index=runs)
    part = engine.run(names[3:7], alphas[3:7], 25, seed=5, run_index=runs[3:7])
    assert torch.equal(whole.returns[3:7], part.returns) and torch.equal(whole.values[3:7], part.values)


@pytest.mark.parametrize("algorithm", ["sarsa", "double-qlearning", "nstep-sarsa"])
def test_dropping_finished_lanes_changes_nothing(algorithm, monkeypatch):
    # Mutant: Lanes.select keeping the old record offsets (records land in the wrong rows) fails.
    from rltorch.engines import batched

    engine = BatchedEngine(chain_model(), backend="torch")
    alphas = [0.5, 0.3, 0.9, 0.7, 0.2, 1.0]  # the lanes finish their episodes at different iterations
    plain = engine.run(algorithm, alphas, 8, n=2, seed=1)
    monkeypatch.setattr(batched, "MIN_COMPACT", 1)
    monkeypatch.setattr(batched, "CHECK_EVERY", 2)
    dropped = engine.run(algorithm, alphas, 8, n=2, seed=1)
    assert torch.equal(plain.returns, dropped.returns) and torch.equal(plain.lengths, dropped.lengths)
    assert torch.equal(plain.values, dropped.values)


@pytest.mark.skipif(not numba_control.available(), reason="numba is not installed")
@pytest.mark.parametrize("model_name", sorted(MODELS))
def test_the_numba_backend_equals_the_torch_engine(model_name):
    # Mutant: the numba lanes' SARSA choosing A' after its own update within an episode fails.
    model = MODELS[model_name]()
    names = ["sarsa", "expected-sarsa", "qlearning"] * 3
    alphas = [0.1, 0.1, 0.1, 0.5, 0.5, 0.5, 1.0, 1.0, 1.0]
    torch_result, numba_result = (
        BatchedEngine(model, backend=backend).run(names, alphas, 15, epsilon=EPSILON, gamma=0.9, seed=4,
                                                  run_index=torch.arange(3, 12)) for backend in ("torch", "numba"))
    assert torch.equal(torch_result.returns, numba_result.returns)
    assert torch.equal(torch_result.lengths, numba_result.lengths)
    assert torch.equal(torch_result.values, numba_result.values)


def test_run_keys_are_spawned_children_and_the_hash_wraps_like_uint64():
    # Mutant: a key taken from SeedSequence(seed + index) fails; so does an arithmetic (sign-filling) shift.
    children = np.random.SeedSequence(9).spawn(6)
    keys = run_keys(9, [5, 2])
    assert keys[0].tolist() == children[5].generate_state(2, np.uint64).tolist()
    assert keys[1].tolist() == children[2].generate_state(2, np.uint64).tolist()
    k = keys.view(np.int64)
    words = hash_words(torch.from_numpy(k), torch.arange(3)).numpy().view(np.uint64)
    assert words.tolist() == [[reference_hash(*key, c) for c in range(3)] for key in keys.tolist()]


def reference_hash(k0: int, k1: int, counter: int) -> int:
    mask = (1 << 64) - 1

    def mix(z):
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & mask
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & mask
        return z ^ (z >> 31)

    return mix(mix((k0 + (counter + 1) * 0x9E3779B97F4A7C15) & mask) ^ k1)


def test_a_small_figure_6_3_has_the_books_orderings():
    # Mutant: `lanes` labelling the methods in another order (Q-learning lanes read as SARSA) fails.
    from figure_6_3_curves import METHODS, compute_slice

    sums = compute_slice(range(200), [0.5, 1.0], 100, seed=0)
    mean = sums.finish()["mean"]
    sarsa, expected, qlearning = (mean[METHODS.index(m)] for m in ("sarsa", "expected-sarsa", "qlearning"))
    assert sums.runs == 200
    assert expected[1] >= sarsa[1]  # interim, alpha 1: Expected SARSA at least SARSA
    assert qlearning[0] < sarsa[0]  # alpha 0.5, epsilon 0.1: Q-learning's online return below SARSA's


def test_figure_slices_add_up_to_the_whole():
    # Mutant: compute_slice numbering lanes by their position in the slice (not the global run index) fails.
    from figure_6_3_curves import compute_slice

    whole = compute_slice(range(6), [0.5], 5, seed=2, block=5)
    parts = compute_slice(range(0, 2), [0.5], 5, seed=2, block=5).merge(
        compute_slice(range(2, 6), [0.5], 5, seed=2, block=5))
    assert whole.runs == parts.runs == 6 and whole.steps == parts.steps
    np.testing.assert_allclose(whole.mean_sums, parts.mean_sums, rtol=1e-12)
    np.testing.assert_allclose(whole.block_sums, parts.block_sums, rtol=1e-12)


def test_the_figure_script_writes_its_png_json_and_curves(tmp_path, capsys):
    # Mutant: --out ignored (files only in the run folder) fails; an unknown option must be one line, exit 2.
    import json

    import figure_6_3

    status = figure_6_3.main(["--runs-interim", "10", "--episodes-interim", "20", "--runs-asymptotic", "1",
                              "--episodes-asymptotic", "100", "--alphas", "0.5", "--out", str(tmp_path / "out"),
                              "--log-dir", str(tmp_path / "runs"), "--no-progress", "--device", "cpu"])
    assert status == 0
    report = json.loads((tmp_path / "out" / "figure_6_3.json").read_text())
    assert (tmp_path / "out" / "figure_6_3.png").stat().st_size > 0
    assert set(report["interim"]) == {"Sarsa", "Expected Sarsa", "Q-learning"} and report["peak_rss_mb"] > 0
    assert any((tmp_path / "runs").rglob("events.out.tfevents.*"))
    with pytest.raises(SystemExit) as stop:
        figure_6_3.main(["--runs", "5"])
    assert stop.value.code == 2 and len(capsys.readouterr().err.strip().splitlines()) == 1
