"""2048 learning: the n-tuple network, the compiled loop against the per-step trainer, checkpoints, the exact solver."""

from __future__ import annotations

import functools
import random

import gymnasium as gym
import numpy as np
import pytest
import torch

import rltorch.envs  # noqa: F401
from rltorch.engines.afterstate2048 import CompiledAfterstateLearner
from rltorch.envs.game2048 import solver
from rltorch.envs.game2048.env import afterstate, goal_exponent, legal_moves
from rltorch.envs.game2048.fast import RESULT_SCORE
from rltorch.keys import AfterstateKeys
from rltorch.policies import ConstantSchedule
from rltorch.run.cli import main
from rltorch.trainers import QLearningTrainer
from rltorch.values import NTupleNetwork
from rltorch.values.ntuple import symmetries


def random_network(size: int, seed: int) -> NTupleNetwork:
    """A network with small random weights, so that greedy choices rarely tie."""
    network = NTupleNetwork(size, alpha=0.1)
    network.weights.copy_(torch.rand(network.weights.shape, generator=torch.Generator().manual_seed(seed)))
    return network


def test_a_key_reads_its_reward_plus_the_sum_of_its_features_shared_over_the_symmetries():
    network = random_network(3, 0)
    board = (1, 2, 0, 0, 3, 0, 0, 0, 1)
    for image in symmetries(3):
        turned = tuple(board[image.index(index)] for index in range(9))
        assert network.value(turned) == pytest.approx(network.value(board), abs=1e-9)
    cells = [row[:length] for row, length in zip(network.cells, network.lengths, strict=True)]
    by_hand = sum(float(network.weights[network.offsets[f] + sum(board[c] << (4 * j) for j, c in enumerate(cells[f]))])
                  for f in range(len(cells)))
    assert network.value(board) == pytest.approx(by_hand, abs=1e-9)
    assert network.value((board, 12)) == pytest.approx(12 + by_hand, abs=1e-9)
    assert network.forward([(board, 12)]).item() == pytest.approx(12 + by_hand, abs=1e-5)


def test_an_update_removes_alpha_of_the_error_when_no_weight_repeats():
    network = NTupleNetwork(3, tuples=[(0, 1)], alpha=0.5)  # 8 images of a corner pair: 8 distinct weights here
    board = (1, 2, 3, 4, 5, 6, 7, 8, 9)
    error = network.update((board, 4), 10.0)
    assert error == 6.0 and network.value(board) == pytest.approx(3.0, abs=1e-6)  # V moved half of 10 - 4 - 0


def test_the_compiled_loop_equals_the_per_step_trainer_fed_the_same_draws():
    """Same seed: the env's np_random and the loop's generator give the same tiles; ties go to the first slide."""
    stepped, compiled = random_network(3, 1), random_network(3, 1)
    env = gym.make("rltorch/2048-v0", size=3, disable_env_checker=True)
    trainer = QLearningTrainer(env, stepped, keys=AfterstateKeys(afterstate), gamma=1.0,
                               schedule=ConstantSchedule(0.0), seed=7)

    class FirstOfTies(random.Random):
        def randrange(self, *args):
            return 0

    trainer.rng = FirstOfTies(0)
    scores = [trainer.run_episode(0.0) for _ in range(12)]
    results = CompiledAfterstateLearner(compiled, gamma=1.0, seed=7).run(12)
    assert list(results[:, RESULT_SCORE]) == scores
    assert torch.equal(stepped.weights, compiled.weights) and stepped.weights.ne(compiled.weights.new_zeros(1)).any()


def test_the_compiled_loop_resumes_bit_for_bit_from_data(tmp_path):
    straight = CompiledAfterstateLearner(NTupleNetwork(3), seed=3)
    whole = straight.run(30)
    first = CompiledAfterstateLearner(NTupleNetwork(3), seed=3)
    part = first.run(13)
    torch.save({"net": first.network.state_dict(), "learner": first.state_dict()}, tmp_path / "c.pt")
    saved = torch.load(tmp_path / "c.pt", weights_only=True)
    second = CompiledAfterstateLearner(NTupleNetwork(3), seed=99)
    second.network.load_state_dict(saved["net"])
    second.load_state_dict(saved["learner"])
    assert np.array_equal(np.concatenate([part, second.run(17)]), whole)
    assert torch.equal(second.network.weights, straight.network.weights)


