"""2048 in the terminal: a person slides with w a s d (or the arrows' names), or watches an agent play."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rltorch.envs.game2048.env import Game2048Env, render_board
from rltorch.envs.game2048.rules import ACTION_NAMES, DOWN, LEFT, RIGHT, UP

KEYS = {"w": UP, "up": UP, "d": RIGHT, "right": RIGHT, "s": DOWN, "down": DOWN, "a": LEFT, "left": LEFT}
QUIT_WORDS = {"q", "quit", "exit"}


def parse_move(text: str, legal: list[int]) -> int | str:
    """The slide that `text` names and that is legal now, or a message saying why not."""
    word = text.strip().lower()
    if word not in KEYS:
        return f"'{text.strip()}' is not a move: type w (up), a (left), s (down), d (right), or q to quit"
    action = KEYS[word]
    if action not in legal:
        return f"sliding {ACTION_NAMES[action]} changes nothing"
    return action


class TerminalGame:
    """One game of 2048 on the terminal, played by a person (`ask`) or watched (`agent.act`)."""

    def __init__(self, size: int, agent: Any = None, ask: Callable[[str], str] = input,
                 say: Callable[[str], None] = print, seed: int | None = None) -> None:
        self.env = Game2048Env(size)
        self.agent, self.ask, self.say, self.seed = agent, ask, say, seed

    def person_move(self, legal: list[int]) -> int | None:
        """Ask until the person names a legal slide; None when they quit (q or end of input)."""
        while True:
            try:
                text = self.ask("your move (w a s d; q quits): ")
            except EOFError:
                return None
            if text.strip().lower() in QUIT_WORDS:
                return None
            parsed = parse_move(text, legal)
            if isinstance(parsed, int):
                return parsed
            self.say(parsed)

    def run(self, watch: bool = False) -> int:
        """Play until the game ends or the person quits; return the score."""
        if watch and self.agent is None:
            raise ValueError("watching needs an agent")
        board, _ = self.env.reset(seed=self.seed)
        score, done = 0, False
        while not done:
            self.say(render_board(board) + f"score {score}")
            legal = self.env.legal_actions()
            action = self.agent.act(board, legal) if watch else self.person_move(legal)
            if action is None:
                self.say("bye")
                return score
            if watch:
                self.say(f"the agent slides {ACTION_NAMES[action]}")
            board, reward, done, _, _ = self.env.step(action)
            score += int(reward)
        self.say(render_board(board) + f"game over: score {score}, largest tile {1 << max(board)}")
        return score
