"""Trainers: one class per algorithm over a shared episode loop."""

from rltorch.trainers.base import Outcomes, Trainer
from rltorch.trainers.mc import MCTrainer
from rltorch.trainers.offpolicy import OffPolicyMCTrainer
from rltorch.trainers.td import QLearningTrainer, SARSATrainer

TRAINERS = {"sarsa": SARSATrainer, "qlearning": QLearningTrainer, "mc": MCTrainer}

__all__ = ["MCTrainer", "OffPolicyMCTrainer", "Outcomes", "QLearningTrainer", "SARSATrainer", "TRAINERS", "Trainer"]
