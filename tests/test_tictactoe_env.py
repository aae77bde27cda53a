import re

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import rltorch  # noqa: F401  (registers the envs)
from rltorch.envs.tictactoe.env import (
    LINES,
    O,
    TicTacToeEnv,
    X,
    afterstate,
    completes_line,
    render_board,
    winner,
)
from rltorch.envs.tictactoe.opponents import SmartRandomOpponent
from tests.helpers import ScriptedOpponent, without_mask


@pytest.mark.parametrize("mark", [X, O])
@pytest.mark.parametrize("line", LINES)
def test_every_line_wins_for_both_marks(line, mark):
    board = [0] * 9
    for cell in line:
        board[cell] = mark
    assert winner(board) == mark
    assert all(completes_line(board, cell) for cell in line)


def test_full_board_without_line_is_a_draw():
    board = (X, O, X, X, O, O, O, X, X)
    assert winner(board) == 0
    assert not any(completes_line(board, cell) for cell in range(9))


def play(env, moves):
    """Reset, then play `moves`; return the list of step results."""
    env.reset(seed=0)
    return [env.step(cell) for cell in moves]


def test_game_ends_after_our_move_with_a_win():
    env = TicTacToeEnv(ScriptedOpponent([3, 4]))
    results = play(env, [0, 1, 2])
    assert [r[1:3] for r in results] == [(0.0, False), (0.0, False), (1.0, True)]
    assert results[-1][0] == (X, X, X, O, O, 0, 0, 0, 0)


def test_game_ends_after_the_reply_with_a_loss():
    env = TicTacToeEnv(ScriptedOpponent([2, 4, 6]))
    results = play(env, [0, 8, 1])
    board, reward, terminated, truncated, info = results[-1]
    assert (reward, terminated, truncated) == (-1.0, True, False)
    assert board == (X, X, O, 0, O, 0, O, 0, X)


def test_game_goes_on_returns_the_board_after_the_reply():
    env = TicTacToeEnv(ScriptedOpponent([0]))
    env.reset(seed=0)
    board, reward, terminated, truncated, info = without_mask(env.step(4))
    assert board == (O, 0, 0, 0, X, 0, 0, 0, 0)
    assert (reward, terminated, truncated, info) == (0.0, False, False, {})
    assert env.legal_actions() == [1, 2, 3, 5, 6, 7, 8]


def test_draw_after_our_last_move():
    # X: 0 2 3 7 8 ... O: 1 4 5 6 -> X O X / X O O / O X X, no line.
    env = TicTacToeEnv(ScriptedOpponent([1, 4, 5, 6]))
    results = play(env, [0, 2, 3, 7, 8])
    assert results[-1][1:3] == (0.0, True)
    assert winner(results[-1][0]) == 0


def test_draw_after_the_reply_as_o():
    # X (opponent) opens at 0; the learner is O.
    env = TicTacToeEnv(ScriptedOpponent([0, 2, 3, 7, 8]), seat="O")
    board, _ = env.reset(seed=0)
    assert board == (X, 0, 0, 0, 0, 0, 0, 0, 0)
    results = [env.step(cell) for cell in [1, 4, 5, 6]]
    assert results[-1][1:3] == (0.0, True)
    assert results[-1][0].count(0) == 0


def test_o_learner_wins_and_loses_from_its_own_point_of_view():
    env = TicTacToeEnv(ScriptedOpponent([0, 1, 8]), seat="O")
    env.reset(seed=0)
    assert [env.step(cell)[1] for cell in [3, 4, 5]] == [0.0, 0.0, 1.0]
    env = TicTacToeEnv(ScriptedOpponent([0, 1, 2]), seat="O")
    env.reset(seed=0)
    assert [env.step(cell)[1] for cell in [3, 4]] == [0.0, -1.0]


@pytest.mark.parametrize("cell", [-1, 9, 0, 4])
def test_illegal_or_occupied_cells_raise_naming_the_cell(cell):
    env = TicTacToeEnv(ScriptedOpponent([0]))
    env.reset(seed=0)
    env.step(4)  # X on 4, O replies on 0
    with pytest.raises(ValueError, match=f"cell {cell} is not an empty cell"):
        env.step(cell)


def test_step_after_the_end_raises():
    env = TicTacToeEnv(ScriptedOpponent([3, 4]))
    play(env, [0, 1, 2])
    with pytest.raises(ValueError, match="cell 5.*game is over"):
        env.step(5)


def test_afterstate_is_the_board_after_our_move():
    assert afterstate((0,) * 9, 4) == (0, 0, 0, 0, X, 0, 0, 0, 0)
    assert afterstate((0, 0, 0, 0, X, 0, 0, 0, 0), 0) == (O, 0, 0, 0, X, 0, 0, 0, 0)
    assert TicTacToeEnv().afterstate((X, 0, 0, 0, O, 0, 0, 0, 0), 8)[8] == X


