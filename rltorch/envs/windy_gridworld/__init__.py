"""The windy grid world of Sutton & Barto's Example 6.5 and its variants from Exercises 6.9 and 6.10."""

from rltorch.envs.windy_gridworld.env import (
    ENV_ID,
    ENV_ID_KINGS,
    ENV_ID_STOCHASTIC,
    ENV_KWARGS,
    ENV_KWARGS_KINGS,
    ENV_KWARGS_STOCHASTIC,
    WindyGridworldEnv,
)

_ENTRY_POINT = "rltorch.envs.windy_gridworld.env:WindyGridworldEnv"
REGISTRATIONS = (
    (ENV_ID, _ENTRY_POINT, ENV_KWARGS),
    (ENV_ID_KINGS, _ENTRY_POINT, ENV_KWARGS_KINGS),
    (ENV_ID_STOCHASTIC, _ENTRY_POINT, ENV_KWARGS_STOCHASTIC),
)

__all__ = [
    "ENV_ID",
    "ENV_ID_KINGS",
    "ENV_ID_STOCHASTIC",
    "ENV_KWARGS",
    "ENV_KWARGS_KINGS",
    "ENV_KWARGS_STOCHASTIC",
    "REGISTRATIONS",
    "WindyGridworldEnv",
]