QUIET = ["--eval-every", "0", "--test-games", "5", "--no-progress"]
NTUPLE = ["train", "--env", "rltorch/2048-v0", "--size", "3", "--values", "afterstate", "--value-fn", "ntuple",
          "--algo", "qlearning", "--gamma", "1", "--epsilon-schedule", "constant", "--epsilon-start", "0"]


def test_the_command_line_trains_an_ntuple_network_with_data_only_checkpoints_that_resume_exactly(tmp_path,
                                                                                                  monkeypatch):
    monkeypatch.chdir(tmp_path)
    tuples = ["--tuples", "0,1,2;0,1,3,4"]  # kept in the run's settings as text, read back on resume
    assert main([*NTUPLE, *tuples, "--episodes", "20", *QUIET, "--run-name", "cut"]) == 0
    assert main(["train", "--resume", "checkpoints/cut.pt", "--episodes", "40", "--no-progress"]) == 0
    assert main([*NTUPLE, *tuples, "--episodes", "40", *QUIET, "--run-name", "whole"]) == 0
    cut, whole = (torch.load(tmp_path / "checkpoints" / f"{name}.pt", weights_only=True) for name in ("cut", "whole"))
    assert cut["value_fn_config"]["class"] == "NTupleNetwork" and cut["episodes"] == whole["episodes"] == 40
    assert cut["value_fn_config"]["tuples"] == [[0, 1, 2], [0, 1, 3, 4]]
    assert torch.equal(cut["value_fn_state"]["weights"], whole["value_fn_state"]["weights"])


@pytest.mark.parametrize("argv, message", [
    (["--size", "1"], "board size must be 2, 3 or 4"),
    (["--tuples", "0,1,9"], "does not fit a 3x3 board"),
    (["--tuples", "0,0"], "does not fit a 3x3 board"),
    (["--values", "q"], "use it with --values afterstate"),
])
def test_bad_options_get_one_line_and_no_files(argv, message, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main([*NTUPLE, *argv, "--episodes", "5", *QUIET]) == 1
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and "Traceback" not in err
    assert list(tmp_path.iterdir()) == []


@functools.cache
def expectimax(board: tuple[int, ...], goal: int, policy: bool) -> float:
    """The expected score by plain recursion: the best slide, or the first legal one when `policy`."""
    legal = [] if max(board) >= goal else legal_moves(board)
    values = []
    for action in legal[:1] if policy else legal:
        after, reward = afterstate(board, action)
        empty = [index for index, tile in enumerate(after) if tile == 0]
        future = sum(0.9 * expectimax(after[:i] + (1,) + after[i + 1:], goal, policy)
                     + 0.1 * expectimax(after[:i] + (2,) + after[i + 1:], goal, policy) for i in empty) / len(empty)
        values.append(reward + future)
    return max(values, default=0.0)


@pytest.mark.parametrize("size, goal", [(2, 0), (3, 8)])
def test_the_solver_matches_plain_expectimax_and_its_simulation(size, goal):
    exponent = goal_exponent(goal)
    layers, _ = solver.reachable_layers(size, exponent)
    boards, chances = solver.start_distribution(size)
    assert chances.sum() == pytest.approx(1.0)
    for policy in (False, True):
        if policy:
            layers, actions = solver.policy_layers(size, exponent, lambda board, legal: legal[0])
        solved = solver.solve(size, layers, solver.POLICY if policy else solver.SCORE, goal=exponent,
                              policy=actions if policy else None)
        by_hand = sum(chance * expectimax(solver.unpack(int(board), size), exponent, policy)
                      for board, chance in zip(boards, chances, strict=True))
        assert solver.start_value(size, layers, solved) == pytest.approx(by_hand, rel=1e-12)
    best = solver.solve(size, *solver.reachable_layers(size, exponent)[:1], solver.SCORE, goal=exponent)
    value = solver.start_value(size, solver.reachable_layers(size, exponent)[0], best)
    scores = solver.simulated_scores(size, *solver.flatten(solver.reachable_layers(size, exponent)[0], best), 4000, 0)
    assert abs(scores.mean() - value) < 3 * scores.std(ddof=1) / np.sqrt(len(scores))
