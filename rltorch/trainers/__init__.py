"""Trainers: one class per algorithm over a shared episode loop."""

from rltorch.trainers.base import Outcomes, Trainer
from rltorch.trainers.mc import MCTrainer
from rltorch.trainers.td import QLearningTrainer, SARSATrainer

TRAINERS = {"sarsa": SARSATrainer, "qlearning": QLearningTrainer, "mc": MCTrainer}

__all__ = ["MCTrainer", "Outcomes", "QLearningTrainer", "SARSATrainer", "TRAINERS", "Trainer"]
