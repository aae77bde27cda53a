"""Episode statistics: returns and lengths, and wins, draws and losses for envs that declare themselves games."""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Any

import torch

from rltorch.errors import RLTorchError


@dataclass
class Outcomes:
    """Counts of won, lost and drawn (zero-return) episodes, for envs that declare themselves games."""

    wins: int = 0
    losses: int = 0
    draws: int = 0

    @property
    def games(self) -> int:
        """All episodes counted."""
        return self.wins + self.losses + self.draws

    def add(self, episode_return: float) -> None:
        """Count one episode by the sign of its return."""
        if episode_return > 0:
            self.wins += 1
        elif episode_return < 0:
            self.losses += 1
        else:
            self.draws += 1

    def rates(self) -> dict[str, float]:
        """Win, loss and draw fractions."""
        games = max(self.games, 1)
        return {"win_rate": self.wins / games, "loss_rate": self.losses / games, "draw_rate": self.draws / games}


@dataclass
class EpisodeStats:
    """Returns and lengths of a run of episodes; wins, draws and losses too when the env is a game."""

    episodes: int = 0
    return_sum: float = 0.0
    step_sum: int = 0
    outcomes: Outcomes | None = None

    def add(self, episode_return: float, steps: int) -> None:
        """Record one episode."""
        self.episodes += 1
        self.return_sum += episode_return
        self.step_sum += steps
        if self.outcomes is not None:
            self.outcomes.add(episode_return)

    @property
    def mean_return(self) -> float:
        """The mean undiscounted return."""
        return self.return_sum / max(self.episodes, 1)

    @property
    def mean_length(self) -> float:
        """The mean number of steps per episode."""
        return self.step_sum / max(self.episodes, 1)

    def scalars(self, prefix: str) -> dict[str, float]:
        """`prefix/mean_return`, `prefix/mean_length`, and the outcome rates of a game."""
        scalars = {f"{prefix}/mean_return": self.mean_return, f"{prefix}/mean_length": self.mean_length}
        if self.outcomes is not None:
            scalars.update({f"{prefix}/{name}": rate for name, rate in self.outcomes.rates().items()})
        return scalars


def play_greedy(agent: Any, env: Any, legal_actions: Callable[[], list[int]], episodes: int, stats: EpisodeStats,
                max_steps: int, frozen: bool = True) -> EpisodeStats:
    """Play `episodes` episodes of `agent` (its values frozen: one choice per state) on `env`, adding to `stats`.

    An episode is cut after `max_steps` steps, as a greedy policy can loop forever on an env without a time limit.
    `frozen=False` asks the agent at every step (a stochastic policy).
    """
    greedy_action: dict[Hashable, int] = {}
    for _ in range(episodes):
        state, _ = env.reset()
        total, steps, done = 0.0, 0, False
        while not done:
            action = greedy_action.get(state) if frozen else None
            if action is None:
                action = greedy_action[state] = agent.act(state, legal_actions())
            state, reward, terminated, truncated, _ = env.step(action)
            total += reward
            steps += 1
            done = terminated or truncated or steps >= max_steps
        stats.add(total, steps)
    return stats


@dataclass
class Block:
    """Running sums over one logging block: its episodes' stats and the errors of their updates.

    A block spans the episodes since the last multiple of `log_every`; a run stopped inside one keeps its sums
    in the checkpoint (`to_data`), so the resumed run logs the same means at the same episode as a straight run.
    """

    stats: EpisodeStats
    td_errors: list[float] = field(default_factory=list)

    @classmethod
    def empty(cls, game: bool) -> Block:
        """No episodes yet; outcomes counted when the env is a game."""
        return cls(EpisodeStats(outcomes=Outcomes() if game else None))

    def scalars(self) -> dict[str, float]:
        """`train/return`, `train/length`, `train/td_error` (mean absolute error), and `train/win_rate` of a game."""
        stats, errors = self.stats, self.td_errors
        scalars = {
            "train/return": stats.mean_return,
            "train/length": stats.mean_length,
            "train/td_error": sum(map(abs, errors)) / max(len(errors), 1),
        }
        if stats.outcomes is not None:
            scalars["train/win_rate"] = stats.outcomes.rates()["win_rate"]
        return scalars

    def to_data(self) -> dict[str, Any]:
        """The sums as data for a checkpoint (the errors as a float64 tensor, which keeps every float exactly)."""
        stats, outcomes = self.stats, self.stats.outcomes
        return {
            "episodes": stats.episodes,
            "return_sum": stats.return_sum,
            "step_sum": stats.step_sum,
            "outcomes": None if outcomes is None else [outcomes.wins, outcomes.losses, outcomes.draws],
            "td_errors": torch.tensor(self.td_errors, dtype=torch.float64),
        }

    @classmethod
    def from_data(cls, data: dict[str, Any] | None, game: bool) -> Block:
        """The block `to_data` described (an empty one for None, as in a checkpoint from before blocks were saved)."""
        block = cls.empty(game)
        if data is None:
            return block
        stats = block.stats
        try:
            stats.episodes, stats.return_sum, stats.step_sum = (int(data["episodes"]), float(data["return_sum"]),
                                                                int(data["step_sum"]))
            if stats.outcomes is not None and data.get("outcomes") is not None:
                stats.outcomes.wins, stats.outcomes.losses, stats.outcomes.draws = map(int, data["outcomes"])
            block.td_errors.extend(torch.as_tensor(data["td_errors"], dtype=torch.float64).reshape(-1).tolist())
        except (AttributeError, KeyError, TypeError, ValueError, RuntimeError) as error:
            raise RLTorchError(f"the checkpoint's unfinished logging block is not readable ({error})") from None
        return block
