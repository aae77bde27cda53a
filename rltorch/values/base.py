"""The value-function interface every table and network implements."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Hashable, Sequence
from typing import Any

import torch
from torch import nn

from rltorch.errors import RLTorchError


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
        """Constructor settings as plain data, saved in checkpoints beside the `state_dict`."""
        return {"class": saved_class_name(self)}

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> ValueFunction:
        """Build a value function from what `config()` returned (the class name aside)."""
        return cls(**{name: value for name, value in config.items() if name != "class"})

    def training_state(self) -> dict[str, Any]:
        """What resuming training needs beyond `state_dict()` (an optimizer's state), as data; none by default."""
        return {}

    def load_training_state(self, state: dict[str, Any]) -> None:
        """Put back what `training_state()` returned."""

    def diagnostics(self) -> dict[str, float]:
        """Scalars to log each block, e.g. `table/size` or `loss/value`; none by default."""
        return {}

    def histogram_values(self) -> list[float]:
        """Values to show as a TensorBoard histogram at each evaluation; none by default."""
        return []


def rltorch_class(spec: str, base: type) -> type:
    """The class named "module:Class" if its module is rltorch's own and it subclasses `base`, else RLTorchError.

    Checkpoints name classes this way; only rltorch's modules are imported, never a module named in a file.
    """
    module_name, _, name = str(spec).partition(":")
    if not (module_name == "rltorch" or module_name.startswith("rltorch.")) or not name:
        raise RLTorchError(f"{spec!r} is not a class of rltorch's own modules")
    try:
        found: Any = importlib.import_module(module_name)
        for part in name.split("."):
            if part.startswith("_"):
                raise AttributeError(part)
            found = getattr(found, part)
    except (ImportError, AttributeError, ValueError):
        raise RLTorchError(f"no class {spec!r} in rltorch") from None
    if not (isinstance(found, type) and issubclass(found, base)):
        raise RLTorchError(f"{spec!r} is not a {base.__name__}")
    return found


def imported_class(spec: str, base: type, source: str, what: str, naming: str) -> type:
    """The class "module:Class" of a module already imported (never imported here), if it subclasses `base`.

    A module named only in a file (a checkpoint) is refused in one line that says how to allow it: `naming`,
    e.g. "--algo my_algos:MyQLearning".
    """
    module_name, _, name = str(spec).rpartition(":")
    if module_name not in sys.modules:
        raise RLTorchError(f"{source} asks for {what} {spec!r} from module {module_name!r}, which rltorch does not "
                           f"import for a file; name it yourself with {naming}")
    found: Any = getattr(sys.modules[module_name], name, None)
    if not (isinstance(found, type) and issubclass(found, base)):
        raise RLTorchError(f"{spec!r} is not a subclass of {base.__module__}.{base.__qualname__}")
    return found


def saved_class_name(obj: object) -> str:
    """How a checkpoint names `obj`'s class: rltorch's own by name, a user's as "module:Class"."""
    return type(obj).__name__ if type(obj).__module__.startswith("rltorch.") else class_spec(obj)


def class_spec(obj: object) -> str:
    """The "module:Class" name of `obj`'s class."""
    return f"{type(obj).__module__}:{type(obj).__qualname__}"
