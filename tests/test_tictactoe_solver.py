"""Exact tic-tac-toe: negamax values, the perfect player, exact outcomes and reachable key counts."""

import random
from fractions import Fraction

import pytest

from rltorch.agents import GreedyAgent, RandomAgent
from rltorch.envs.tictactoe.env import TicTacToeEnv, afterstate, legal_moves
from rltorch.envs.tictactoe.exact import (
    ExpectimaxAgent,
    best_outcome_vs_random,
    best_win_probability_vs_random,
    deterministic,
    exact_outcome,
    exact_outcome_vs_random,
    losing_lines_vs_perfect,
    never_loses_vs_perfect,
    random_vs_random,
    uniform_over,
    uniform_perfect,
    uniform_random,
)
from rltorch.envs.tictactoe.solver import (
    EMPTY_BOARD,
    PerfectAgent,
    count_reachable_keys,
    optimal_moves,
    reachable_positions,
    value,
)
from rltorch.keys import AfterstateKeys
from rltorch.values.tables import VTable

MARKS = {"X": 1, "O": -1, ".": 0}


def parse(rows: str) -> tuple[int, ...]:
    """A board from three rows of X, O and . separated by spaces, e.g. "XX. OO. ..."."""
    return tuple(MARKS[cell] for cell in rows.replace(" ", ""))


def minimax_greedy_agent() -> GreedyAgent:
    """A GreedyAgent whose afterstate table holds the exact minimax values (for the player who just moved)."""
    table = VTable(alpha=1.0)
    afterstates = [board for board in reachable_positions() if board != EMPTY_BOARD]
    table.fit(afterstates, [float(-value(board)) for board in afterstates])
    return GreedyAgent(table, AfterstateKeys(afterstate))


def test_empty_board_is_a_draw():
    assert value(EMPTY_BOARD) == 0
    assert optimal_moves(EMPTY_BOARD) == list(range(9))  # every opening draws with best play


def test_immediate_win_is_plus_one():
    # X to move (5 empty cells) completes the top row at 2; anything else lets O complete row 2 at 5.
    board = parse("XX. OO. ...")
    assert value(board) == 1
    assert optimal_moves(board) == [2]


def test_fork_is_lost_for_the_player_to_move():
    # O to move (4 empty cells). X threatens the top row (needs 1) and the left column (needs 3);
    # O has no line of its own to finish (0-4-8 holds an X), and one move blocks only one threat.
    board = parse("X.X .O. X.O")
    assert value(board) == -1
    assert optimal_moves(board) == legal_moves(board)  # every move loses, so all are "optimal"


def test_edge_reply_to_a_corner_opening_loses():
    # X opened in a corner and O answered on an adjacent edge; X to move has no immediate win but
    # forces one: X 4 threatens 8, O must block there, and X 6 then threatens both 3 and 2 (a fork).
    board = parse("XO. ... ...")
    assert value(board) == 1
    assert 4 in optimal_moves(board)


def test_finished_boards():
    won_by_x = parse("XXX OO. ...")
    full_draw = parse("XOX XOO OXX")
    assert value(won_by_x) == -1  # O is to move but the game is lost
    assert value(full_draw) == 0
    assert optimal_moves(won_by_x) == [] and optimal_moves(full_draw) == []


def test_reachable_positions_count():
    positions = reachable_positions()
    assert len(positions) == 5478
    assert EMPTY_BOARD in positions


def test_random_vs_random_exact():
    assert random_vs_random() == {"win": Fraction(737, 1260), "draw": Fraction(8, 63), "loss": Fraction(121, 420)}
    assert exact_outcome_vs_random(None, "O") == {
        "win": Fraction(121, 420),
        "draw": Fraction(8, 63),
        "loss": Fraction(737, 1260),
    }


def test_best_x_against_random_wins_191_of_192_and_never_loses():
    assert best_win_probability_vs_random("X") == Fraction(191, 192)
    assert best_outcome_vs_random("X") == {"win": Fraction(191, 192), "draw": Fraction(1, 192), "loss": 0}
    best_x = ExpectimaxAgent()
    assert exact_outcome_vs_random(best_x, "X") == best_outcome_vs_random("X")
    assert never_loses_vs_perfect(best_x, "X")


def test_best_o_against_random_trades_safety_for_wins():
    assert best_outcome_vs_random("O", "win") == {
        "win": Fraction(887, 945),
        "draw": Fraction(43, 945),
        "loss": Fraction(1, 63),
    }
    assert best_outcome_vs_random("O", "safe") == {"win": Fraction(866, 945), "draw": Fraction(79, 945), "loss": 0}
    assert not never_loses_vs_perfect(ExpectimaxAgent("win"), "O")
    assert never_loses_vs_perfect(ExpectimaxAgent("safe"), "O")


@pytest.mark.parametrize(
    ("seat", "kind", "expected"),
    [("X", "q", 8631), ("X", "afterstate", 2739), ("O", "q", 7536), ("O", "afterstate", 2738)],
)
def test_reachable_key_counts(seat, kind, expected):
    assert count_reachable_keys(seat, kind) == expected


@pytest.mark.parametrize("seat", ["X", "O"])
def test_perfect_agent_never_loses_to_random(seat):
    perfect = uniform_over(PerfectAgent().choices)
    assert exact_outcome(perfect, uniform_random, seat)["loss"] == 0
    assert exact_outcome(uniform_perfect, uniform_random, seat)["loss"] == 0


def test_perfect_against_perfect_always_draws():
    assert exact_outcome(uniform_perfect, uniform_perfect, "X") == {"win": 0, "draw": 1, "loss": 0}


@pytest.mark.parametrize("seat", ["X", "O"])
def test_perfect_agent_as_env_opponent_is_never_beaten(seat):
    env = TicTacToeEnv(opponent=PerfectAgent(), seat=seat)
    learner, rng = RandomAgent(), random.Random(0)
    for episode in range(50):
        board, _info = env.reset(seed=episode)
        done = False
        while not done:
            board, reward, done, _truncated, _info = env.step(learner.act(board, env.legal_actions(), rng))
        assert reward <= 0.0


def test_perfect_agent_picks_among_optimal_moves_with_module_random():
    board = parse("XX. OO. ...")
    assert PerfectAgent().act(board, legal_moves(board)) == 2


@pytest.mark.parametrize("seat", ["X", "O"])
def test_greedy_agent_on_minimax_values_never_loses(seat):
    agent = minimax_greedy_agent()
    assert never_loses_vs_perfect(agent, seat)
    assert exact_outcome_vs_random(agent, seat)["loss"] == 0


class FirstCellAgent:
    """Always plays the first empty cell."""

    def act(self, board, legal_actions, rng=None):
        return legal_actions[0]


def test_losing_lines_are_found():
    agent = FirstCellAgent()
    assert exact_outcome(deterministic(agent), uniform_perfect, "X")["loss"] > 0
    lines = losing_lines_vs_perfect(agent, "X")
    assert lines and not never_loses_vs_perfect(agent, "X")
    assert all(len(line) % 2 == 0 for line in lines)  # O completes its line on an even-numbered move
    assert (0, 4, 1, 2, 3, 6) in lines  # X 0, 1, 3 along the top and left; O blocks at 2 and wins 2-4-6
