"""Dict-backed value tables: `QTable` keyed by (state, action), `VTable` by states or afterstates."""

from __future__ import annotations

from collections.abc import Hashable, Sequence

import torch

from rltorch.values.base import ValueFunction, saved_class_name


class Table(ValueFunction):
    """A dict from hashable keys to floats, with visit counts, as a torch module.

    `alpha` is the constant step size of `v <- v + alpha * (target - v)`; `alpha=None` uses the
    sample average (step 1/N(key)), which is Monte Carlo's mean. Unseen keys read as `initial`.
    Visit counts N(key) are kept when averaging or when `count_visits` is set.
    The entries live in `state_dict()` as extra state, so a state_dict loads with
    `torch.load(..., weights_only=True)`.
    """

    def __init__(self, alpha: float | None = 0.1, initial: float = 0.0, count_visits: bool = False) -> None:
        super().__init__()
        if alpha is not None and not 0.0 < alpha <= 1.0:
            raise ValueError(f"alpha must be in (0, 1] or None for sample averages, got {alpha}")
        self.alpha = alpha
        self.initial = float(initial)
        self.count_visits = count_visits or alpha is None
        self.table: dict[Hashable, float] = {}
        self.counts: dict[Hashable, int] = {}

    def __len__(self) -> int:
        """Return the number of keys the table holds."""
        return len(self.table)

    def __contains__(self, key: Hashable) -> bool:
        """Whether `key` has been written."""
        return key in self.table

    def forward(self, keys: Sequence[Hashable]) -> torch.Tensor:
        """Return the values of a batch of keys as a 1-D float64 tensor."""
        return torch.tensor(self.values(keys), dtype=torch.float64)

    def fit(self, keys: Sequence[Hashable], targets: Sequence[float] | torch.Tensor) -> torch.Tensor:
        """Apply the tabular update to each (key, target) in order; return the errors."""
        if isinstance(targets, torch.Tensor):
            targets = targets.tolist()
        if len(keys) != len(targets):
            raise ValueError(f"{len(keys)} keys but {len(targets)} targets")
        errors = [self.update(key, float(target)) for key, target in zip(keys, targets, strict=True)]
        return torch.tensor(errors, dtype=torch.float64)

    def values(self, keys: Sequence[Hashable]) -> list[float]:
        """Return the values of `keys` as a list of floats (the fast read path)."""
        get, initial = self.table.get, self.initial
        return [get(key, initial) for key in keys]

    def value(self, key: Hashable) -> float:
        """Return the value of one key."""
        return self.table.get(key, self.initial)

    def update(self, key: Hashable, target: float) -> float:
        """Move one key toward `target` (the fast write path); return `target - old value`."""
        table = self.table
        old = table.get(key, self.initial)
        error = target - old
        if self.count_visits:
            counts = self.counts
            count = counts[key] = counts.get(key, 0) + 1
            if self.alpha is None:
                table[key] = old + error / count
                return error
        table[key] = old + self.alpha * error
        return error

    def config(self) -> dict:
        """Constructor settings."""
        return {"class": saved_class_name(self), "alpha": self.alpha, "initial": self.initial,
                "count_visits": self.count_visits}

    def diagnostics(self) -> dict[str, float]:
        """The table's size, logged as `table/size`."""
        return {"table/size": len(self.table)}

    def histogram_values(self) -> list[float]:
        """Every entry's value."""
        return list(self.table.values())

    def items(self) -> list[tuple[Hashable, float]]:
        """Return the (key, value) entries."""
        return list(self.table.items())

    def get_extra_state(self) -> dict:
        """Return the entries, counts and settings for `state_dict()`."""
        return {
            "table": dict(self.table),
            "counts": dict(self.counts),
            "alpha": self.alpha,
            "initial": self.initial,
            "count_visits": self.count_visits,
        }

    def set_extra_state(self, state: dict) -> None:
        """Restore what `get_extra_state` returned."""
        self.table = dict(state["table"])
        self.counts = dict(state["counts"])
        self.alpha = state["alpha"]
        self.initial = float(state["initial"])
        self.count_visits = bool(state["count_visits"])

    def extra_repr(self) -> str:
        """Describe the table in `repr`."""
        return f"entries={len(self.table)}, alpha={self.alpha}, initial={self.initial}"


class QTable(Table):
    """An action-value table keyed by (state, action) pairs."""


class VTable(Table):
    """A state-value table keyed by states, or by afterstates for afterstate learning."""
