"""Environments, one package per game or world, registered with Gymnasium under the `rltorch/` namespace."""

import gymnasium as gym

from rltorch.envs import dyna_maze, max_bias, random_walk, windy_gridworld
from rltorch.envs.blackjack.env import BlackjackEnv
from rltorch.envs.tictactoe.env import TicTacToeEnv
from rltorch.envs.tictactoe.opponents import SmartRandomOpponent

REGISTRATIONS = (
    ("rltorch/TicTacToe-v0", "rltorch.envs.tictactoe.env:TicTacToeEnv", None),
    ("rltorch/Blackjack-v0", "rltorch.envs.blackjack.env:BlackjackEnv", None),
    *random_walk.REGISTRATIONS,
    *windy_gridworld.REGISTRATIONS,
    *max_bias.REGISTRATIONS,
    *dyna_maze.REGISTRATIONS,
    ("rltorch/2048-v0", "rltorch.envs.game2048.env:Game2048Env", None),
)

for _id, _entry, _kwargs in REGISTRATIONS:
    if _id not in gym.registry:
        gym.register(id=_id, entry_point=_entry, kwargs=_kwargs or {})

__all__ = ["BlackjackEnv", "REGISTRATIONS", "SmartRandomOpponent", "TicTacToeEnv"]
