"""A terminal game of tic-tac-toe against a trained agent."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rltorch.envs.tictactoe.env import X, afterstate, legal_moves, render_board, winner

QUIT_WORDS = {"q", "quit", "exit"}


class QuitGame(Exception):
    """The human asked to stop (q, or end of input)."""


def parse_cell(text: str, board: tuple[int, ...]) -> int | str:
    """The cell index 0..8 that `text` names ('1'-'9' or 'row,col' from 1), or an error message."""
    text = text.strip().lower()
    if "," in text:
        parts = text.split(",")
        if len(parts) != 2 or not all(p.strip().isascii() and p.strip().isdigit() for p in parts):
            return f"'{text}' is not a row,col pair such as 2,3"
        row, col = (int(p) for p in parts)
        if not (1 <= row <= 3 and 1 <= col <= 3):
            return "rows and columns run from 1 to 3"
        cell = 3 * (row - 1) + (col - 1)
    elif text.isascii() and text.isdigit():
        cell = int(text) - 1
        if not 0 <= cell <= 8:
            return f"{text} is out of range: choose a cell from 1 to 9"
    else:
        return f"'{text}' is not a cell: type 1-9, row,col, or q to quit"
    if board[cell] != 0:
        return f"cell {cell + 1} is taken"
    return cell


class TerminalGame:
    """Plays games between a human (reading `ask`, writing `say`) and an agent with `act(board, legal)`."""

    def __init__(self, agent: Any, ask: Callable[[str], str] = input, say: Callable[[str], None] = print) -> None:
        self.agent = agent
        self.ask = ask
        self.say = say

    def prompt(self, question: str) -> str:
        """Ask, turning end of input and the quit words into `QuitGame`."""
        try:
            answer = self.ask(question)
        except EOFError:
            raise QuitGame from None
        if answer.strip().lower() in QUIT_WORDS:
            raise QuitGame
        return answer

    def human_move(self, board: tuple[int, ...]) -> int:
        """Ask until the human names an empty cell."""
        while True:
            parsed = parse_cell(self.prompt("your move (1-9 or row,col; q quits): "), board)
            if isinstance(parsed, int):
                return parsed
            self.say(parsed)

    def play_one(self, human: int) -> int:
        """Play one game with the human on mark `human`; return the winning mark (0: draw)."""
        board = (0,) * 9
        while winner(board) == 0 and 0 in board:
            if (board.count(0) % 2 == 1) == (human == X):
                self.say(render_board(board))
                move = self.human_move(board)
            else:
                move = self.agent.act(board, legal_moves(board))
                self.say(f"agent plays {move + 1}")
            board = afterstate(board, move)
        self.say(render_board(board))
        return winner(board)

    def run(self, seat: str | None = None) -> None:
        """Offer games until the human declines or quits."""
        try:
            while True:
                chosen = seat or self.choose_seat()
                human = X if chosen == "X" else -X
                result = self.play_one(human)
                self.say("draw" if result == 0 else ("you win!" if result == human else "the agent wins"))
                if self.prompt("play again? [y/n] ").strip().lower() not in {"y", "yes", ""}:
                    break
        except QuitGame:
            pass
        self.say("bye")

    def choose_seat(self) -> str:
        """Ask the human for X (moves first) or O."""
        while True:
            answer = self.prompt("play X (moves first) or O? ").strip().upper()
            if answer in {"X", "O"}:
                return answer
            self.say("type X or O")