def test_smart_opponent_wins_before_it_blocks():
    # O to move; O can win at 5 (3, 4, 5) and X threatens 2 (0, 1, 2).
    board = (X, X, 0, O, O, 0, X, 0, 0)
    assert SmartRandomOpponent(p=1.0).act(board, [2, 5, 7, 8]) == 5
    board = (X, X, 0, 0, O, 0, 0, 0, 0)
    assert SmartRandomOpponent(p=1.0).act(board, [2, 3, 5, 6, 7, 8]) == 2


def test_observations_are_plain_int_tuples():
    env = TicTacToeEnv()
    board, _ = env.reset(seed=3)
    board, *_ = env.step(env.legal_actions()[0])
    assert isinstance(board, tuple) and all(type(cell) is int for cell in board)


def test_check_env_passes():
    # As X with the default illegal_action="raise": check_env's first, unseeded sample is taken on the
    # empty board, and its seeded samples (cells 0 then 6) miss the seeded random opponent's reply.
    # (As O it may sample the opponent's opening cell, which rightly raises ValueError.)
    check_env(TicTacToeEnv(seat="X"), skip_render_check=True)


@pytest.mark.parametrize("seat", ["X", "O", "both"])
def test_check_env_passes_in_every_seat_when_an_illegal_move_loses(seat):
    for _ in range(5):  # the checker's first sample is unseeded: as O it hits the opening cell 1 time in 9
        check_env(TicTacToeEnv(seat=seat, illegal_action="lose"), skip_render_check=True)


def test_an_illegal_move_loses_the_game_with_the_option_and_raises_without_it():
    env = TicTacToeEnv(ScriptedOpponent([0]), seat="O", illegal_action="lose")
    board, _ = env.reset(seed=0)
    # the opponent's opening cell
    assert without_mask(env.step(0)) == (board, -1.0, True, False, {"illegal_action": True})
    with pytest.raises(ValueError, match="game is over"):
        env.step(4)
    env = TicTacToeEnv(ScriptedOpponent([0, 1]), seat="O", illegal_action="lose")
    env.reset(seed=0)
    with pytest.raises(ValueError, match="cell 9 is not an empty cell"):  # not in the action space at all
        env.step(9)
    assert without_mask(env.step(4))[1:] == (0.0, False, False, {})
    env = TicTacToeEnv(ScriptedOpponent([0]), seat="O")
    env.reset(seed=0)
    with pytest.raises(ValueError, match="cell 0 is not an empty cell"):
        env.step(0)
    with pytest.raises(ValueError, match="illegal_action"):
        TicTacToeEnv(illegal_action="ignore")


@pytest.mark.parametrize("action", [4, np.int64(4), np.uint8(4), np.array(4), 4.0, np.float32(4.0), np.array(4.0)])
def test_integer_like_actions_are_taken(action):
    env = TicTacToeEnv(ScriptedOpponent([0]))
    env.reset(seed=0)
    board, *_ = env.step(action)
    assert board == (O, 0, 0, 0, X, 0, 0, 0, 0) and all(type(cell) is int for cell in board)
    assert env.legal_actions() == [1, 2, 3, 5, 6, 7, 8]


@pytest.mark.parametrize("action", ["4", 4.5, float("nan"), float("inf"), None, True, np.True_, [4], np.array([4])])
def test_other_actions_are_a_type_error_naming_them(action):
    env = TicTacToeEnv(ScriptedOpponent([0]))
    env.reset(seed=0)
    with pytest.raises(TypeError, match=re.escape(f"action must be an integer cell 0..8, got {action!r}")):
        env.step(action)
    assert env.legal_actions() == list(range(9))  # nothing was played


@pytest.mark.parametrize("options, name", [({"board": (0,) * 9}, "'board'"), ({"seat": "O"}, "'seat'"),
                                           ("X", "must be a dict")])
def test_reset_refuses_options_naming_them(options, name):
    env = TicTacToeEnv()
    with pytest.raises(ValueError, match=re.escape(name)):
        env.reset(options=options)
    assert env.reset(options={})[0] == env.reset(options=None)[0] == (0,) * 9


def test_registered_with_gymnasium():
    env = gym.make("rltorch/TicTacToe-v0", seat="O")
    board, _ = env.reset(seed=1)
    assert board.count(X) == 1 and board.count(O) == 0
    assert "1 |" in render_board((0,) * 9)


def test_bad_seat_is_refused():
    with pytest.raises(ValueError, match="seat"):
        TicTacToeEnv(seat="Z")
