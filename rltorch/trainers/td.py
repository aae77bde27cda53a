"""Temporal-difference trainers: SARSA and Q-learning, each in the book's order of steps."""

from __future__ import annotations

from rltorch.targets import q_learning_target, sarsa_target
from rltorch.trainers.base import Trainer


class SARSATrainer(Trainer):
    """On-policy TD control: choose A' in S' epsilon-greedily, then update Q(S, A) toward R + gamma Q(S', A')."""

    algorithm = "sarsa"

    def run_episode(self, epsilon: float) -> float:
        """Play one episode, updating after every step."""
        env, gamma = self.env, self.gamma
        state, _ = env.reset()
        action, key = self.choose(state, epsilon)
        total = 0.0
        while True:
            state, reward, terminated, truncated, _ = env.step(action)
            total += reward
            if terminated:
                self.learn(key, sarsa_target(reward, 0.0, gamma, True))
                return total
            action, next_key = self.choose(state, epsilon)
            self.learn(key, sarsa_target(reward, self.value_fn.value(next_key), gamma, False))
            if truncated:
                return total
            key = next_key


class QLearningTrainer(Trainer):
    """Off-policy TD control: update Q(S, A) toward R + gamma max_a Q(S', a), then choose in S'."""

    algorithm = "qlearning"

    def run_episode(self, epsilon: float) -> float:
        """Play one episode, updating after every step."""
        env, gamma = self.env, self.gamma
        state, _ = env.reset()
        total = 0.0
        while True:
            action, key = self.choose(state, epsilon)
            state, reward, terminated, truncated, _ = env.step(action)
            total += reward
            if terminated:
                self.learn(key, q_learning_target(reward, (), gamma, True))
                return total
            self.learn(key, q_learning_target(reward, self.state_values(state), gamma, False))
            if truncated:
                return total
