"""rltorch: tabular and afterstate reinforcement learning on PyTorch.

Importing the package registers its envs with Gymnasium and nothing more; each public name is imported
the first time it is used (so `rltorch --help` starts without loading torch).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from rltorch import envs  # noqa: F401  (registers rltorch's envs with Gymnasium)

_HOMES = {  # public name -> the module it comes from
    "OneStepTrainer": "rltorch.trainers.td",
    "Callback": "rltorch.callbacks",
    "ConstantSchedule": "rltorch.policies",
    "LinearSchedule": "rltorch.policies",
    "ExponentialSchedule": "rltorch.policies",
    "TensorBoardLogger": "rltorch.logger",
    "BatchedEngine": "rltorch.engines",
    "AfterstateKeys": "rltorch.keys",
    "DoubleQLearningTrainer": "rltorch.trainers",
    "DynaQTrainer": "rltorch.trainers",
    "ExpectedSARSATrainer": "rltorch.trainers",
    "GreedyAgent": "rltorch.agents",
    "MCExploringStarts": "rltorch.trainers",
    "MCPrediction": "rltorch.trainers",
    "MCTrainer": "rltorch.trainers",
    "NStepExpectedSARSATrainer": "rltorch.trainers",
    "NStepSARSATrainer": "rltorch.trainers",
    "NStepTDPrediction": "rltorch.trainers",
    "OffPolicyMCControl": "rltorch.trainers",
    "OffPolicyMCPrediction": "rltorch.trainers",
    "PolicyAgent": "rltorch.agents",
    "QNetwork": "rltorch.values",
    "QLearningTrainer": "rltorch.trainers",
    "QTable": "rltorch.values",
    "RLTorchError": "rltorch.errors",
    "RandomAgent": "rltorch.agents",
    "SARSATrainer": "rltorch.trainers",
    "StateActionKeys": "rltorch.keys",
    "StateKeys": "rltorch.keys",
    "TDPrediction": "rltorch.trainers",
    "Trainer": "rltorch.trainers",
    "VNetwork": "rltorch.values",
    "VTable": "rltorch.values",
    "load": "rltorch.checkpoints",
    "load_checkpoint": "rltorch.checkpoints",
    "save_checkpoint": "rltorch.checkpoints",
    "save_module": "rltorch.checkpoints",
}

if TYPE_CHECKING:  # for type checkers and editors: the names as if imported eagerly
    from rltorch.agents import GreedyAgent, PolicyAgent, RandomAgent  # noqa: F401
    from rltorch.checkpoints import load, load_checkpoint, save_checkpoint, save_module  # noqa: F401
    from rltorch.errors import RLTorchError  # noqa: F401
    from rltorch.keys import AfterstateKeys, StateActionKeys, StateKeys  # noqa: F401
    from rltorch.values import QNetwork, QTable, VNetwork, VTable  # noqa: F401


def __getattr__(name: str) -> Any:
    """Import a public name from its module on first use."""
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'rltorch' has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    """The public names, imported or not."""
    return sorted([*globals(), *_HOMES])


__all__ = sorted([*_HOMES, "envs"])
