"""Two estimates that act as one value function: Double Q-learning's Q1 and Q2 (Sutton & Barto section 6.7).

`DoubleQ` holds two tables or two networks. Reading it gives their mean (Q1 + Q2) / 2, an estimate of
q on q's own scale (so exact errors against q* mean something); the book acts epsilon-greedily in
Q1 + Q2, which picks the same actions, ties included (halving is exact). A learner updates one half at
a time with `update_part`. It is saved, loaded and logged as one value function: one `state_dict`
(the halves' entries or weights under `first.` and `second.`), one `config`, one set of diagnostics.

Over two `QNetwork`s this is the Double DQN of this library, kept simple: the network a coin picks
is fitted toward R + gamma * Q_other(S', argmax_a Q_chosen(S', a)), its own argmax valued by the
other network (no separate target copy). The trainer breaks ties in that argmax at random
(`rltorch.targets.double_q_learning_target`), for tables and networks alike.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

import torch

from rltorch.errors import RLTorchError
from rltorch.values.base import ValueFunction
from rltorch.values.networks import QNetwork, VNetwork
from rltorch.values.tables import QTable, Table, VTable

PARTS = {cls.__name__: cls for cls in (QTable, VTable, QNetwork, VNetwork)}


class DoubleQ(ValueFunction):
    """A pair of estimates read as their mean (Q1 + Q2) / 2; `update_part(i, key, target)` moves one of them.

    `fit` / `update` move the mean toward the targets by moving each half toward each target
    (for tables with step alpha, the mean then steps alpha toward the target, like one table).
    A pair of tables is made a `DoubleQTables`, which also has `len` and `in` as a table does.
    """

    def __new__(cls, first: ValueFunction | None = None, second: ValueFunction | None = None) -> DoubleQ:
        """A `DoubleQTables` for two tables, else a plain `DoubleQ`."""
        if cls is DoubleQ and isinstance(first, Table) and isinstance(second, Table):
            cls = DoubleQTables
        return super().__new__(cls)

    def __init__(self, first: ValueFunction, second: ValueFunction) -> None:
        super().__init__()
        if isinstance(first, DoubleQ) or isinstance(second, DoubleQ) or type(first) is not type(second):
            raise ValueError("a DoubleQ holds two value functions of one kind (two tables or two networks)")
        self.first = first
        self.second = second

    @classmethod
    def pair(cls, value_fn: ValueFunction) -> DoubleQ:
        """`value_fn` as Q1 and a fresh one built from its config as Q2 (a network gets its own initial weights)."""
        return cls(value_fn, type(value_fn).from_config(value_fn.config()))

    @property
    def parts(self) -> tuple[ValueFunction, ValueFunction]:
        """(Q1, Q2)."""
        return self.first, self.second

    def forward(self, keys: Sequence[Hashable]) -> torch.Tensor:
        """(Q1 + Q2) / 2 for a batch of keys."""
        return (self.first(keys) + self.second(keys)) / 2

    def values(self, keys: Sequence[Hashable]) -> list[float]:
        """(Q1 + Q2) / 2 of `keys` as floats."""
        return [(a + b) / 2 for a, b in zip(self.first.values(keys), self.second.values(keys), strict=True)]

    def value(self, key: Hashable) -> float:
        """(Q1 + Q2) / 2 of one key."""
        return (self.first.value(key) + self.second.value(key)) / 2

    def update_part(self, index: int, key: Hashable, target: float) -> float:
        """Move half `index` (0: Q1, 1: Q2) of `key` toward `target`; return that half's error."""
        return self.parts[index].update(key, target)

    def update(self, key: Hashable, target: float) -> float:
        """Move each half toward `target`; return `target - old mean`."""
        return (self.first.update(key, target) + self.second.update(key, target)) / 2

    def fit(self, keys: Sequence[Hashable], targets: Sequence[float] | torch.Tensor) -> torch.Tensor:
        """Fit each half toward the targets; return `target - old mean` per key."""
        targets = torch.as_tensor(targets, dtype=torch.float64).reshape(-1).cpu()
        old = torch.tensor(self.values(keys), dtype=torch.float64)
        self.first.fit(keys, targets.tolist())
        self.second.fit(keys, targets.tolist())
        return targets - old

    def config(self) -> dict:
        """Both halves' settings (and the networks' device, which a checkpoint load may replace)."""
        first = self.first.config()
        config = {"class": "DoubleQ", "first": first, "second": self.second.config()}
        if "device" in first:
            config["device"] = first["device"]
        return config

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> DoubleQ:
        """Rebuild both halves (tables or networks of rltorch's own) from `config()`."""
        return DoubleQ(*(_part_from_config(config[name], config.get("device")) for name in ("first", "second")))

    def training_state(self) -> dict[str, Any]:
        """Each half's training state (its optimizer's, for networks)."""
        return {"first": self.first.training_state(), "second": self.second.training_state()}

    def load_training_state(self, state: dict[str, Any]) -> None:
        """Put back what `training_state()` returned."""
        self.first.load_training_state(state.get("first", {}))
        self.second.load_training_state(state.get("second", {}))

    def diagnostics(self) -> dict[str, float]:
        """The halves' scalars (a network's loss and gradient norm), each the mean over the halves that report it."""
        reports = [self.first.diagnostics(), self.second.diagnostics()]
        names = dict.fromkeys(name for report in reports for name in report)
        return {name: sum(r[name] for r in reports if name in r) / sum(name in r for r in reports) for name in names}

    def histogram_values(self) -> list[float]:
        """(Q1 + Q2) / 2 at every key either half knows (a table's entries, a network's recently fitted keys)."""
        keys = self.known_keys()
        return self.values(keys) if keys else []

    def known_keys(self) -> list[Hashable]:
        """The keys of either half's entries (tables) or recent fits (networks), first seen first."""
        found: dict[Hashable, None] = {}
        for part in self.parts:
            found.update(dict.fromkeys(part.table if isinstance(part, Table) else getattr(part, "recent_keys", ())))
        return list(found)


class DoubleQTables(DoubleQ):
    """A `DoubleQ` of two tables: also `len` (the keys either table holds) and `in`, like one table."""

    def __len__(self) -> int:
        """Return the number of keys either table holds."""
        return len(self.first.table.keys() | self.second.table.keys())

    def __contains__(self, key: Hashable) -> bool:
        """Whether either table has written `key`."""
        return key in self.first or key in self.second

    def diagnostics(self) -> dict[str, float]:
        """The pair's size as one table's, logged as `table/size`."""
        return {"table/size": len(self)}

    def items(self) -> list[tuple[Hashable, float]]:
        """The (key, (Q1 + Q2) / 2) entries over the keys either table holds."""
        keys = self.known_keys()
        return list(zip(keys, self.values(keys), strict=True))


def _part_from_config(config: dict[str, Any], device: str | None) -> ValueFunction:
    """One half from its config: a class from `PARTS` only, on `device` when given (a network)."""
    cls = PARTS.get(config.get("class")) if isinstance(config, dict) else None
    if cls is None:
        raise RLTorchError(f"a DoubleQ half must be one of {', '.join(PARTS)}, not {config!r:.80}")
    settings = {**config, "device": device} if device is not None and "device" in config else config
    return cls.from_config(settings)
