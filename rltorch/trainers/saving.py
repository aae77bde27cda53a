"""A trainer's data-only checkpoint: `checkpoint()`, `restore()`, `save()` and `Trainer.load()`."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import gymnasium as gym

from rltorch.checkpoint_data import (
    env_rng_state,
    plain_config,
    random_state,
    schedule_from_data,
    schedule_to_data,
    set_env_rng_state,
)
from rltorch.checkpoints import check_resumable, save_checkpoint
from rltorch.trainers.stats import Block

if TYPE_CHECKING:
    from rltorch.trainers.base import Trainer


class Checkpointing:
    """What `Trainer` saves and puts back: everything to play or resume, as data (`weights_only=True` reads it)."""

    def checkpoint(self) -> dict[str, Any]:
        """Everything needed to play or resume, as data that `torch.load(..., weights_only=True)` reads.

        The config; the value function's `config()`, `state_dict()` and `training_state()` (an optimizer's, a
        network's logging sums); episodes and steps done; the sums of the unfinished logging block; the schedule;
        the trainer's generator and the training and evaluation envs' random states. `rltorch.load` rebuilds the
        agent from it, `restore` puts it back into a trainer.
        A network's tensors share storage with it, as `state_dict()`'s do: save or copy before training on.
        """
        return {
            "config": plain_config(self.config()),
            "value_fn_config": self.value_fn.config(),
            "value_fn_state": self.value_fn.state_dict(),
            "value_fn_training_state": self.value_fn.training_state(),
            "episodes": self.episodes_done,
            "steps": self.steps_done,
            "block": self._block.to_data(),
            "schedule": schedule_to_data(self.schedule),
            "rng_state": self.rng.getstate(),
            "env_rng": env_rng_state(self.env),
            "eval_env_rng": env_rng_state(self.eval_env),
        }

    def restore(self, checkpoint: dict[str, Any]) -> Trainer:
        """Put a `checkpoint()` (e.g. from `load_checkpoint`) back into this trainer, built with the same arguments.

        Training on then gives bit for bit what training straight through would have given.
        """
        check_resumable(checkpoint, plain_config(self.config()), self.value_fn.config())
        self.value_fn.load_state_dict(checkpoint["value_fn_state"])
        self.value_fn.load_training_state(checkpoint.get("value_fn_training_state", {}))
        self.episodes_done, self.steps_done = int(checkpoint["episodes"]), int(checkpoint.get("steps", 0))
        self._set_block(Block.from_data(checkpoint.get("block"), self.is_game))
        self.schedule = schedule_from_data(checkpoint["schedule"], default=self.schedule)
        self.rng.setstate(random_state(checkpoint["rng_state"]))
        set_env_rng_state(self.env, checkpoint["env_rng"])
        set_env_rng_state(self.eval_env, checkpoint["eval_env_rng"])
        return self

    @classmethod
    def load(cls, path: str | Path, env: gym.Env, **kwargs: Any) -> Trainer:
        """A trainer of this class on `env`, continuing the checkpoint at `path` (Stable-Baselines3's `Model.load`).

        The value function, keys, discount and seed come from the checkpoint (read as data); `kwargs` are the
        class's own settings (e.g. `n=4`) and anything else of the constructor's (`eval_env`, `exact_eval`).
        """
        from rltorch.checkpoints import keys_from_config, load_checkpoint, value_fn_from_checkpoint

        checkpoint = load_checkpoint(path)
        config = checkpoint["config"]
        trainer = cls(env, value_fn_from_checkpoint(checkpoint, path).train(), keys=keys_from_config(config, path),
                      gamma=float(config["gamma"]), seed=int(config["seed"]), **kwargs)
        return trainer.restore(checkpoint)

    def save(self, path: str | Path) -> Path:
        """Save the checkpoint atomically with `torch.save` (data only: it loads with `weights_only=True`)."""
        return save_checkpoint(path, self.checkpoint())
