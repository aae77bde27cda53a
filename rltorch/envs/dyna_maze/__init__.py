"""The Dyna maze of Sutton & Barto's Example 8.1."""

from rltorch.envs.dyna_maze.env import ENV_ID, ENV_KWARGS, DynaMazeEnv

REGISTRATIONS = ((ENV_ID, "rltorch.envs.dyna_maze.env:DynaMazeEnv", ENV_KWARGS),)

__all__ = ["ENV_ID", "ENV_KWARGS", "REGISTRATIONS", "DynaMazeEnv"]
