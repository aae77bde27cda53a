"""Environments, registered with Gymnasium under the `rltorch/` namespace."""

import gymnasium as gym

from rltorch.envs.blackjack import BlackjackEnv
from rltorch.envs.tictactoe import SmartRandomOpponent, TicTacToeEnv

for _id, _entry in (
    ("rltorch/TicTacToe-v0", "rltorch.envs.tictactoe:TicTacToeEnv"),
    ("rltorch/Blackjack-v0", "rltorch.envs.blackjack:BlackjackEnv"),
):
    if _id not in gym.registry:
        gym.register(id=_id, entry_point=_entry)

__all__ = ["BlackjackEnv", "SmartRandomOpponent", "TicTacToeEnv"]
