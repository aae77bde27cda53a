"""The polynomial basis of the book's §9.5.1: every product of the scaled state's coordinates up to order n."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

import torch

from rltorch.errors import RLTorchError
from rltorch.features.base import Box, Features, checked_int, register_features

MAX_FEATURES = 1_000_000


def exponents(order: int, dims: int) -> torch.Tensor:
    """Every vector c in {0, ..., order}^dims as the rows of a float64 tensor [(order + 1)^dims, dims]."""
    if (order + 1) ** dims > MAX_FEATURES:
        raise RLTorchError(f"order {order} in {dims} dimensions makes {(order + 1) ** dims} features, "
                           f"more than {MAX_FEATURES}")
    rows = [row[::-1] for row in itertools.product(range(order + 1), repeat=dims)]
    return torch.tensor(rows, dtype=torch.float64).reshape(-1, dims)


class OrderBasis(Features):
    """What the polynomial and Fourier bases share: the order n, the box, every c in {0..n}^d as `exponents`."""

    def __init__(self, order: int, low: float | Sequence[float], high: float | Sequence[float]) -> None:
        self.order = checked_int("order", order, 0)
        self.box = Box(low, high)
        self.exponents = exponents(self.order, self.box.dims)
        self.size = self.exponents.shape[0]

    def config(self) -> dict[str, Any]:
        """The order and the bounds."""
        return {"kind": self.kind, "order": self.order, **self.box.config()}


@register_features
class PolynomialBasis(OrderBasis):
    """x_i(s) = Π_j s_j^{c_ij} over c in {0..n}^d, the state scaled to [0, 1]^d ((n + 1)^d features)."""

    kind = "polynomial"

    def encode(self, states: torch.Tensor) -> torch.Tensor:
        """The products, float64 [batch, size]."""
        return (self.box.unit(states)[:, None, :] ** self.exponents[None]).prod(dim=2)
