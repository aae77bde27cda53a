"""rltorch: tabular and afterstate reinforcement learning on PyTorch."""

from rltorch import envs
from rltorch.agents import GreedyAgent, RandomAgent
from rltorch.checkpoints import load, load_checkpoint, save_checkpoint
from rltorch.errors import RLTorchError
from rltorch.keys import AfterstateKeys, StateActionKeys
from rltorch.trainers import MCTrainer, QLearningTrainer, SARSATrainer, Trainer
from rltorch.values import QTable, VTable

__all__ = [
    "AfterstateKeys",
    "GreedyAgent",
    "MCTrainer",
    "QLearningTrainer",
    "QTable",
    "RLTorchError",
    "RandomAgent",
    "SARSATrainer",
    "StateActionKeys",
    "Trainer",
    "VTable",
    "envs",
    "load",
    "load_checkpoint",
    "save_checkpoint",
]
