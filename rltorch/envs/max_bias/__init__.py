"""The maximization-bias MDP of Sutton & Barto's Example 6.7."""

from rltorch.envs.max_bias.env import ENV_ID, ENV_KWARGS, LEFT, RIGHT, STATE_A, STATE_B, TERMINAL, MaximizationBiasEnv

REGISTRATIONS = ((ENV_ID, "rltorch.envs.max_bias.env:MaximizationBiasEnv", ENV_KWARGS),)

__all__ = [
    "ENV_ID",
    "ENV_KWARGS",
    "LEFT",
    "REGISTRATIONS",
    "RIGHT",
    "STATE_A",
    "STATE_B",
    "TERMINAL",
    "MaximizationBiasEnv",
]
