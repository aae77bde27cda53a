"""Environments, registered with Gymnasium under the `rltorch/` namespace."""

import gymnasium as gym

from rltorch.envs.tictactoe import RandomOpponent, SmartRandomOpponent, TicTacToeEnv

if "rltorch/TicTacToe-v0" not in gym.registry:
    gym.register(id="rltorch/TicTacToe-v0", entry_point="rltorch.envs.tictactoe:TicTacToeEnv")

__all__ = ["RandomOpponent", "SmartRandomOpponent", "TicTacToeEnv"]
