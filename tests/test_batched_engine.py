"""The batched engine against the per-step trainers (exact, fed the same draws, time limits included), its seeds,
slices and threads, and Figure 6.3.

How the equivalence tests feed both sides the same numbers: lane l of the engine draws, on demand, from
the stream of its run (`rltorch.engines.uniforms(seed, run, count)` is that stream in numpy). The per-step
trainer reads the same list through `RecordedRandom` (`random()` is the next number, `randrange(n)` is
floor(u * n) of the next) and through `StreamEnv`, a Gymnasium env over the same finite model that draws
its start state and transition outcomes from it (the first running sum above u, a draw only when there is
more than one outcome), wrapped in Gymnasium's `TimeLimit` where the engine has a time limit. Both must end
with the same values (float64, compared exactly), the same episode returns and lengths, having consumed
the same number of draws.
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
import torch
from gymnasium import spaces
from gymnasium.wrappers import TimeLimit

from rltorch.engines import ALGORITHMS, BatchedEngine, run_keys, time_limit_of, uniforms
from rltorch.errors import RLTorchError
from rltorch.mdp import FiniteModel, Transition, from_gymnasium
from rltorch.policies import ConstantSchedule
from rltorch.trainers import TRAINERS, NStepTD
from rltorch.values import QTable
from tests.helpers import RecordedRandom, Stream

EPSILON, GAMMA, SEED = 0.2, 0.9, 3
pytestmark = pytest.mark.usefixtures("one_thread")


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


def q_array(table: QTable, model: FiniteModel) -> np.ndarray:
    q = np.zeros(model.arrays().legal.shape)
    for (state, action), value in table.table.items():
        q[model.index[state], action] = value
    return q


def per_step_run(model: FiniteModel, algorithm: str, alpha: float, draws: np.ndarray, episodes: int,
                 limit: int | None, gamma: float = GAMMA, epsilon: float = EPSILON):
    """The trainer's final values, episode returns and lengths, and draws consumed, fed `draws`."""
    base, stream = StreamEnv(model), Stream(draws)
    env = base if limit is None else TimeLimit(base, max_episode_steps=limit)
    extra = {"n": 3} if issubclass(TRAINERS[algorithm], NStepTD) else {}
    trainer = TRAINERS[algorithm](env, QTable(alpha=alpha), gamma=gamma, schedule=ConstantSchedule(epsilon), seed=0,
                                  **extra)
    base.stream, trainer.rng = stream, RecordedRandom(stream)
    returns, lengths = [], []
    for _ in range(episodes):
        steps = trainer.steps_done
        returns.append(trainer.run_episode(epsilon))
        lengths.append(trainer.steps_done - steps)
    fn = trainer.value_fn
    values = np.stack([q_array(fn.first, model), q_array(fn.second, model)]) if algorithm == "double-qlearning" \
        else q_array(fn, model)
    return values, returns, lengths, stream.position


def assert_lane_is_the_trainer(result, lane: int, model: FiniteModel, algorithm: str, alpha: float, episodes: int,
                               limit: int | None, **settings) -> None:
    """Lane `lane` of `result` equals the per-step trainer fed its run's stream."""
    draws = uniforms(SEED, int(result.run_index[lane]), int(result.draws[lane]) + 1)
    values, returns, lengths, consumed = per_step_run(model, algorithm, alpha, draws, episodes, limit, **settings)
    assert torch.equal(result.values[lane], torch.as_tensor(values)), f"lane {lane}: values differ"
    assert result.returns[lane].tolist() == returns, f"lane {lane}: returns differ"
    assert result.lengths[lane].tolist() == lengths, f"lane {lane}: lengths differ"
    assert int(result.draws[lane]) == consumed, f"lane {lane}: draws differ"


MODELS = {"chain": chain_model, "cliff": cliff_model}


