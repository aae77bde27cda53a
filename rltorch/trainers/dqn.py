"""DQN as rltorch has it: Q-learning with a replay buffer and a frozen target copy (Mnih et al. 2015, kept small)."""

from __future__ import annotations

import copy
from collections.abc import Hashable, Sequence
from typing import Any, ClassVar

import gymnasium as gym

from rltorch.options import Option
from rltorch.targets import q_learning_target
from rltorch.trainers.replay import Experience, ReplayBuffer
from rltorch.trainers.td import OneStepTrainer
from rltorch.values.base import ValueFunction


def batch_q_targets(batch: Sequence[Experience], value_fn: ValueFunction, gamma: float) -> list[float]:
    """Q-learning targets of a batch, reading every next key's value in one call."""
    flat = [key for _, _, _, next_keys in batch for key in next_keys]
    values = value_fn.values(flat) if flat else []
    targets, start = [], 0
    for _, reward, terminated, next_keys in batch:
        end = start + len(next_keys)
        targets.append(q_learning_target(reward, values[start:end], gamma, terminated))
        start = end
    return targets


class DQNTrainer(OneStepTrainer):
    """Q-learning with experience replay and a target copy, each optional.

    `replay_size` > 0 keeps the last transitions and fits a minibatch of `batch_size` sampled ones (with
    replacement, from the trainer's generator) after each step; `target_update_every` > 0 reads the bootstrap
    values from a frozen copy of the value function refreshed every that many fits. With both 0 it is
    Q-learning, one fit per step.
    """

    algorithm = "dqn"
    options: ClassVar[tuple[Option, ...]] = (
        Option("replay_size", int, 10_000, "DQN: replay the last N transitions in minibatches (0: off)",
               minimum=0, maximum=10**8),
        Option("batch_size", int, 32, "DQN: minibatch size (at most --replay-size)", minimum=1, maximum=10**6),
        Option("target_update_every", int, 500, "DQN: bootstrap from a frozen copy refreshed every K fits (0: off)",
               minimum=0, maximum=10**12),
    )

    @classmethod
    def arguments(cls, settings: dict[str, Any], env: gym.Env) -> dict[str, Any]:
        """The declared options, a minibatch no larger than the buffer it is drawn from."""
        found = super().arguments(settings, env)
        if found["replay_size"] and found["batch_size"] > found["replay_size"]:
            raise ValueError(f"--batch-size {found['batch_size']:,} is larger than --replay-size "
                             f"{found['replay_size']:,}: a minibatch is drawn from the replay buffer, so it can be "
                             "at most that size")
        return found

    def __init__(self, *args: Any, replay_size: int = 10_000, batch_size: int = 32, target_update_every: int = 500,
                 **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if replay_size < 0 or batch_size < 1 or target_update_every < 0:
            raise ValueError("replay_size and target_update_every must be >= 0 and batch_size >= 1")
        self.replay = ReplayBuffer(replay_size) if replay_size else None
        self.batch_size = batch_size
        self.target_update_every = target_update_every
        self.target_fn = copy.deepcopy(self.value_fn) if target_update_every else self.value_fn
        self.fits = 0

    def learn_step(self, state: Hashable, action: int, key: Hashable, reward: float, next_state: Hashable,
                   terminated: bool, epsilon: float) -> None:
        """Learn from the transition (or from a replayed minibatch)."""
        next_keys = [] if terminated else self.keys(next_state, self.legal_actions())
        self.learn_transition((key, reward, terminated, next_keys))

    def learn_transition(self, transition: Experience) -> None:
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
        return {**super().checkpoint(), "dqn": {
            "fits": self.fits,
            "replay": None if self.replay is None else list(self.replay.transitions),
            "target_state": None if self.target_fn is self.value_fn else self.target_fn.state_dict(),
        }}

    def restore(self, checkpoint: dict) -> DQNTrainer:
        """Put the base state back, then the replay buffer, the target copy and the fit count."""
        super().restore(checkpoint)
        state = checkpoint.get("dqn", {})
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
