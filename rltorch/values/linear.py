"""A linear value function over state features: v̂(s) = w·x(s), or q̂(s, a) = w_a·x(s) with one weight row per action."""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from typing import Any

import torch

from rltorch.errors import RLTorchError
from rltorch.features.base import Features, as_states, features_from_config
from rltorch.values.base import ValueFunction


class LinearValueFunction(ValueFunction):
    """v̂(s) = w·x(s) (actions=None, keys are states) or q̂(s,a) = w_a·x(s) (keys are (state, action) pairs).

    `fit` takes the semi-gradient step w += alpha (target − v̂) ∇v̂ for each key in order, `alpha` per weight
    (the command line divides the book's numerator by the features' active count). The weights, a float64
    tensor [actions or 1, size], are a buffer of `state_dict()`. For eligibility traces, `gradient(key)` gives
    ∇v̂ as (flat weight indices, values) and `add(indices, values, scale)` adds `scale * values` there; flat
    index a * size + i is weight i of action a's row.
    """

    def __init__(self, features: Features, alpha: float, actions: int | None = None) -> None:
        super().__init__()
        if isinstance(alpha, bool) or not isinstance(alpha, (int, float)) or not math.isfinite(alpha) or alpha <= 0:
            raise RLTorchError(f"alpha must be a positive number, got {alpha!r}")
        if actions is not None and (isinstance(actions, bool) or not isinstance(actions, int) or actions < 1):
            raise RLTorchError(f"actions must be a positive int or None, got {actions!r}")
        self.features, self.alpha, self.actions = features, float(alpha), actions
        self.sparse = features.active_count is not None
        self.register_buffer("weights", torch.zeros(actions or 1, features.size, dtype=torch.float64))

    def split(self, keys: Sequence[Hashable]) -> tuple[torch.Tensor, torch.Tensor]:
        """The keys' states, float64 [batch, d], and the flat offset a * size of each key's weight row."""
        if self.actions is None:
            return as_states(list(keys)), torch.zeros(len(keys), dtype=torch.int64)
        states, actions = zip(*keys, strict=True) if len(keys) else ((), ())
        actions = torch.tensor([int(action) for action in actions], dtype=torch.int64)
        if len(actions) and not (0 <= int(actions.min()) and int(actions.max()) < self.actions):
            raise RLTorchError(f"actions must be in 0..{self.actions - 1}, got {actions.tolist()}")
        return as_states(list(states)), actions * self.features.size

    def gradients(self, keys: Sequence[Hashable]) -> tuple[torch.Tensor, torch.Tensor]:
        """∇v̂ of each key as flat weight indices and values, each [batch, k] (k active features, or size)."""
        states, offsets = self.split(keys)
        if self.sparse:
            indices = self.features.active(states)
            return indices + offsets[:, None], torch.ones(indices.shape, dtype=torch.float64)
        values = self.features.encode(states)
        indices = torch.arange(self.features.size, dtype=torch.int64).expand(values.shape[0], -1)
        return indices + offsets[:, None], values

    def gradient(self, key: Hashable) -> tuple[torch.Tensor, torch.Tensor]:
        """(indices, values) of ∇v̂(key), the non-zero part of the gradient as flat weight indices."""
        indices, values = self.gradients([key])
        return indices[0], values[0]

    def add(self, indices: torch.Tensor, values: torch.Tensor, scale: float) -> None:
        """w[indices] += scale * values (flat indices; repeated indices add up)."""
        self.weights.view(-1).index_add_(0, indices.reshape(-1), values.reshape(-1), alpha=float(scale))

    def forward(self, keys: Sequence[Hashable]) -> torch.Tensor:
        """The values of a batch of keys, a 1-D float64 tensor."""
        indices, values = self.gradients(keys)
        return _sums(self.weights.view(-1)[indices] * values)

    def fit(self, keys: Sequence[Hashable], targets: Sequence[float] | torch.Tensor) -> torch.Tensor:
        """The semi-gradient step toward each target in turn; return the errors `target − old v̂`."""
        targets = torch.as_tensor(targets, dtype=torch.float64).reshape(-1)
        if len(keys) != len(targets):
            raise ValueError(f"{len(keys)} keys but {len(targets)} targets")
        indices, values = self.gradients(keys)
        flat, errors = self.weights.view(-1), torch.empty(len(keys), dtype=torch.float64)
        for row in range(len(keys)):
            errors[row] = targets[row] - _sums(flat[indices[row]] * values[row])
            flat.index_add_(0, indices[row], values[row], alpha=self.alpha * float(errors[row]))
        return errors

    def config(self) -> dict[str, Any]:
        """The features' config, alpha and the action count."""
        return {"class": type(self).__name__, "features": self.features.config(), "alpha": self.alpha,
                "actions": self.actions}

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> LinearValueFunction:
        """Rebuild from `config()`, the features from their own config."""
        return cls(features_from_config(config["features"]), config["alpha"], config.get("actions"))

    def diagnostics(self) -> dict[str, float]:
        """The weights' Euclidean norm, logged as `linear/weight_norm`, and the features' own diagnostics."""
        return {"linear/weight_norm": float(self.weights.norm()), **self.features.diagnostics()}

    def histogram_values(self) -> list[float]:
        """Every weight."""
        return self.weights.reshape(-1).tolist()

    def extra_repr(self) -> str:
        """The features, alpha and actions in `repr`."""
        return f"features={self.features!r}, alpha={self.alpha}, actions={self.actions}"


def _sums(terms: torch.Tensor) -> torch.Tensor:
    """Sums over the last dimension, left to right (a sequential scan: the numba engines' order, on any CPU)."""
    return terms.cumsum(dim=-1)[..., -1] if terms.shape[-1] else terms.sum(dim=-1)