@pytest.mark.parametrize(("model_name", "limit"), [("chain", None), ("chain", 4), ("cliff", None), ("cliff", 9)])
@pytest.mark.parametrize("algorithm", list(ALGORITHMS))
def test_a_lane_equals_the_per_step_trainer_fed_the_same_draws(algorithm, model_name, limit):
    # Mutants that fail here (each tried): SARSA choosing A' after its own update; Q-learning reading S' after its
    # update; ties broken by the first index (acting, Double Q's target argmax); Double Q's tie drawn before its
    # coin; n-step bootstrapping at h = T; the time limit ignored; a truncated step not bootstrapping; SARSA not
    # choosing A' on a truncated step; a draw for a one-outcome pair.
    model = MODELS[model_name]()
    alphas, episodes = [0.5, 0.1, 1.0], 15
    result = BatchedEngine(model).run(algorithm, alphas, episodes, epsilon=EPSILON, gamma=GAMMA, n=3, seed=SEED,
                                      run_index=[4, 0, 9], time_limit=limit)
    if limit is not None:
        assert bool((result.lengths == limit).any())  # some episodes were truncated
    for lane, alpha in enumerate(alphas):
        assert_lane_is_the_trainer(result, lane, model, algorithm, alpha, episodes, limit)


@pytest.mark.parametrize("algorithm", list(ALGORITHMS))
def test_frozen_lake_lanes_equal_the_trainer_with_its_100_step_limit(algorithm):
    # FrozenLake-v1's time limit (100 steps) truncates some episodes once the values steer away from the holes
    # (Double Q-learning, updating each half half the time, takes longer to get there). Two truncating lanes and
    # one other are checked. Mutant: the engine without the limit fails the first assert.
    env = gym.make("FrozenLake-v1")
    model, limit, episodes = from_gymnasium(env), time_limit_of(env), 1000 if algorithm == "double-qlearning" else 300
    assert limit == 100
    settings = {"gamma": 1.0, "epsilon": 0.05}
    result = BatchedEngine(model).run(algorithm, [0.5] * 8, episodes, n=3, seed=SEED, time_limit=limit, **settings)
    truncating = torch.nonzero((result.lengths == limit).any(dim=1)).flatten().tolist()
    assert truncating, "no lane was truncated"
    for lane in truncating[:2] + [min(set(range(8)) - set(truncating))]:
        assert_lane_is_the_trainer(result, lane, model, algorithm, 0.5, episodes, limit, **settings)


def test_mixed_control_lanes_each_equal_their_trainer():
    # Mutant: lanes dispatched on the batch's first algorithm (not each lane's code) fails.
    model, episodes = cliff_model(), 12
    names, alphas = ["sarsa", "qlearning", "expected-sarsa", "sarsa"], [0.5, 0.5, 0.9, 1.0]
    result = BatchedEngine(model).run(names, alphas, episodes, epsilon=EPSILON, gamma=GAMMA, seed=SEED)
    for lane, (name, alpha) in enumerate(zip(names, alphas, strict=True)):
        assert_lane_is_the_trainer(result, lane, model, name, alpha, episodes, None)


def test_the_same_seed_gives_identical_results_and_another_seed_does_not():
    # Mutant: streams keyed by the run index alone (the seed ignored) fails the last assertion.
    engine = BatchedEngine(cliff_model())
    first, second = (engine.run("sarsa", [0.5] * 4, 30, seed=11) for _ in range(2))
    other = engine.run("sarsa", [0.5] * 4, 30, seed=12)
    assert torch.equal(first.returns, second.returns) and torch.equal(first.values, second.values)
    assert not torch.equal(first.returns, other.returns)


def test_a_slice_of_runs_alone_equals_the_same_runs_in_a_bigger_batch_on_any_threads():
    # Mutants: streams keyed by the lane's position (not its global run index); threads sharing a scratch row.
    names = ["sarsa", "qlearning", "expected-sarsa"] * 4
    alphas = [0.2, 0.2, 0.2, 0.6, 0.6, 0.6, 0.9, 0.9, 0.9, 0.4, 0.4, 0.4]
    runs = list(range(10, 22))
    whole = BatchedEngine(cliff_model()).run(names, alphas, 25, seed=5, run_index=runs)
    part = BatchedEngine(cliff_model(), threads=2).run(names[3:7], alphas[3:7], 25, seed=5, run_index=runs[3:7])
    assert torch.equal(whole.returns[3:7], part.returns) and torch.equal(whole.values[3:7], part.values)


