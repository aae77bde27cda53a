"""Neural value functions behind the table interface: `forward(keys)` and `fit(keys, targets)`.

`fit` takes one optimizer step on the mean of 0.5 * (target - value)^2 with the targets held fixed
(semi-gradient), the network counterpart of the tabular update.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Hashable, Sequence

import torch
from torch import nn

from rltorch.values.base import ValueFunction
from rltorch.values.encoders import Encoder


def mlp(inputs: int, hidden: Sequence[int], outputs: int) -> nn.Sequential:
    """A ReLU multilayer perceptron."""
    layers: list[nn.Module] = []
    for width in hidden:
        layers += [nn.Linear(inputs, width), nn.ReLU()]
        inputs = width
    layers.append(nn.Linear(inputs, outputs))
    return nn.Sequential(*layers)


def resolve_device(device: str) -> torch.device:
    """'cpu', 'cuda' or 'auto' (cuda when available) as a torch device."""
    if device == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if device == "cuda" and not torch.cuda.is_available():
        raise ValueError("device 'cuda' was asked for but no GPU is available")
    return torch.device(device)


class Network(ValueFunction):
    """Shared machinery: the encoder, the optimizer, the fit step and its diagnostics."""

    def __init__(self, encoder: Encoder, outputs: int, hidden: Sequence[int], lr: float, device: str) -> None:
        super().__init__()
        self.seen_keys: set[Hashable] | None = None
        if lr <= 0:
            raise ValueError(f"learning rate must be positive, got {lr}")
        self.encoder = encoder
        self.hidden = tuple(hidden)
        self.lr = lr
        self.device = resolve_device(device)
        self.net = mlp(encoder.size, self.hidden, outputs).to(self.device)
        self.optimizer = torch.optim.Adam(self.net.parameters(), lr=lr)
        self.recent_keys: deque[Hashable] = deque(maxlen=1000)
        self._losses: list[float] = []
        self._grad_norms: list[float] = []

    def encode(self, keys: Sequence[Hashable]) -> torch.Tensor:
        """The encoded keys on the network's device."""
        return self.encoder(keys).to(self.device)

    def fit(self, keys: Sequence[Hashable], targets: Sequence[float] | torch.Tensor) -> torch.Tensor:
        """One optimizer step on mean 0.5 * (target - value)^2; return `target - old value` per key."""
        targets = torch.as_tensor(targets, dtype=torch.float32, device=self.device).reshape(-1)
        values = self.forward(keys)
        errors = targets - values
        loss = 0.5 * (errors**2).mean()
        self.optimizer.zero_grad(set_to_none=True)
        loss.backward()
        self._grad_norms.append(float(nn.utils.clip_grad_norm_(self.net.parameters(), float("inf"))))
        self.optimizer.step()
        self._losses.append(loss.item())
        self.recent_keys.extend(keys)
        if self.seen_keys is not None:
            self.seen_keys.update(keys)
        return errors.detach().cpu().double()

    def remember_keys(self) -> None:
        """Start recording every key fitted in `seen_keys` (to study generalization)."""
        self.seen_keys = set()

    def diagnostics(self) -> dict[str, float]:
        """Mean loss and gradient norm of the fits since the last call."""
        if not self._losses:
            return {}
        result = {
            "loss/value": sum(self._losses) / len(self._losses),
            "loss/grad_norm": sum(self._grad_norms) / len(self._grad_norms),
        }
        self._losses.clear()
        self._grad_norms.clear()
        return result

    def histogram_values(self) -> list[float]:
        """Current values of the most recently fitted keys."""
        return self.values(list(self.recent_keys)) if self.recent_keys else []

    def config(self) -> dict:
        """Constructor settings, for a checkpoint."""
        return {"class": type(self).__name__, "hidden": self.hidden, "lr": self.lr, "device": str(self.device)}


class VNetwork(Network):
    """One value per key: a state, an afterstate, or a (state, action) pair with a `PairEncoder`."""

    def __init__(self, encoder: Encoder, hidden: Sequence[int] = (64,), lr: float = 1e-3, device: str = "cpu") -> None:
        super().__init__(encoder, 1, hidden, lr, device)

    def forward(self, keys: Sequence[Hashable]) -> torch.Tensor:
        """The values of a batch of keys."""
        return self.net(self.encode(keys)).squeeze(-1)


class QNetwork(Network):
    """Q over (state, action) keys from one output per action, like DQN's head."""

    def __init__(
        self, encoder: Encoder, actions: int, hidden: Sequence[int] = (64,), lr: float = 1e-3, device: str = "cpu"
    ) -> None:
        super().__init__(encoder, actions, hidden, lr, device)
        self.actions = actions

    def forward(self, keys: Sequence[Hashable]) -> torch.Tensor:
        """The value of each (state, action) key: the state's row, picked at the action."""
        states = [state for state, _ in keys]
        actions = torch.tensor([action for _, action in keys], device=self.device)
        return self.net(self.encode(states)).gather(1, actions.unsqueeze(1)).squeeze(1)

    def config(self) -> dict:
        """Constructor settings, for a checkpoint."""
        return {**super().config(), "actions": self.actions}
