"""The feature interface: a batch of states, a float64 tensor [batch, d], in; feature indices or vectors out.

A `Features` object is pure and batched: `encode(states)` returns the feature vectors x(s) of a whole batch in
one tensor call, and the sparse binary kinds (state aggregation, tile coding) also return the indices of their
`active_count` ones with `active(states)`. `config()` is plain data from which `features_from_config` rebuilds
the same object, so a linear value function's checkpoint stays data-only.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import torch

from rltorch.errors import RLTorchError

FEATURES: dict[str, type[Features]] = {}


class Features:
    """Maps a batch of states, a float64 tensor [batch, d], to features."""

    kind: str = ""
    size: int = 0
    active_count: int | None = None

    def active(self, states: torch.Tensor) -> torch.Tensor:
        """The indices of the active (one) features, a LongTensor [batch, active_count] (sparse kinds only)."""
        raise RLTorchError(f"{self.kind} features are not sparse: use encode()")

    def encode(self, states: torch.Tensor) -> torch.Tensor:
        """The feature vectors, float64 [batch, size]."""
        rows = self.active(states)
        return torch.zeros(rows.shape[0], self.size, dtype=torch.float64).scatter_(1, rows, 1.0)

    def config(self) -> dict[str, Any]:
        """Constructor settings as plain data, with the registered `kind`."""
        raise NotImplementedError

    def diagnostics(self) -> dict[str, float]:
        """Scalars a linear value function logs beside its own (e.g. a hashed tile coder's collisions); none here."""
        return {}

    def __repr__(self) -> str:
        """The kind and its settings."""
        settings = ", ".join(f"{name}={value}" for name, value in self.config().items() if name != "kind")
        return f"{type(self).__name__}({settings})"


def register_features(cls: type[Features]) -> type[Features]:
    """Class decorator: make `cls` rebuildable by `features_from_config` under its `kind`."""
    FEATURES[cls.kind] = cls
    return cls


def features_from_config(config: dict[str, Any]) -> Features:
    """Rebuild the features `Features.config()` described; RLTorchError for an unknown kind."""
    import rltorch.features  # noqa: F401  (registers every kind)

    kind = config.get("kind") if isinstance(config, dict) else None
    cls = FEATURES.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise RLTorchError(f"unknown features {kind!r}: one of {', '.join(sorted(FEATURES))}")
    return cls(**{name: value for name, value in config.items() if name != "kind"})


def as_states(states: Any) -> torch.Tensor:
    """A batch of states (numbers, tuples, arrays or a tensor) as a float64 tensor [batch, d]."""
    if isinstance(states, torch.Tensor):
        batch = states.to(torch.float64)
    else:
        batch = torch.from_numpy(np.asarray(states, dtype=np.float64))
    return batch.reshape(batch.shape[0], -1) if batch.dim() != 2 else batch


class Box:
    """The bounds [low, high] of each state dimension, used to scale states to [0, 1]^d."""

    def __init__(self, low: float | Sequence[float], high: float | Sequence[float]) -> None:
        self.low = [float(x) for x in np.atleast_1d(np.asarray(low, dtype=np.float64))]
        self.high = [float(x) for x in np.atleast_1d(np.asarray(high, dtype=np.float64))]
        if len(self.low) != len(self.high) or not self.low:
            raise RLTorchError(f"state bounds low={low} and high={high} must have the same positive length")
        ordered = all(h > lo for lo, h in zip(self.low, self.high, strict=True))
        if not (ordered and np.isfinite(self.low + self.high).all()):
            raise RLTorchError(f"state bounds must be finite with high > low, got low={low}, high={high}")
        self._low = torch.tensor(self.low, dtype=torch.float64)
        self._width = torch.tensor(self.high, dtype=torch.float64) - self._low

    @property
    def dims(self) -> int:
        """The number of state dimensions."""
        return len(self.low)

    def unit(self, states: torch.Tensor, scale: float = 1.0) -> torch.Tensor:
        """States scaled to [0, scale]^d (values outside the bounds clipped); RLTorchError on a wrong width.

        The scale multiplies before the division, so whole states on a whole grid land exactly on its lines.
        """
        states = as_states(states)
        if states.shape[1] != self.dims:
            raise RLTorchError(f"states have {states.shape[1]} dimensions, the bounds {self.dims}")
        return ((states - self._low) * scale / self._width).clamp_(0.0, scale)

    def config(self) -> dict[str, list[float]]:
        """The bounds as plain lists."""
        return {"low": list(self.low), "high": list(self.high)}


def checked_int(name: str, value: Any, least: int) -> int:
    """`value` as an int at least `least`, else RLTorchError naming the option."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < least:
        raise RLTorchError(f"{name} must be an integer >= {least}, got {value!r}")
    return int(value)
