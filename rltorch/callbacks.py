"""Callbacks: what happens at the episode boundaries of `Trainer.train`, as a list (Stable-Baselines3's idea).

The loop runs episodes in blocks and logs each block's means at every multiple of `log_every`, counted
from episode 0 (and at the last episode asked for). A callback with `every > 0` also makes the loop stop
at every multiple of `every` and is called there; one with `every == 0` is called at the logged blocks.
`on_block` returning False stops training, as does `on_eval` (called after an evaluation with its scalars).
Evaluation, the progress bar, self-play refresh and periodic checkpoints are callbacks; so is any
function of the trainer (`FunctionCallback`).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tqdm import tqdm

if TYPE_CHECKING:
    from rltorch.trainers.base import Trainer


class Callback:
    """One thing to do at episode boundaries; override the hooks you need."""

    every = 0  # episodes between calls of `on_block` (0: at every logged block)

    def on_start(self, trainer: Trainer, end: int) -> None:
        """Training starts; it will stop at episode `end` at the latest."""

    def on_block(self, trainer: Trainer) -> bool | None:
        """A boundary of this callback; return False to stop training."""

    def on_eval(self, trainer: Trainer, scalars: dict[str, float]) -> bool | None:
        """An evaluation has just been logged with `scalars`; return False to stop training."""

    def on_end(self, trainer: Trainer) -> None:
        """Training has stopped (at `end`, or earlier)."""

    def due(self, episode: int, logged: bool) -> bool:
        """Whether `on_block` is called at `episode` (a boundary; `logged`: a block was logged there)."""
        return episode % self.every == 0 if self.every else logged


class FunctionCallback(Callback):
    """`function(trainer)` at every logged block (returning False stops)."""

    def __init__(self, function: Callable[[Trainer], bool | None]) -> None:
        self.function = function

    def on_block(self, trainer: Trainer) -> bool | None:
        """Call the function."""
        return self.function(trainer)


class Evaluation(Callback):
    """`trainer.log_evaluation(games)` at every multiple of `every` episodes: greedy test games and exact figures."""

    def __init__(self, every: int, games: int) -> None:
        if every < 1 or games < 1:
            raise ValueError(f"evaluations need every >= 1 and games >= 1, got {every} and {games}")
        self.every, self.games = every, games

    def on_block(self, trainer: Trainer) -> bool | None:
        """Evaluate and log; the trainer tells every callback's `on_eval`."""
        trainer.log_evaluation(self.games)
        return None


class ProgressBar(Callback):
    """A tqdm bar over the episodes of one `train` call, showing the last block's return, epsilon and win rate."""

    def __init__(self) -> None:
        self.bar: tqdm | None = None
        self.shown = 0

    def on_start(self, trainer: Trainer, end: int) -> None:
        """Open the bar."""
        self.shown = trainer.episodes_done
        self.bar = tqdm(total=end - self.shown, unit="ep", dynamic_ncols=True)

    def on_block(self, trainer: Trainer) -> None:
        """Advance the bar and show the block's means."""
        if self.bar is None:
            return
        self.bar.update(trainer.episodes_done - self.shown)
        self.shown = trainer.episodes_done
        scalars = trainer.last_block
        postfix = {"return": f"{scalars['train/return']:.2f}"} if "train/return" in scalars else {}
        if "train/epsilon" in scalars:
            postfix["eps"] = f"{scalars['train/epsilon']:.3f}"
        if "train/win_rate" in scalars:
            postfix["win"] = f"{scalars['train/win_rate']:.2f}"
        self.bar.set_postfix(postfix, refresh=False)

    def on_end(self, trainer: Trainer) -> None:
        """Count the episodes since the last block and close the bar."""
        if self.bar is not None:
            self.bar.update(trainer.episodes_done - self.shown)
            self.bar.close()
            self.bar = None


class SelfPlayRefresh(Callback):
    """Refresh a self-play opponent from the learner at every logged block (the env's `refresh_opponent`)."""

    def __init__(self, refresh: Callable[[Any, Any, int], None]) -> None:
        self.refresh = refresh

    def on_block(self, trainer: Trainer) -> None:
        """Hand the opponent the learner's values, keys and episode count."""
        self.refresh(trainer.value_fn, trainer.keys, trainer.episodes_done)


class Checkpoints(Callback):
    """Save the trainer's checkpoint (atomically) to `path` at every multiple of `every` episodes."""

    def __init__(self, path: str | Path, every: int, extra: Callable[[], dict[str, Any]] | None = None) -> None:
        if every < 1:
            raise ValueError(f"periodic checkpoints need every >= 1, got {every}")
        self.path, self.every, self.extra = Path(path), every, extra

    def on_block(self, trainer: Trainer) -> None:
        """Write the checkpoint (with `extra()`, e.g. the run's settings)."""
        from rltorch.checkpoints import save_checkpoint

        save_checkpoint(self.path, {**trainer.checkpoint(), **(self.extra() if self.extra else {})})


__all__ = ["Callback", "Checkpoints", "Evaluation", "FunctionCallback", "ProgressBar", "SelfPlayRefresh"]
