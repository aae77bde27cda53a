"""Trainers: one class per algorithm over a shared episode loop."""

from rltorch.trainers.base import Trainer
from rltorch.trainers.mc import MCExploringStarts, MCPrediction, MCTrainer, MonteCarloTrainer
from rltorch.trainers.offpolicy import OffPolicyMCControl, OffPolicyMCPrediction
from rltorch.trainers.replay import ReplayBuffer
from rltorch.trainers.stats import EpisodeStats, Outcomes
from rltorch.trainers.td import QLearningTrainer, SARSATrainer

# The control algorithms `python -m rltorch train --algo NAME` offers (prediction needs a policy to evaluate).
TRAINERS = {
    "sarsa": SARSATrainer,
    "qlearning": QLearningTrainer,
    "mc": MCTrainer,
    "mc-es": MCExploringStarts,
    "mc-offpolicy": OffPolicyMCControl,
}

__all__ = [
    "TRAINERS", "EpisodeStats", "MCExploringStarts", "MCPrediction", "MCTrainer", "MonteCarloTrainer",
    "OffPolicyMCControl", "OffPolicyMCPrediction", "Outcomes", "QLearningTrainer", "ReplayBuffer", "SARSATrainer",
    "Trainer",
]
