"""A network's input from a continuous state: the state scaled to [0, 1]^d, or its features (tile coding, ...)."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

import torch

from rltorch.features.base import Box, as_states, features_from_config
from rltorch.values.encoders import Encoder


class FeatureEncoder(Encoder):
    """States (tuples of floats) as rows: scaled into the box [low, high], or, given `features`, their feature vectors.

    Rows are computed for the whole batch in one call and never cached (continuous states rarely come back).
    """

    def __init__(self, low: Sequence[float], high: Sequence[float], features: dict[str, Any] | None = None) -> None:
        super().__init__()
        self.box = Box(low, high)
        self.feature_config = features
        self.coder = features_from_config(features) if features is not None else None
        self.size = self.coder.size if self.coder is not None else self.box.dims

    def features(self, key: Hashable) -> list[float]:
        """The row of one state."""
        return self([key])[0].tolist()

    def __call__(self, keys: Sequence[Hashable]) -> torch.Tensor:
        """A (len(keys), size) float32 tensor."""
        states = as_states(list(keys))
        rows = self.box.unit(states) if self.coder is None else self.coder.encode(states)
        return rows.to(torch.float32)

    def config(self) -> dict[str, Any]:
        """The box and the features' config, as data."""
        return {"low": list(self.box.low), "high": list(self.box.high), "features": self.feature_config}
