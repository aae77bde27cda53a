"""A table of weighted sample averages: what weighted importance sampling moves toward its targets."""

from __future__ import annotations

from collections.abc import Hashable, Sequence

import torch

from rltorch.values.base import saved_class_name
from rltorch.values.tables import QTable, Table, VTable


class WeightedTable(Table):
    """Each key holds the weighted mean of its targets, sum(W G) / sum(W), kept incrementally.

    `update_weighted(key, target, weight)` adds the weight to the cumulative weight C(key) and
    takes the step W / C: `v <- v + W / C * (target - v)` (the book's section 5.6 update). A
    weight of 0 changes no value (it is still counted as a visit in `counts`); with every weight 1
    this is the plain sample average.
    `update(key, target)` is `update_weighted(key, target, 1.0)`.
    """

    def __init__(self, initial: float = 0.0) -> None:
        super().__init__(alpha=None, initial=initial)
        self.weights: dict[Hashable, float] = {}

    def cumulative_weight(self, key: Hashable) -> float:
        """C(key): the sum of the weights `key` has been given."""
        return self.weights.get(key, 0.0)

    def update_weighted(self, key: Hashable, target: float, weight: float) -> float:
        """Move `key` toward `target` with step weight / C(key); return `target - old value`."""
        table = self.table
        old = table.get(key, self.initial)
        error = target - old
        if weight < 0.0:
            raise ValueError(f"importance weights are never negative, got {weight}")
        self.counts[key] = self.counts.get(key, 0) + 1
        if weight == 0.0:
            return error
        cumulative = self.weights[key] = self.weights.get(key, 0.0) + weight
        table[key] = old + weight / cumulative * error
        return error

    def update(self, key: Hashable, target: float) -> float:
        """A sample with weight 1."""
        return self.update_weighted(key, target, 1.0)

    def fit_weighted(
        self, keys: Sequence[Hashable], targets: Sequence[float], weights: Sequence[float]
    ) -> torch.Tensor:
        """Apply `update_weighted` to each (key, target, weight) in order; return the errors."""
        if not len(keys) == len(targets) == len(weights):
            raise ValueError(f"{len(keys)} keys, {len(targets)} targets and {len(weights)} weights")
        errors = [self.update_weighted(k, float(t), float(w)) for k, t, w in zip(keys, targets, weights, strict=True)]
        return torch.tensor(errors, dtype=torch.float64)

    def config(self) -> dict:
        """Constructor settings: the initial value (the step is always W / C)."""
        return {"class": saved_class_name(self), "initial": self.initial}

    def get_extra_state(self) -> dict:
        """The entries, counts, settings and cumulative weights."""
        return {**super().get_extra_state(), "weights": dict(self.weights)}

    def set_extra_state(self, state: dict) -> None:
        """Restore what `get_extra_state` returned."""
        super().set_extra_state(state)
        self.weights = dict(state.get("weights", {}))


class WeightedQTable(WeightedTable, QTable):
    """Weighted averages keyed by (state, action): off-policy control's Q and C."""


class WeightedVTable(WeightedTable, VTable):
    """Weighted averages keyed by states: off-policy prediction's V and C."""
