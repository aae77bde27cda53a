"""2048's rules, env and terminal play: hand-worked boards, the draws of a new tile, Gymnasium's checker."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import rltorch.envs  # noqa: F401
from rltorch.envs.game2048.env import Game2048Env, afterstate, legal_moves
from rltorch.envs.game2048.play import TerminalGame, parse_move
from rltorch.envs.game2048.rules import DOWN, LEFT, RIGHT, UP, pack, place_tile, slide_line, unpack


@pytest.mark.parametrize("line, slid, score", [
    ((1, 1, 2, 0), (2, 2, 0, 0), 4),          # 2+2 -> 4; the new 4 does not merge again in this move
    ((1, 1, 1, 1), (2, 2, 0, 0), 8),          # two merges
    ((0, 3, 0, 3), (4, 0, 0, 0), 16),         # 8+8 across a gap
    ((2, 1, 1, 0), (2, 2, 0, 0), 4),
    ((15, 15, 0, 0), (15, 15, 0, 0), 0),      # 32768 tiles do not merge (4-bit cells)
    ((1, 2, 3), (1, 2, 3), 0),
])
def test_a_line_slides_toward_its_first_cell(line, slid, score):
    assert slide_line(line) == (slid, score)


def test_afterstate_slides_a_hand_worked_board_each_way():
    board = (1, 1, 0,
             0, 2, 0,
             0, 2, 1)
    assert afterstate(board, LEFT) == ((2, 0, 0, 2, 0, 0, 2, 1, 0), 4)
    assert afterstate(board, RIGHT) == ((0, 0, 2, 0, 0, 2, 0, 2, 1), 4)
    assert afterstate(board, UP) == ((1, 1, 1, 0, 3, 0, 0, 0, 0), 8)  # the middle column: 2, 4, 4 -> 2, 8
    assert afterstate(board, DOWN) == ((0, 0, 0, 0, 1, 0, 1, 3, 1), 8)
    assert legal_moves((1, 2, 2, 1)) == [] and legal_moves((1, 2, 1, 0)) == [UP, RIGHT, DOWN]


def test_a_new_tile_takes_the_empty_cell_the_first_draw_picks_and_a_4_below_0_1():
    board = pack((1, 0, 1, 0, 1, 0, 1, 0, 1))  # empty cells 1, 3, 5, 7
    assert unpack(place_tile(board, 3, 0.0, 0.5), 3)[1] == 1
    assert unpack(place_tile(board, 3, 0.74, 0.5), 3)[5] == 1   # int(0.74 * 4) = 2: the third empty cell
    assert unpack(place_tile(board, 3, 0.99, 0.09), 3)[7] == 2  # below 0.1: a 4


def test_packing_keeps_the_top_cell_of_a_full_4x4_board():
    cells = tuple(range(16))
    assert pack(cells) < 0 and unpack(pack(cells), 4) == cells


def test_reset_and_steps_follow_the_rules_with_np_random_draws():
    env = Game2048Env(size=3)
    board, info = env.reset(seed=5)
    draws = np.random.default_rng(5).random(6)
    expected = place_tile(place_tile(0, 3, draws[0], draws[1]), 3, draws[2], draws[3])
    assert board == unpack(expected, 3) and sum(1 for tile in board if tile) == 2
    assert list(info["action_mask"]) == [int(a in env.legal_actions()) for a in range(4)]
    action = env.legal_actions()[0]
    after, reward = afterstate(board, action)
    board2, reward2, terminated, truncated, info = env.step(action)
    assert board2 == unpack(place_tile(pack(after), 3, draws[4], draws[5]), 3) and reward2 == reward
    assert not truncated and (env.action_masks() == info["action_mask"]).all()


def test_an_illegal_slide_changes_nothing_and_a_stuck_board_ends_the_game():
    env = Game2048Env(size=2)
    env.reset(seed=0)
    env._board = pack((1, 2, 0, 0))
    board, reward, terminated, _, info = env.step(UP)
    assert board == (1, 2, 0, 0) and reward == 0 and info["illegal_action"] and not terminated
    env._board = pack((3, 4, 0, 5))
    board, reward, terminated, _, _ = env.step(LEFT)  # (8, 16), (32, new 2 or 4): nothing merges
    assert terminated and env.legal_actions() == [] and not env.action_masks().any()
    with pytest.raises(ValueError, match="game is over"):
        env.step(LEFT)


def test_the_goal_ends_the_game_when_its_tile_appears():
    env = Game2048Env(size=3, goal=8)
    env.reset(seed=0)
    env._board = pack((2, 2, 0, 0, 0, 0, 0, 0, 0))
    _, reward, terminated, _, _ = env.step(LEFT)
    assert reward == 8 and terminated and env.legal_actions() == []


@pytest.mark.parametrize("size", [3, 4])
def test_gymnasium_check_env_passes(size):
    env = gym.make("rltorch/2048-v0", size=size, render_mode="ansi")
    check_env(env.unwrapped, skip_render_check=False)
    env.reset(seed=1)
    assert env.render().count("\n") == size


@pytest.mark.parametrize("options, message", [({"size": 1}, "board size"), ({"size": 5}, "board size"),
                                              ({"goal": 100}, "power of two"), ({"goal": 2}, "power of two")])
def test_bad_options_are_refused(options, message):
    with pytest.raises(ValueError, match=message):
        Game2048Env(**options)


def test_a_person_plays_in_the_terminal_and_an_agent_can_be_watched():
    assert parse_move("x", [UP]).startswith("'x' is not a move") and parse_move("w", [LEFT]).endswith("nothing")
    said: list[str] = []
    answers = iter(["x", "a", "d", "w", "s", "q"])
    TerminalGame(3, ask=lambda _: next(answers), say=said.append, seed=0).run()
    assert said[-1] == "bye" and any("score" in line for line in said)

    class FirstLegal:
        def act(self, board, legal):
            return legal[0]

    said.clear()
    score = TerminalGame(2, FirstLegal(), say=said.append, seed=0).run(watch=True)
    assert f"game over: score {score}" in said[-1] and said[-2].startswith("the agent slides")
