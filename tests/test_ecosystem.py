"""rltorch's envs in the Gymnasium ecosystem: action masks, SB3's checker and learners, exact evaluation of any
policy, vector envs, and the SB3 comparison script."""

import random
import warnings
from fractions import Fraction
from functools import cache

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env as gymnasium_check_env
from gymnasium.wrappers import FlattenObservation

import rltorch  # noqa: F401  (registers the envs)
from rltorch.envs import REGISTRATIONS, TicTacToeEnv
from rltorch.envs.blackjack.env import HIT, STICK
from rltorch.envs.blackjack.solver import BOOK_RULES, card_probabilities, optimal_policy, policy_value
from rltorch.envs.blackjack.solver import start_distribution as blackjack_starts
from rltorch.envs.tictactoe.exact import random_vs_random
from rltorch.errors import RLTorchError
from rltorch.external import exact_evaluation, sb3_policy, uniform_random
from tests.helpers import ScriptedOpponent

ENV_IDS = [env_id for env_id, _, _ in REGISTRATIONS]


def legal_as_mask(env):
    mask = np.zeros(env.action_space.n, dtype=np.int8)
    mask[env.unwrapped.legal_actions()] = 1
    return mask


def assert_mask(env, info):
    mask = info["action_mask"]
    assert isinstance(mask, np.ndarray) and mask.dtype == np.int8 and mask.shape == (env.action_space.n,)
    assert mask.tolist() == legal_as_mask(env).tolist() == env.unwrapped.action_masks().tolist()


# --- masks ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_every_env_gives_its_legal_actions_as_a_new_int8_mask_at_every_reset_and_step(env_id):
    env, rng, kept = gym.make(env_id), random.Random(0), []
    for episode in range(10):
        _, info = env.reset(seed=episode)
        assert_mask(env, info)
        for _ in range(100):
            _, _, terminated, truncated, info = env.step(rng.choice(env.unwrapped.legal_actions()))
            assert_mask(env, info)
            kept.append((info["action_mask"], info["action_mask"].copy()))
            if terminated or truncated:
                break
    assert all((mask == snapshot).all() for mask, snapshot in kept)  # a kept mask never changes afterwards
    assert not any(np.shares_memory(a, b) for (a, _), (b, _) in zip(kept, kept[1:], strict=False))


def test_tictactoe_masks_worked_by_hand():
    env = TicTacToeEnv(ScriptedOpponent([0, 1, 2]), illegal_action="lose")
    _, info = env.reset(seed=0)
    assert info["action_mask"].tolist() == [1] * 9
    board, _, _, _, info = env.step(4)  # the opponent replies in 0
    assert info["action_mask"].tolist() == [0, 1, 1, 1, 0, 1, 1, 1, 1] == [int(c == 0) for c in board]
    info["action_mask"][:] = 7  # the caller's array: the env's own masks are untouched
    assert env.action_masks().tolist() == [0, 1, 1, 1, 0, 1, 1, 1, 1]
    board, reward, terminated, _, info = env.step(0)  # taken: with "lose" the game is lost, board unchanged
    assert (reward, terminated, info["illegal_action"]) == (-1.0, True, True)
    assert info["action_mask"].tolist() == [0, 1, 1, 1, 0, 1, 1, 1, 1]
    env = TicTacToeEnv(ScriptedOpponent([4, 3]), seat="O")
    board, info = env.reset(seed=0)  # the opponent (X) opened in the centre
    assert info["action_mask"].tolist() == [1, 1, 1, 1, 0, 1, 1, 1, 1]
    _, _, _, _, info = env.step(0)
    assert info["action_mask"].tolist() == [0, 1, 1, 0, 0, 1, 1, 1, 1]


def test_gymnasium_check_env_passes_with_masks_in_info():
    gymnasium_check_env(gym.make("rltorch/Blackjack-v0").unwrapped, skip_render_check=True)
    for _ in range(3):
        gymnasium_check_env(TicTacToeEnv(seat="O", illegal_action="lose"), skip_render_check=True)


# --- vector envs ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("env_id, n_actions", [("rltorch/TicTacToe-v0", 9), ("rltorch/Blackjack-v0", 2)])
def test_sync_vector_envs_batch_the_masks_and_autoreset_on_the_next_step(env_id, n_actions):
    envs = gym.make_vec(env_id, num_envs=8, vectorization_mode="sync")
    assert envs.metadata["autoreset_mode"] == gym.vector.AutoresetMode.NEXT_STEP
    obs, info = envs.reset(seed=0)
    rng, ended, resets = np.random.default_rng(0), np.zeros(8, dtype=bool), 0
    for _ in range(60):
        mask = info["action_mask"]
        assert mask.shape == (8, n_actions) and mask.dtype == np.int8 and info["_action_mask"].all()
        actions = np.array([rng.choice(np.flatnonzero(row)) if row.any() else 0 for row in mask])
        obs, reward, terminated, truncated, info = envs.step(actions)
        if ended.any():  # those sub-envs were reset by this step: a fresh start, every action legal again
            resets += int(ended.sum())
            assert not terminated[ended].any() and (reward[ended] == 0).all()
            assert (info["action_mask"][ended] == 1).all()
            if n_actions == 9:  # the learner is X: an empty board
                assert all((cells[ended] == 0).all() for cells in obs)
        ended = terminated | truncated
    assert resets > 8
    envs.close()


