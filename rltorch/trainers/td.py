"""Temporal-difference trainers: SARSA, Q-learning, Expected SARSA and Double Q-learning, in the book's order."""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

from rltorch.targets import double_q_learning_target, expected_sarsa_target, q_learning_target, sarsa_target
from rltorch.trainers.base import Trainer
from rltorch.values.base import ValueFunction
from rltorch.values.double import DoubleQ


class OneStepTrainer(Trainer):
    """The loop of Q-learning and its relatives: choose A in S, take it, then `learn_step` from (S, A, R, S').

    A subclass overrides only `learn_step`, the part where the algorithms differ.
    """

    def run_episode(self, epsilon: float) -> float:
        """Play one episode, learning after every step."""
        state, _ = self.env.reset()
        total = 0.0
        while True:
            action, key = self.choose(state, epsilon)
            next_state, reward, terminated, truncated, _ = self.step(action)
            total += reward
            self.learn_step(state, action, key, reward, next_state, terminated, epsilon)
            if terminated or truncated:
                return total
            state = next_state

    def learn_step(self, state: Hashable, action: int, key: Hashable, reward: float, next_state: Hashable,
                   terminated: bool, epsilon: float) -> None:
        """Learn from one transition; `next_state`'s legal actions are still the env's `legal_actions()`."""
        raise NotImplementedError


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
            state, reward, terminated, truncated, _ = self.step(action)
            total += reward
            if terminated:
                self.learn(key, sarsa_target(reward, 0.0, gamma, True))
                return total
            action, next_key = self.choose(state, epsilon)
            self.learn(key, sarsa_target(reward, self.value_fn.value(next_key), gamma, False))
            if truncated:
                return total
            key = next_key


class QLearningTrainer(OneStepTrainer):
    """Off-policy TD control: update Q(S, A) toward R + gamma max_a Q(S', a), then choose in S'.

    Its episode is `OneStepTrainer`'s loop with the per-step lookups bound once and each state's keys
    computed once (for speed); `learn_step` is the same update for subclasses and readers.
    """

    algorithm = "qlearning"

    def run_episode(self, epsilon: float) -> float:
        """Play one episode, updating after every step."""
        keys, legal_actions, values, gamma = self.keys, self.legal_actions, self.value_fn.values, self.gamma
        learn, choose_among = self.learn, self.choose_among
        state, _ = self.env.reset()
        legal = legal_actions()
        state_keys = keys(state, legal)
        total = 0.0
        while True:
            action, key = choose_among(legal, state_keys, epsilon)
            state, reward, terminated, truncated, _ = self.step(action)
            total += reward
            next_values: list[float] | tuple = ()
            if not terminated:
                legal = legal_actions()
                if not legal:
                    raise self._bad_transition(None, "offers no legal action", "a state that goes on needs an action")
                state_keys = keys(state, legal)
                next_values = values(state_keys)
            learn(key, q_learning_target(reward, next_values, gamma, terminated))
            if terminated or truncated:
                return total

    def learn_step(self, state: Hashable, action: int, key: Hashable, reward: float, next_state: Hashable,
                   terminated: bool, epsilon: float) -> None:
        """Update toward R + gamma max_a Q(S', a) (R at the end)."""
        next_values = () if terminated else self.state_values(next_state)
        self.learn(key, q_learning_target(reward, next_values, self.gamma, terminated))


class ExpectedSARSATrainer(OneStepTrainer):
    """Expected SARSA (section 6.6): update Q(S, A) toward R + gamma sum_a pi(a|S') Q(S', a), pi epsilon-greedy."""

    algorithm = "expected-sarsa"

    def learn_step(self, state: Hashable, action: int, key: Hashable, reward: float, next_state: Hashable,
                   terminated: bool, epsilon: float) -> None:
        """Update toward the expectation under this episode's epsilon."""
        self.learn(key, self.expected_target(reward, next_state, terminated, epsilon))

    def expected_target(self, reward: float, next_state: Hashable, terminated: bool, epsilon: float) -> float:
        """R + gamma sum_a pi(a|S') Q(S', a) over the legal a in S' (ties share the greedy mass), or R at the end."""
        if terminated:
            return reward
        return expected_sarsa_target(reward, self.state_values(next_state), epsilon, self.gamma, False)


class DoubleQLearningTrainer(OneStepTrainer):
    """Double Q-learning (section 6.7): a fair coin picks Q1 or Q2 to update, the other valuing the picked one's argmax.

    The value function is a `DoubleQ` (any other table or network is paired with a fresh one of its kind):
    acting is epsilon-greedy in Q1 + Q2, and ties in the target's argmax break at random, as acting's do (a
    first-index argmax biases Figure 6.5: all-zero tables tie on every first visit). Over two networks this is
    Double DQN kept simple (see `DoubleQ`).
    """

    algorithm = "double-qlearning"

    def __init__(self, env: Any, value_fn: ValueFunction, *args: Any, **kwargs: Any) -> None:
        super().__init__(env, value_fn if isinstance(value_fn, DoubleQ) else DoubleQ.pair(value_fn), *args, **kwargs)

    def learn_step(self, state: Hashable, action: int, key: Hashable, reward: float, next_state: Hashable,
                   terminated: bool, epsilon: float) -> None:
        """Update one of the two estimates."""
        next_keys = [] if terminated else self.keys(next_state, self.legal_actions())
        self.learn_one_half(key, reward, next_keys, terminated)

    def learn_one_half(self, key: Hashable, reward: float, next_keys: list[Hashable], terminated: bool) -> None:
        """Heads (probability 1/2): Q1(S,A) moves toward R + gamma Q2(S', argmax_a Q1(S', a)); tails: the mirror.

        The draws, in order: the coin, then (only where the argmax is a tie) the tied action, both from `self.rng`.
        """
        index = 0 if self.rng.random() < 0.5 else 1
        own, other = self.value_fn.parts[index], self.value_fn.parts[1 - index]
        own_values, other_values = (own.values(next_keys), other.values(next_keys)) if next_keys else ((), ())
        target = double_q_learning_target(reward, own_values, other_values, self.gamma, terminated, self.rng)
        self._td_errors.append(self.value_fn.update_part(index, key, target))
