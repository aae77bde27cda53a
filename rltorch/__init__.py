"""rltorch: tabular and afterstate reinforcement learning on PyTorch."""

from rltorch import envs
from rltorch.agents import GreedyAgent, PolicyAgent, RandomAgent
from rltorch.checkpoints import load, load_checkpoint, save_checkpoint, save_module
from rltorch.errors import RLTorchError
from rltorch.keys import AfterstateKeys, StateActionKeys
from rltorch.trainers import (
    DoubleQLearningTrainer,
    DynaQTrainer,
    ExpectedSARSATrainer,
    MCExploringStarts,
    MCPrediction,
    MCTrainer,
    NStepExpectedSARSATrainer,
    NStepSARSATrainer,
    NStepTDPrediction,
    OffPolicyMCControl,
    OffPolicyMCPrediction,
    QLearningTrainer,
    SARSATrainer,
    TDPrediction,
    Trainer,
)
from rltorch.values import QNetwork, QTable, VNetwork, VTable

__all__ = [
    "AfterstateKeys",
    "DoubleQLearningTrainer",
    "DynaQTrainer",
    "ExpectedSARSATrainer",
    "GreedyAgent",
    "MCExploringStarts",
    "MCPrediction",
    "MCTrainer",
    "NStepExpectedSARSATrainer",
    "NStepSARSATrainer",
    "NStepTDPrediction",
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
    "TDPrediction",
    "Trainer",
    "VNetwork",
    "VTable",
    "envs",
    "load",
    "load_checkpoint",
    "save_checkpoint",
    "save_module",
]
