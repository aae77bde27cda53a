"""The random walks of Sutton & Barto's Example 6.2 (five states), Example 7.1 (nineteen) and Example 9.1 (1000)."""

from rltorch.envs.random_walk.env import ENV_ID, ENV_ID_19, ENV_KWARGS, ENV_KWARGS_19, RandomWalkEnv
from rltorch.envs.random_walk.jumps import ENV_ID_1000, ENV_KWARGS_1000, JumpWalkEnv

REGISTRATIONS = (
    (ENV_ID, "rltorch.envs.random_walk.env:RandomWalkEnv", ENV_KWARGS),
    (ENV_ID_19, "rltorch.envs.random_walk.env:RandomWalkEnv", ENV_KWARGS_19),
    (ENV_ID_1000, "rltorch.envs.random_walk.jumps:JumpWalkEnv", ENV_KWARGS_1000),
)

__all__ = ["ENV_ID", "ENV_ID_19", "ENV_ID_1000", "ENV_KWARGS", "ENV_KWARGS_19", "ENV_KWARGS_1000", "REGISTRATIONS",
           "JumpWalkEnv", "RandomWalkEnv"]
