"""The value-function interface every table and network implements."""

from __future__ import annotations

from collections.abc import Hashable, Sequence

import torch
from torch import nn


class ValueFunction(nn.Module):
    """Maps keys to values: `forward(keys)` reads a batch, `fit(keys, targets)` moves toward targets.

    The per-step helpers `values`, `value` and `update` work on plain floats so trainers stay
    lean; a subclass may override them with faster paths, but need not.
    """

    def forward(self, keys: Sequence[Hashable]) -> torch.Tensor:
        """Return the values of a batch of keys as a 1-D float tensor."""
        raise NotImplementedError

    def fit(self, keys: Sequence[Hashable], targets: Sequence[float] | torch.Tensor) -> torch.Tensor:
        """Move the values of `keys` toward `targets`; return the errors `target - old value`."""
        raise NotImplementedError

    def values(self, keys: Sequence[Hashable]) -> list[float]:
        """Return the values of `keys` as a list of floats."""
        with torch.no_grad():
            return self.forward(keys).tolist()

    def value(self, key: Hashable) -> float:
        """Return the value of one key."""
        return self.values([key])[0]

    def update(self, key: Hashable, target: float) -> float:
        """Move one key's value toward `target`; return the error `target - old value`."""
        return float(self.fit([key], [target])[0])

    def config(self) -> dict:
        """Constructor settings, saved in checkpoints beside the `state_dict`."""
        return {"class": type(self).__name__}

    def diagnostics(self) -> dict[str, float]:
        """Scalars to log each block, e.g. `table/size` or `loss/value`; none by default."""
        return {}

    def histogram_values(self) -> list[float]:
        """Values to show as a TensorBoard histogram at each evaluation; none by default."""
        return []
