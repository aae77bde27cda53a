"""Plain-Python SARSA on tic-tac-toe: the baseline the framework is measured against.

A dict keyed by (board tuple, cell), a uniform random opponent, epsilon-greedy with random
tie-breaking and the course's exponential epsilon schedule; no framework, no logging.
"""

from __future__ import annotations

import math
import random
import sys

LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6))
LINES_THROUGH = tuple(tuple(line for line in LINES if cell in line) for cell in range(9))


def wins(board: list[int], cell: int) -> bool:
    """Whether the mark just placed on `cell` completes a line."""
    mark = board[cell]
    return any(board[a] == mark and board[b] == mark and board[c] == mark for a, b, c in LINES_THROUGH[cell])


def train(episodes: int, seed: int = 0, gamma: float = 0.9, alpha: float = 0.1) -> dict:
    """Run SARSA for `episodes` games as X against a random O; return the Q dict."""
    rng = random.Random(seed)
    q: dict = {}

    def choose(state: tuple, epsilon: float) -> int:
        legal = [i for i in range(9) if state[i] == 0]
        if rng.random() < epsilon:
            return legal[rng.randrange(len(legal))]
        values = [q.get((state, a), 0.0) for a in legal]
        best = max(values)
        ties = [a for a, v in zip(legal, values, strict=True) if v == best]
        return ties[0] if len(ties) == 1 else rng.choice(ties)

    for episode in range(episodes):
        epsilon = 0.01 + (1.0 - 0.01) * math.exp(-episode / 10000)
        board = [0] * 9
        state = tuple(board)
        action = choose(state, epsilon)
        while True:
            board[action] = 1
            key = (state, action)
            old = q.get(key, 0.0)
            if wins(board, action):
                q[key] = old + alpha * (1.0 - old)
                break
            empty = [i for i in range(9) if board[i] == 0]
            if not empty:
                q[key] = old + alpha * (0.0 - old)
                break
            reply = empty[rng.randrange(len(empty))]
            board[reply] = -1
            if wins(board, reply):
                q[key] = old + alpha * (-1.0 - old)
                break
            if len(empty) == 1:
                q[key] = old + alpha * (0.0 - old)
                break
            state = tuple(board)
            next_action = choose(state, epsilon)
            q[key] = old + alpha * (gamma * q.get((state, next_action), 0.0) - old)
            action = next_action
    return q


if __name__ == "__main__":
    print("plain_sarsa.py is a module of tictactoe_speed.py"
          "; run python bench/tictactoe_speed.py --help", file=sys.stderr)
    sys.exit(2)
