"""Temporal-difference trainers: SARSA, Q-learning, Expected SARSA and Double Q-learning, in the book's order."""

from __future__ import annotations

import copy
from collections.abc import Hashable, Sequence
from typing import Any

from rltorch.targets import double_q_learning_target, expected_sarsa_target, q_learning_target, sarsa_target
from rltorch.trainers.base import Trainer
from rltorch.trainers.replay import ReplayBuffer, Transition
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


def batch_q_targets(batch: Sequence[Transition], value_fn: ValueFunction, gamma: float) -> list[float]:
    """Q-learning targets of a batch, reading every next key's value in one call."""
    flat = [key for _, _, _, next_keys in batch for key in next_keys]
    values = value_fn.values(flat) if flat else []
    targets, start = [], 0
    for _, reward, terminated, next_keys in batch:
        end = start + len(next_keys)
        targets.append(q_learning_target(reward, values[start:end], gamma, terminated))
        start = end
    return targets


class QLearningTrainer(OneStepTrainer):
    """Off-policy TD control: update Q(S, A) toward R + gamma max_a Q(S', a), then choose in S'.

    The step to DQN, both off by default: `replay_size` > 0 keeps a replay buffer and fits a
    minibatch of `batch_size` sampled transitions each step; `target_update_every` > 0 reads the
    bootstrap values from a frozen copy refreshed every that many fits.
    """

    algorithm = "qlearning"

    def __init__(self, *args, replay_size: int = 0, batch_size: int = 32, target_update_every: int = 0,
                 **kwargs) -> None:
        super().__init__(*args, **kwargs)
        if replay_size < 0 or batch_size < 1 or target_update_every < 0:
            raise ValueError("replay_size and target_update_every must be >= 0 and batch_size >= 1")
        self.replay = ReplayBuffer(replay_size) if replay_size else None
        self.batch_size = batch_size
        self.target_update_every = target_update_every
        self.target_fn = copy.deepcopy(self.value_fn) if target_update_every else self.value_fn
        self.fits = 0

    def run_episode(self, epsilon: float) -> float:
        """Play one episode, updating after every step."""
        if self.replay is None and self.target_fn is self.value_fn:
            return self._run_plain_episode(epsilon)
        return super().run_episode(epsilon)

    def learn_step(self, state: Hashable, action: int, key: Hashable, reward: float, next_state: Hashable,
                   terminated: bool, epsilon: float) -> None:
        """Learn from the transition (or from a replayed minibatch)."""
        next_keys = [] if terminated else self.keys(next_state, self.legal_actions())
        self.learn_transition((key, reward, terminated, next_keys))

    def _run_plain_episode(self, epsilon: float) -> float:
        """The same episode without replay or a target copy, with the per-step lookups bound once (for speed)."""
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
                state_keys = keys(state, legal)
                next_values = values(state_keys)
            learn(key, q_learning_target(reward, next_values, gamma, terminated))
            self.fits += 1
            if terminated or truncated:
                return total

    def learn_transition(self, transition: Transition) -> None:
        """Learn from the newest transition, or from a replayed minibatch; refresh the target copy."""
        if self.replay is None:
            key, reward, terminated, next_keys = transition
            next_values = self.target_fn.values(next_keys) if next_keys else ()
            self.learn(key, q_learning_target(reward, next_values, self.gamma, terminated))
        else:
            self.replay.add(transition)
            batch = self.replay.sample(self.batch_size, self.rng)
            errors = self.value_fn.fit([key for key, *_ in batch], batch_q_targets(batch, self.target_fn, self.gamma))
            self._td_errors.extend(errors.tolist())
        self.fits += 1
        if self.target_update_every and self.fits % self.target_update_every == 0:
            self.target_fn = copy.deepcopy(self.value_fn)

    def checkpoint(self) -> dict:
        """The base checkpoint, with the replay buffer's transitions, the target copy's state and the fit count."""
        return {**super().checkpoint(), "qlearning": {
            "fits": self.fits,
            "replay": None if self.replay is None else list(self.replay.transitions),
            "target_state": None if self.target_fn is self.value_fn else self.target_fn.state_dict(),
        }}

    def restore(self, checkpoint: dict) -> QLearningTrainer:
        """Put the base state back, then the replay buffer, the target copy and the fit count."""
        super().restore(checkpoint)
        state = checkpoint.get("qlearning", {})
        self.fits = int(state.get("fits", 0))
        if self.replay is not None:
            self.replay.transitions.clear()
            self.replay.transitions.extend((key, reward, terminated, list(next_keys))
                                           for key, reward, terminated, next_keys in state.get("replay") or ())
        if self.target_fn is not self.value_fn:
            target = state.get("target_state")
            self.target_fn.load_state_dict(target if target is not None else checkpoint["value_fn_state"])
        return self

    def config(self) -> dict:
        """The settings, with the DQN options."""
        replay = self.replay.transitions.maxlen if self.replay else 0
        return {**super().config(), "replay_size": replay, "batch_size": self.batch_size,
                "target_update_every": self.target_update_every}


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