# --- exact evaluation of any policy ---------------------------------------------------------------------

LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6))


def lowest_cell_vs_random(seat_mark):
    """Brute force, independent of rltorch: (win, draw, loss) of a player who always takes the lowest empty
    cell, as `seat_mark` (1 = X, moves first), against a uniformly random opponent."""

    @cache
    def value(board):
        for mark in (1, -1):
            if any(all(board[c] == mark for c in line) for line in LINES):
                return (Fraction(1), Fraction(0), Fraction(0)) if mark == seat_mark else (0, 0, Fraction(1))
        empty = [c for c in range(9) if board[c] == 0]
        if not empty:
            return (0, Fraction(1), 0)
        mover = 1 if len(empty) % 2 == 1 else -1
        play = lambda cell: value(board[:cell] + (mover,) + board[cell + 1:])  # noqa: E731
        if mover == seat_mark:
            return play(empty[0])
        children = [play(cell) for cell in empty]
        return tuple(sum(Fraction(child[i]) for child in children) / len(children) for i in range(3))

    return dict(zip(("win", "draw", "loss"), map(Fraction, value((0,) * 9)), strict=True))


def test_a_scripted_tictactoe_policy_is_evaluated_exactly_in_both_seats():
    report = exact_evaluation("rltorch/TicTacToe-v0", lambda obs, legal: min(legal), env_kwargs={"seat": "both"})
    assert report["deterministic"] and set(report["seats"]) == {"X", "O"}
    for seat, mark in (("X", 1), ("O", -1)):
        figures = report["seats"][seat]
        assert {k: Fraction(v) for k, v in figures["fractions"].items()} == lowest_cell_vs_random(mark)
        assert figures["never_loses_vs_perfect"] is False and figures["lines_lost_vs_perfect"] >= 1


def test_a_stochastic_policy_is_weighed_exactly_the_uniform_random_player():
    figures = exact_evaluation("rltorch/TicTacToe-v0", uniform_random)["seats"]["X"]
    assert figures["fractions"] == {key: str(value) for key, value in random_vs_random().items()}
    assert figures["fractions"]["win"] == "737/1260" and figures["never_loses_vs_perfect"] is False


def test_rltorch_agents_and_illegal_choices():
    class Lowest:
        def act(self, obs, legal_actions, rng=None):
            return legal_actions[0]

    figures = exact_evaluation(TicTacToeEnv(), Lowest())["seats"]["X"]
    assert {k: Fraction(v) for k, v in figures["fractions"].items()} == lowest_cell_vs_random(1)
    with pytest.raises(RLTorchError, match="legal actions"):
        exact_evaluation(TicTacToeEnv(), lambda obs, legal: 0)  # cell 0 is taken after the first move


def test_blackjack_stick_on_20_has_the_solvers_exact_value():
    stick_on_20 = lambda obs, legal: STICK if obs[0] >= 20 else HIT  # noqa: E731
    report = exact_evaluation("rltorch/Blackjack-v0", stick_on_20)
    values, cards = policy_value(lambda s: STICK if s[0] >= 20 else HIT), card_probabilities()
    expected = sum(p * cards[d] * values[(total, d, usable)]
                   for (total, usable), p in blackjack_starts(BOOK_RULES).items() for d in range(1, 11))
    assert report["expected_return"] == pytest.approx(expected, abs=1e-12)
    assert report["return_gap"] > 0.03 and report["policy_agreement"] < 1
    best = optimal_policy()
    optimal = exact_evaluation("rltorch/Blackjack-v0", lambda obs, legal: best[obs])
    assert optimal["return_gap"] == pytest.approx(0, abs=1e-12) and optimal["policy_agreement"] == 1.0
    with pytest.raises(RLTorchError, match="infinite deck"):
        exact_evaluation("rltorch/Blackjack-v0", stick_on_20, env_kwargs={"decks": 1})


def test_model_envs_are_evaluated_on_their_finite_models():
    walk = exact_evaluation("rltorch/RandomWalk-v0", lambda obs, legal: 0)  # from C: right end with chance 3/6
    assert walk["expected_return"] == pytest.approx(0.5) and walk["outcomes"] == pytest.approx({"win": .5, "draw": .5})
    left = exact_evaluation("rltorch/MaximizationBias-v0", lambda obs, legal: 0)  # A: left; B: action 0, mean -0.1
    assert left["expected_return"] == pytest.approx(-0.1) and left["return_gap"] == pytest.approx(0.1)
    assert left["outcomes"]["loss"] == pytest.approx(1.0) and left["outcomes"].get("win", 0) == 0
    right = exact_evaluation("rltorch/MaximizationBias-v0", lambda obs, legal: 1 if obs == 0 else 0)
    assert right["expected_return"] == 0.0 and right["return_gap"] == pytest.approx(0)


