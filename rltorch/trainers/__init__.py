"""Trainers: one class per algorithm over a shared episode loop."""

from rltorch.trainers.approx_prediction import GradientMC, NStepSemiGradientTD, SemiGradientTD
from rltorch.trainers.base import Trainer
from rltorch.trainers.dqn import DQNTrainer
from rltorch.trainers.mc import MCExploringStarts, MCPrediction, MCTrainer, MonteCarloTrainer
from rltorch.trainers.nstep import NStepExpectedSARSATrainer, NStepSARSATrainer, NStepTD, NStepTDPrediction
from rltorch.trainers.offpolicy import OffPolicyMCControl, OffPolicyMCPrediction
from rltorch.trainers.planning import DynaQTrainer
from rltorch.trainers.prediction import PolicyPrediction, TDPrediction
from rltorch.trainers.replay import ReplayBuffer
from rltorch.trainers.stats import EpisodeStats, Outcomes
from rltorch.trainers.td import DoubleQLearningTrainer, ExpectedSARSATrainer, QLearningTrainer, SARSATrainer
from rltorch.trainers.traces_control import SARSALambdaTrainer, TrueOnlineSARSALambdaTrainer
from rltorch.trainers.traces_prediction import OfflineLambdaReturn, TDLambda, TrueOnlineTDLambda

# The algorithms `python -m rltorch train --algo NAME` offers: control, then the book's prediction methods, which
# evaluate the uniform random policy over the legal actions (their class declares `predicts_state_values`).
TRAINERS = {
    "sarsa": SARSATrainer,
    "qlearning": QLearningTrainer,
    "dqn": DQNTrainer,
    "expected-sarsa": ExpectedSARSATrainer,
    "double-qlearning": DoubleQLearningTrainer,
    "nstep-sarsa": NStepSARSATrainer,
    "nstep-expected-sarsa": NStepExpectedSARSATrainer,
    "sarsa-lambda": SARSALambdaTrainer,
    "true-online-sarsa-lambda": TrueOnlineSARSALambdaTrainer,
    "dyna-q": DynaQTrainer,
    "mc": MCTrainer,
    "mc-es": MCExploringStarts,
    "mc-offpolicy": OffPolicyMCControl,
    **{cls.algorithm: cls for cls in (GradientMC, SemiGradientTD, NStepSemiGradientTD, OfflineLambdaReturn, TDLambda,
                                      TrueOnlineTDLambda)},
}

__all__ = [
    "TRAINERS", "DQNTrainer", "DoubleQLearningTrainer", "DynaQTrainer", "EpisodeStats", "ExpectedSARSATrainer",
    "GradientMC", "MCExploringStarts", "NStepSemiGradientTD", "OfflineLambdaReturn", "SemiGradientTD", "TDLambda",
    "TrueOnlineTDLambda",
    "MCPrediction", "MCTrainer", "MonteCarloTrainer", "NStepExpectedSARSATrainer", "NStepSARSATrainer", "NStepTD",
    "NStepTDPrediction", "OffPolicyMCControl", "OffPolicyMCPrediction", "Outcomes", "PolicyPrediction",
    "QLearningTrainer", "ReplayBuffer", "SARSALambdaTrainer", "SARSATrainer", "TDPrediction", "Trainer",
    "TrueOnlineSARSALambdaTrainer",
]
