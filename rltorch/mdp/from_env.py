"""Finite models of environments: an env's own `model()`, or one built from a Gymnasium toy-text `P` table.

Gymnasium's toy-text envs (FrozenLake, CliffWalking, Taxi) expose `P[s][a]`, a list of
`(probability, next_state, reward, terminated)`, and `initial_state_distrib`, a numpy array over
the states 0..nS-1. Outcomes of one (s, a) with the same next state, reward and ending are merged
(slippery FrozenLake lists a wall bump several times). The env's time limit
(`spec.max_episode_steps`) becomes the model's `horizon`.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from typing import Any

import numpy as np

from rltorch.errors import RLTorchError
from rltorch.mdp.model import FiniteModel, Transition


def model_of(env: Any) -> FiniteModel | None:
    """The env's validated finite model: its own `model()`, else one built from a toy-text `P`, else None."""
    unwrapped = getattr(env, "unwrapped", env)
    build = getattr(unwrapped, "model", None)
    if callable(build):
        model = build()
        if model.horizon is None:
            model.horizon = _time_limit(env)
        return model.validate()
    if isinstance(getattr(unwrapped, "P", None), Mapping):
        return from_gymnasium(env)
    return None


def from_gymnasium(env: Any, *, start: Mapping[Hashable, float] | None = None) -> FiniteModel:
    """The validated model of a Gymnasium toy-text env from its `P` table (`start` overrides its start distribution)."""
    unwrapped = getattr(env, "unwrapped", env)
    table = getattr(unwrapped, "P", None)
    if not isinstance(table, Mapping):
        raise RLTorchError(f"{type(unwrapped).__name__} has no toy-text transition table P")
    if getattr(unwrapped, "fickle_passenger", False):
        raise RLTorchError("Taxi's fickle passenger changes destination outside P; its model would be wrong")
    num_actions = int(unwrapped.action_space.n)
    states = sorted(int(state) for state in table)
    actions: dict[Hashable, list[int]] = {}
    transitions: dict[tuple[Hashable, int], list[Transition]] = {}
    for state in states:
        row = table[state]
        actions[state] = [action for action in range(num_actions) if row.get(action)]
        for action in actions[state]:
            transitions[(state, action)] = merge_outcomes(row[action])
    return FiniteModel(
        states=states,
        actions=actions,
        transitions=transitions,
        start=dict(start) if start is not None else _start_distribution(unwrapped),
        name=_env_name(env),
        horizon=_time_limit(env),
    ).validate()


def merge_outcomes(outcomes: list[tuple[Any, Any, Any, Any]]) -> list[Transition]:
    """Plain-number transitions; outcomes sharing (next state, reward, terminal) merged, in first-seen order."""
    merged: dict[tuple[int, float, bool], float] = {}
    for probability, next_state, reward, terminal in outcomes:
        key = (int(next_state), float(reward), bool(terminal))
        merged[key] = merged.get(key, 0.0) + float(probability)
    return [Transition(p, next_state, reward, terminal) for (next_state, reward, terminal), p in merged.items()]


def _start_distribution(unwrapped: Any) -> dict[Hashable, float]:
    """The nonzero entries of the env's `initial_state_distrib`."""
    distribution = getattr(unwrapped, "initial_state_distrib", None)
    if distribution is None:
        raise RLTorchError(f"{type(unwrapped).__name__} has no initial_state_distrib; pass start= to from_gymnasium")
    weights = np.asarray(distribution, dtype=float)
    return {int(state): float(weights[state]) for state in np.flatnonzero(weights)}


def _time_limit(env: Any) -> int | None:
    """The env's `spec.max_episode_steps` (None when there is no time limit)."""
    spec = getattr(env, "spec", None)
    steps = getattr(spec, "max_episode_steps", None)
    return int(steps) if steps is not None else None


def _env_name(env: Any) -> str:
    """The env's registered id, else its class name."""
    spec = getattr(env, "spec", None)
    return str(getattr(spec, "id", None) or type(getattr(env, "unwrapped", env)).__name__)
