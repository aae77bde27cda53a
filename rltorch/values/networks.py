"""Neural value functions behind the table interface: `forward(keys)` and `fit(keys, targets)`.

`fit` takes one optimizer step on the mean of 0.5 * (target - value)^2 with the targets held fixed
(semi-gradient), the network counterpart of the tabular update.

Building a network sets torch's CPU threads to `threads`, 1 by default, as `rltorch train` does
(`--threads 1`): small networks run several times faster on one thread than on torch's default of
one per core. The setting is torch's, for the whole process (`torch.set_num_threads`); pass
`threads=None` to leave it as it is. A network rebuilt from a checkpoint leaves it as it is.
"""

from __future__ import annotations

import copy
import inspect
from collections import deque
from collections.abc import Hashable, Sequence
from typing import Any

import torch
from torch import nn

from rltorch.errors import RLTorchError
from rltorch.values.base import ValueFunction, class_spec, rltorch_class, saved_class_name
from rltorch.values.encoders import Encoder, PairEncoder, SpaceEncoder


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

    def __init__(self, encoder: Encoder, outputs: int, hidden: Sequence[int], lr: float, device: str,
                 threads: int | None = 1) -> None:
        super().__init__()
        self.seen_keys: set[Hashable] | None = None
        if lr <= 0:
            raise ValueError(f"learning rate must be positive, got {lr}")
        if threads is not None:
            if isinstance(threads, bool) or not isinstance(threads, int) or threads < 1:
                raise ValueError(f"threads must be an int >= 1 or None, got {threads!r}")
            torch.set_num_threads(threads)
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
        """Constructor settings as data, the encoder included, for a checkpoint."""
        return {"class": saved_class_name(self), "hidden": self.hidden, "lr": self.lr, "device": str(self.device),
                "encoder": encoder_to_data(self.encoder)}

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> Network:
        """Build the network `config()` describes, its encoder rebuilt from data."""
        settings = {name: value for name, value in config.items() if name != "class"}
        settings["encoder"] = encoder_from_data(settings["encoder"])
        settings["hidden"] = tuple(settings["hidden"])
        return cls(**settings, threads=None)

    def training_state(self) -> dict[str, Any]:
        """The optimizer's state and the logging sums, so training and its logging resume exactly.

        Adam's moments and step counts; the recent keys the value histogram reads; the losses and gradient
        norms since the last `diagnostics()`.
        """
        return {"optimizer": self.optimizer.state_dict(), "recent_keys": list(self.recent_keys),
                "losses": list(self._losses), "grad_norms": list(self._grad_norms)}

    def load_training_state(self, state: dict[str, Any]) -> None:
        """Put back what `training_state()` returned (the optimizer's state as a copy, never shared)."""
        if "optimizer" in state:
            self.optimizer.load_state_dict(copy.deepcopy(state["optimizer"]))
        if "recent_keys" in state:
            self.recent_keys.clear()
            self.recent_keys.extend(state["recent_keys"])
        self._losses[:] = [float(loss) for loss in state.get("losses", ())]
        self._grad_norms[:] = [float(norm) for norm in state.get("grad_norms", ())]


class VNetwork(Network):
    """One value per key: a state, an afterstate, or a (state, action) pair with a `PairEncoder`."""

    def __init__(self, encoder: Encoder, hidden: Sequence[int] = (64,), lr: float = 1e-3, device: str = "cpu",
                 threads: int | None = 1) -> None:
        super().__init__(encoder, 1, hidden, lr, device, threads)

    def forward(self, keys: Sequence[Hashable]) -> torch.Tensor:
        """The values of a batch of keys."""
        return self.net(self.encode(keys)).squeeze(-1)


class QNetwork(Network):
    """Q over (state, action) keys from one output per action, like DQN's head."""

    def __init__(
        self, encoder: Encoder, actions: int, hidden: Sequence[int] = (64,), lr: float = 1e-3, device: str = "cpu",
        threads: int | None = 1,
    ) -> None:
        super().__init__(encoder, actions, hidden, lr, device, threads)
        self.actions = actions

    def forward(self, keys: Sequence[Hashable]) -> torch.Tensor:
        """The value of each (state, action) key: the state's row, picked at the action."""
        states = [state for state, _ in keys]
        actions = torch.tensor([action for _, action in keys], device=self.device)
        return self.net(self.encode(states)).gather(1, actions.unsqueeze(1)).squeeze(1)

    def config(self) -> dict:
        """Constructor settings, for a checkpoint."""
        return {**super().config(), "actions": self.actions}


def encoder_to_data(encoder: Encoder) -> dict[str, Any]:
    """The encoder as data: its class "module:Class" and constructor arguments (None where unknown).

    A custom encoder with constructor arguments gives them from a `config()` method.
    """
    kind = type(encoder)
    if kind is PairEncoder:
        args: dict[str, Any] | None = {"state_encoder": encoder_to_data(encoder.state_encoder),
                                       "actions": int(encoder.actions)}
    elif kind is SpaceEncoder:
        args = {"sizes": [(int(start), int(n)) for start, n in encoder.sizes]}
    elif callable(getattr(encoder, "config", None)):
        args = dict(encoder.config())
    elif not inspect.signature(kind).parameters:
        args = {}
    else:
        args = None
    return {"class": class_spec(encoder), "args": args}


def encoder_from_data(data: dict[str, Any]) -> Encoder:
    """Rebuild an encoder from `encoder_to_data`'s output; only rltorch's own encoder classes are built."""
    cls = rltorch_class(data["class"], Encoder)
    args = data.get("args")
    if not isinstance(args, dict):
        raise RLTorchError(f"the encoder {data['class']} was saved without its constructor arguments "
                           "(give it a config() method), so it cannot be rebuilt from data")
    if cls is PairEncoder:
        return PairEncoder(encoder_from_data(args["state_encoder"]), int(args["actions"]))
    if cls is SpaceEncoder:
        return SpaceEncoder([(int(start), int(n)) for start, n in args["sizes"]])
    return cls(**args)