def test_progress_counts_every_episode_and_bad_requests_are_one_line():
    seen: list[int] = []
    BatchedEngine(chain_model()).run("qlearning", [0.5, 0.7], 250, progress=seen.append)
    assert seen == sorted(seen) and seen[-1] == 500
    with pytest.raises(RLTorchError, match="only sarsa, expected-sarsa and qlearning"):
        BatchedEngine(chain_model()).run(["sarsa", "double-qlearning"], [0.5, 0.5], 2)
    with pytest.raises(RLTorchError, match="time limit"):
        BatchedEngine(chain_model()).run("sarsa", [0.5], 2, time_limit=0)
    with pytest.raises(RLTorchError, match="no GPU form"):
        BatchedEngine(chain_model(), device="cuda")


def test_the_streams_are_spawned_children_hashed_like_uint64():
    # Mutants: a key from SeedSequence(seed + index); an arithmetic (sign-filling) shift; the low half first.
    children = np.random.SeedSequence(9).spawn(6)
    keys = run_keys(9, [5, 2])
    assert keys[0].tolist() == children[5].generate_state(2, np.uint64).tolist()
    assert keys[1].tolist() == children[2].generate_state(2, np.uint64).tolist()
    k0, k1 = keys[0].tolist()
    words = [reference_hash(k0, k1, c) for c in range(3)]
    expected = [half * 2.0**-32 for word in words for half in (word >> 32, word & 0xFFFFFFFF)]
    assert uniforms(9, 5, 5).tolist() == expected[:5]


def reference_hash(k0: int, k1: int, counter: int) -> int:
    mask = (1 << 64) - 1

    def mix(z):
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & mask
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & mask
        return z ^ (z >> 31)

    return mix(mix((k0 + (counter + 1) * 0x9E3779B97F4A7C15) & mask) ^ k1)


def test_a_small_figure_6_3_has_the_books_orderings():
    # Mutant: `lanes` labelling the methods in another order (Q-learning lanes read as SARSA) fails.
    from trainers.chapter6.figure_6_3_curves import METHODS, compute_slice

    sums = compute_slice(range(200), [0.5, 1.0], 100, seed=0)
    mean = sums.finish()["mean"]
    sarsa, expected, qlearning = (mean[METHODS.index(m)] for m in ("sarsa", "expected-sarsa", "qlearning"))
    assert sums.runs == 200
    assert expected[1] >= sarsa[1]  # interim, alpha 1: Expected SARSA at least SARSA
    assert qlearning[0] < sarsa[0]  # alpha 0.5, epsilon 0.1: Q-learning's online return below SARSA's


def test_figure_slices_add_up_to_the_whole():
    # Mutant: compute_slice numbering lanes by their position in the slice (not the global run index) fails.
    from trainers.chapter6.figure_6_3_curves import compute_slice

    whole = compute_slice(range(6), [0.5], 5, seed=2, block=5)
    parts = compute_slice(range(0, 2), [0.5], 5, seed=2, block=5).merge(
        compute_slice(range(2, 6), [0.5], 5, seed=2, block=5))
    assert whole.runs == parts.runs == 6 and whole.steps == parts.steps
    np.testing.assert_allclose(whole.mean_sums, parts.mean_sums, rtol=1e-12)
    np.testing.assert_allclose(whole.block_sums, parts.block_sums, rtol=1e-12)


def test_the_figure_script_writes_its_png_json_and_curves(tmp_path, capsys):
    # Mutant: --out ignored (files only in the run folder) fails; an unknown option must be one line, exit 2.
    import json

    from trainers.chapter6 import figure_6_3

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
