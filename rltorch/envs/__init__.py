"""Environments, registered with Gymnasium under the `rltorch/` namespace."""

import gymnasium as gym

from rltorch.envs.blackjack.env import BlackjackEnv
from rltorch.envs.tictactoe.env import SmartRandomOpponent, TicTacToeEnv

for _id, _entry in (
    ("rltorch/TicTacToe-v0", "rltorch.envs.tictactoe.env:TicTacToeEnv"),
    ("rltorch/Blackjack-v0", "rltorch.envs.blackjack.env:BlackjackEnv"),
):
    if _id not in gym.registry:
        gym.register(id=_id, entry_point=_entry)

__all__ = ["BlackjackEnv", "SmartRandomOpponent", "TicTacToeEnv"]
