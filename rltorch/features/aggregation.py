"""State aggregation: the box of states cut into equal groups per dimension, one active feature per state."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch

from rltorch.features.base import Box, Features, checked_int, register_features


@register_features
class StateAggregation(Features):
    """`groups` equal intervals of [low, high) per dimension; a state's feature is its cell (the book's §9.3).

    The 1000-state walk's ten groups of 100 states are `StateAggregation(10, low=1, high=1001)`.
    """

    kind = "aggregation"
    active_count = 1

    def __init__(self, groups: int, low: float | Sequence[float], high: float | Sequence[float]) -> None:
        self.groups = checked_int("groups", groups, 1)
        self.box = Box(low, high)
        self.size = self.groups ** self.box.dims
        self._place = torch.tensor([self.groups ** j for j in range(self.box.dims)], dtype=torch.int64)

    def active(self, states: torch.Tensor) -> torch.Tensor:
        """Each state's cell index, [batch, 1]."""
        cells = self.box.unit(states, self.groups).floor().to(torch.int64).clamp_(max=self.groups - 1)
        return (cells * self._place).sum(dim=1, keepdim=True)

    def config(self) -> dict[str, Any]:
        """The groups and the bounds."""
        return {"kind": self.kind, "groups": self.groups, **self.box.config()}
