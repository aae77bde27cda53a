"""The random walks of Sutton & Barto's Example 6.2 (five states) and Example 7.1 (nineteen states)."""

from rltorch.envs.random_walk.env import ENV_ID, ENV_ID_19, ENV_KWARGS, ENV_KWARGS_19, RandomWalkEnv

REGISTRATIONS = (
    (ENV_ID, "rltorch.envs.random_walk.env:RandomWalkEnv", ENV_KWARGS),
    (ENV_ID_19, "rltorch.envs.random_walk.env:RandomWalkEnv", ENV_KWARGS_19),
)

__all__ = ["ENV_ID", "ENV_ID_19", "ENV_KWARGS", "ENV_KWARGS_19", "REGISTRATIONS", "RandomWalkEnv"]
