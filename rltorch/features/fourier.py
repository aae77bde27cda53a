"""The Fourier cosine basis of the book's §9.5.2: cos(π c·s) for every c in {0..n}^d, s scaled to [0, 1]^d."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import torch

from rltorch.features.base import Box, Features, checked_int, register_features
from rltorch.features.polynomial import exponents


@register_features
class FourierBasis(Features):
    """x_i(s) = cos(π c_i·s) over c_i in {0..n}^d, the state scaled to [0, 1]^d ((n + 1)^d features)."""

    kind = "fourier"

    def __init__(self, order: int, low: float | Sequence[float], high: float | Sequence[float]) -> None:
        self.order = checked_int("order", order, 0)
        self.box = Box(low, high)
        self.exponents = exponents(self.order, self.box.dims)
        self.size = self.exponents.shape[0]

    def encode(self, states: torch.Tensor) -> torch.Tensor:
        """The cosines, float64 [batch, size]."""
        return torch.cos(math.pi * (self.box.unit(states) @ self.exponents.T))

    def config(self) -> dict[str, Any]:
        """The order and the bounds."""
        return {"kind": self.kind, "order": self.order, **self.box.config()}
