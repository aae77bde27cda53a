"""rltorch: tabular and afterstate reinforcement learning on PyTorch."""

from rltorch import envs
from rltorch.agents import GreedyAgent, PolicyAgent, RandomAgent
from rltorch.checkpoints import load, load_checkpoint, save_checkpoint, save_module
from rltorch.errors import RLTorchError
from rltorch.keys import AfterstateKeys, StateActionKeys
from rltorch.trainers import (
    MCExploringStarts,
    MCPrediction,
    MCTrainer,
    OffPolicyMCControl,
    OffPolicyMCPrediction,
    QLearningTrainer,
    SARSATrainer,
    Trainer,
)
from rltorch.values import QNetwork, QTable, VNetwork, VTable

__all__ = [
    "AfterstateKeys",
    "GreedyAgent",
    "MCExploringStarts",
    "MCPrediction",
    "MCTrainer",
    "OffPolicyMCControl",
    "OffPolicyMCPrediction",
    "PolicyAgent",
    "QNetwork",
    "QLearningTrainer",
    "QTable",
    "RLTorchError",
    "RandomAgent",
    "SARSATrainer",
    "StateActionKeys",
    "Trainer",
    "VNetwork",
    "VTable",
    "envs",
    "load",
    "load_checkpoint",
    "save_checkpoint",
    "save_module",
]
