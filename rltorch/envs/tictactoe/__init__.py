"""Tic-tac-toe: the env and its rules, opponents, exact solvers and evaluation, encoder and terminal play."""

from rltorch.envs.tictactoe.env import (
    EMPTY,
    LINES,
    SEATS,
    Board,
    O,
    TicTacToeEnv,
    X,
    afterstate,
    legal_moves,
    render_board,
    to_move,
    winner,
)

__all__ = [
    "EMPTY", "LINES", "O", "SEATS", "X", "Board", "TicTacToeEnv", "afterstate",
    "legal_moves", "render_board", "to_move", "winner",
]
