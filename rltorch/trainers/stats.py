"""Episode statistics: returns and lengths, and wins, draws and losses for envs that declare themselves games."""

from __future__ import annotations

from dataclasses import dataclass


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
