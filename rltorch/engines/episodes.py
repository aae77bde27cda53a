"""Per-lane episode bookkeeping of a batched engine: counters, running returns, records, dropping finished lanes.

Every lane runs `episodes` episodes and then stops (its values freeze; it draws nothing more).
The sum of rewards and the length of each lane's episodes go into `[lanes, episodes]` tensors.
A lane's record is written at its episode counter every step (the last write of an episode is its
total); a finished lane's counter stays at `episodes`, a spare column that is cut off at the end.
"""

from __future__ import annotations

import torch


class Lanes:
    """Episode counters, running sums and the `[lanes, episodes]` records of a batch of lanes."""

    def __init__(self, count: int, episodes: int, device: torch.device, dtype: torch.dtype) -> None:
        self.episodes = episodes
        self.ids = torch.arange(count, device=device)  # each live lane's position in the full batch
        self.episode = torch.zeros(count, dtype=torch.long, device=device)
        self.total = torch.zeros(count, dtype=dtype, device=device)
        self.length = torch.zeros(count, dtype=torch.long, device=device)
        self.active = torch.ones(count, dtype=torch.bool, device=device)
        self.returns = torch.zeros(count, episodes + 1, dtype=dtype, device=device)
        self.lengths = torch.zeros(count, episodes + 1, dtype=torch.long, device=device)
        self._row_starts = self.ids * (episodes + 1)

    @property
    def count(self) -> int:
        """Live lanes."""
        return int(self.ids.numel())

    def add(self, reward: torch.Tensor, stepped: torch.Tensor | None = None) -> None:
        """Count one step and its reward in the running episode of every lane (that `stepped`); record the sums."""
        if stepped is None:
            self.total += reward
            self.length += 1
        else:
            self.total += torch.where(stepped, reward, 0.0)
            self.length += stepped
        where = self._row_starts + self.episode
        self.returns.view(-1).scatter_(0, where, self.total)
        self.lengths.view(-1).scatter_(0, where, self.length)

    def finish(self, ended: torch.Tensor) -> torch.Tensor:
        """Close the episodes of live lanes where `ended`; return the lanes still live after that."""
        ended = ended & self.active
        self.episode += ended
        self.total = torch.where(ended, 0.0, self.total).to(self.total.dtype)
        self.length = torch.where(ended, 0, self.length)
        self.active = self.episode < self.episodes
        return self.active

    def done_episodes(self) -> int:
        """Episodes finished by the live lanes (finished lanes that were dropped are counted by the caller)."""
        return int(self.episode.sum())

    def select(self, index: torch.Tensor) -> None:
        """Keep only live-lane positions `index`; the full-size records stay."""
        self.ids = self.ids.index_select(0, index)
        for name in ("episode", "total", "length", "active"):
            setattr(self, name, getattr(self, name).index_select(0, index))
        self._row_starts = self.ids * (self.episodes + 1)

    def results(self) -> tuple[torch.Tensor, torch.Tensor]:
        """The records `[lanes, episodes]` of the full batch: sums of rewards and lengths."""
        return self.returns[:, :self.episodes], self.lengths[:, :self.episodes]
