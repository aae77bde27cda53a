"""Finite MDP models and their exact solutions, the yardstick every learner is measured against."""

from rltorch.mdp.arrays import ModelArrays
from rltorch.mdp.from_env import from_gymnasium, model_of
from rltorch.mdp.model import FiniteModel, Transition
from rltorch.mdp.policies import PolicyDistribution, deterministic_policy, epsilon_greedy_policy, uniform_policy
from rltorch.mdp.solve import (
    Solution,
    evaluate_policy,
    expected_return,
    outcome_probabilities,
    q_from_v,
    sign_outcome,
    value_iteration,
)

__all__ = [
    "FiniteModel",
    "ModelArrays",
    "PolicyDistribution",
    "Solution",
    "Transition",
    "deterministic_policy",
    "epsilon_greedy_policy",
    "evaluate_policy",
    "expected_return",
    "from_gymnasium",
    "model_of",
    "outcome_probabilities",
    "q_from_v",
    "sign_outcome",
    "uniform_policy",
    "value_iteration",
]
