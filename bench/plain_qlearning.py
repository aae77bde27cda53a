"""Plain-Python Q-learning on a Gymnasium env: the loop a Gymnasium user writes, the baseline for rltorch.

A `defaultdict` Q-table keyed by (state, action), epsilon-greedy over all actions with random
tie-breaking from `random.Random(seed)`, constant alpha, gamma and epsilon, and the ordinary
`env.step` through the wrappers `gym.make` adds. No framework, no logging.
The random draws are the ones `QLearningTrainer` makes, in the same order, so with the same env
seed both play the same episodes (see `toytext_speed.py`, which checks the step counts agree).
"""

from __future__ import annotations

import random
import sys
from collections import defaultdict

import gymnasium as gym


def train(env_id: str, episodes: int, seed: int = 0, alpha: float = 0.1, gamma: float = 0.99,
          epsilon: float = 0.1) -> tuple[dict, int]:
    """Run Q-learning on `gym.make(env_id)` for `episodes` episodes; return the Q dict and the env steps taken."""
    env = gym.make(env_id)
    rng = random.Random(seed)
    num_actions = int(env.action_space.n)
    actions = range(num_actions)
    q: defaultdict = defaultdict(float)
    steps = 0
    env.reset(seed=seed)
    for _ in range(episodes):
        state, _ = env.reset()
        while True:
            if rng.random() < epsilon:
                action = rng.randrange(num_actions)
            else:
                values = [q[state, a] for a in actions]
                best = max(values)
                ties = [a for a in actions if values[a] == best]
                action = ties[0] if len(ties) == 1 else ties[rng.randrange(len(ties))]
            next_state, reward, terminated, truncated, _ = env.step(action)
            steps += 1
            target = reward if terminated else reward + gamma * max(q[next_state, a] for a in actions)
            q[state, action] += alpha * (target - q[state, action])
            if terminated or truncated:
                break
            state = next_state
    env.close()
    return q, steps


if __name__ == "__main__":
    print("plain_qlearning.py is a module of toytext_speed.py"
          "; run python bench/toytext_speed.py --help", file=sys.stderr)
    sys.exit(2)