# --- Stable-Baselines3 and sb3-contrib ------------------------------------------------------------------


@pytest.fixture
def one_torch_thread():
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # small networks train fastest on one thread
    yield
    torch.set_num_threads(threads)


@pytest.mark.parametrize("seat", ["X", "O", "both"])
def test_sb3_check_env_passes_with_an_illegal_move_losing(seat):
    env_checker = pytest.importorskip("stable_baselines3.common.env_checker")
    for _ in range(5):  # the checker's first sample is unseeded: as O it hits the opening cell 1 time in 9
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            env_checker.check_env(FlattenObservation(gym.make("rltorch/TicTacToe-v0", seat=seat,
                                                              illegal_action="lose")))


def test_sb3_check_env_passes_on_blackjack():
    env_checker = pytest.importorskip("stable_baselines3.common.env_checker")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        env_checker.check_env(FlattenObservation(gym.make("rltorch/Blackjack-v0")))


def test_maskable_ppo_learns_with_the_envs_own_masks_and_beats_random_exactly(one_torch_thread):
    sb3_contrib = pytest.importorskip("sb3_contrib")
    from sb3_contrib.common.maskable.utils import is_masking_supported

    env = FlattenObservation(gym.make("rltorch/TicTacToe-v0"))  # no mask function: the env has action_masks()
    assert is_masking_supported(env)
    model = sb3_contrib.MaskablePPO("MlpPolicy", env, n_steps=256, batch_size=64, seed=0, device="cpu")
    model.learn(4096)
    policy = sb3_policy(model, env)
    assert policy.masked and policy.flatten
    learned = exact_evaluation("rltorch/TicTacToe-v0", policy)["seats"]["X"]
    random_player = exact_evaluation("rltorch/TicTacToe-v0", uniform_random)["seats"]["X"]
    assert learned["win"] > random_player["win"] + 0.1 and learned["loss"] < random_player["loss"]


def test_dqn_trains_when_an_illegal_move_loses_and_is_evaluated_exactly(one_torch_thread):
    sb3 = pytest.importorskip("stable_baselines3")
    env = FlattenObservation(gym.make("rltorch/TicTacToe-v0", illegal_action="lose", seat="O"))
    model = sb3.DQN("MlpPolicy", env, learning_starts=200, buffer_size=5000, seed=0, device="cpu")
    model.learn(1500)
    policy = sb3_policy(model)  # the observation space read from the model's own env
    figures = exact_evaluation("rltorch/TicTacToe-v0", policy, env_kwargs={"seat": "O"})["seats"]["O"]
    assert sum(Fraction(p) for p in figures["fractions"].values()) == 1
    assert not policy.masked and 0 <= policy.illegal_choices <= policy.calls > 0


# --- the comparison script ------------------------------------------------------------------------------


def test_comparison_script_help_and_options():
    pytest.importorskip("sb3_contrib")
    from trainers.ecosystem import sb3_comparison

    with pytest.raises(SystemExit) as exit_info:
        sb3_comparison.main(["--help"])
    assert exit_info.value.code == 0
    for bad in (["--ppo", "100"], ["--ppo-steps", "100", "--ppo-n-steps", "200"], ["--seat", "Z"]):
        with pytest.raises(SystemExit) as exit_info:
            sb3_comparison.main(bad)
        assert exit_info.value.code == 2


def test_comparison_script_writes_the_table_and_json(tmp_path, capsys, one_torch_thread):
    pytest.importorskip("sb3_contrib")
    import json

    from trainers.ecosystem import sb3_comparison

    out = tmp_path / "out"
    argv = ["--ppo-steps", "256", "--ppo-n-steps", "128", "--dqn-steps", "300", "--sarsa-episodes", "300",
            "--out", str(out), "--json", str(tmp_path / "copy.json"), "--no-progress"]
    assert sb3_comparison.main(argv) == 0
    numbers = json.loads((out / "sb3_comparison.json").read_text())
    assert [a["agent"] for a in numbers["agents"]] == ["MaskablePPO", "DQN", "SARSA", "uniform random"]
    assert numbers["agents"][2]["episodes"] == 300 and numbers["agents"][0]["steps"] == 256
    assert (tmp_path / "copy.json").read_text() == (out / "sb3_comparison.json").read_text()
    table = (out / "sb3_comparison.md").read_text()
    assert table.count("\n| ") == 6 and "| uniform random |" in table and "| 0.5849 |" in table
    assert {p.name for p in out.iterdir()} >= {"maskable_ppo.zip", "dqn.zip", "sarsa.pt"}
    assert "| SARSA | rltorch |" in capsys.readouterr().out
