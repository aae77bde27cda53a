"""Blackjack: the env (infinite deck or a shoe), its exact solvers, encoder and evaluation."""

from rltorch.envs.blackjack.env import HIT, STICK, BlackjackEnv

__all__ = ["HIT", "STICK", "BlackjackEnv"]
