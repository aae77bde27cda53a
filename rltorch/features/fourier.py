"""The Fourier cosine basis of the book's §9.5.2: cos(π c·s) for every c in {0..n}^d, s scaled to [0, 1]^d."""

from __future__ import annotations

import math

import torch

from rltorch.features.base import register_features
from rltorch.features.polynomial import OrderBasis


@register_features
class FourierBasis(OrderBasis):
    """x_i(s) = cos(π c_i·s) over c_i in {0..n}^d, the state scaled to [0, 1]^d ((n + 1)^d features)."""

    kind = "fourier"

    def encode(self, states: torch.Tensor) -> torch.Tensor:
        """The cosines, float64 [batch, size]."""
        return torch.cos(math.pi * (self.box.unit(states) @ self.exponents.T))
