"""What a prediction run (`--algo gradient-mc`, `td-lambda`, ...) adds to the one run path: its exact yardsticks.

A prediction trainer declares `predicts_state_values`: it learns v̂(s) of a fixed policy, here the uniform random
policy over the env's legal actions (`rltorch.trainers.prediction.UniformRandomPolicy`), keyed by the states. On
an env with a finite model, every evaluation logs the exact yardsticks of `rltorch.mdp.linear.linear_yardsticks`
for that policy: `exact/ve` (VE = Σ μ(s) (v_π(s) − v̂(s))², μ the on-policy distribution), and for a linear value
function or a table also `exact/ve_mc_limit` (gradient MC's asymptote) and `exact/ve_td_fixed_point`. They are
the policy's chain without the env's time limit, on models of up to `MAX_STATES` states (they solve dense
S × S systems). The run's report and `rltorch evaluate` print the same figures.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

import numpy as np
import torch

from rltorch.envs.context import EnvContext
from rltorch.errors import RLTorchError
from rltorch.features.base import Features
from rltorch.mdp import uniform_policy
from rltorch.mdp.linear import LinearYardsticks, linear_yardsticks
from rltorch.mdp.model import FiniteModel
from rltorch.run.config import RunConfig
from rltorch.trainers import Trainer
from rltorch.values import ValueFunction, VTable
from rltorch.values.linear import LinearValueFunction

MAX_STATES = 5000
POLICY = "UniformRandomPolicy()"  # the evaluated policy of a command-line prediction run, as its config names it
NAMES = {"exact/ve": "VE", "exact/ve_mc_limit": "gradient MC's limit", "exact/ve_td_fixed_point": "TD fixed point"}


class TableFeatures(Features):
    """A table read as linear features: one-hot over a model's states, in the model's order (for the yardsticks)."""

    kind = "table"

    def __init__(self, size: int) -> None:
        self.size = size

    def encode(self, states: torch.Tensor) -> torch.Tensor:
        """The identity: row i is the one-hot vector of the model's state i."""
        if states.shape[0] != self.size:
            raise RLTorchError(f"table features encode the model's {self.size} states, got {states.shape[0]}")
        return torch.eye(self.size, dtype=torch.float64)

    def config(self) -> dict[str, Any]:
        """The size."""
        return {"kind": self.kind, "size": self.size}


class StateValueErrors:
    """An `exact_eval` hook: the value error of an agent's state values on every model state (and the limits)."""

    def __init__(self, sticks: LinearYardsticks, states: list[Any], limits: bool) -> None:
        self.sticks, self.states, self.limits = sticks, states, limits

    def __call__(self, agent: Any) -> dict[str, float]:
        """`exact/ve` of v̂ = the agent's values of the states, with the limits when the values are a table."""
        values = np.asarray(agent.value_fn.values(self.states), dtype=np.float64)
        scalars = self.sticks.scalars(values)
        return scalars if self.limits else {"exact/ve": scalars["exact/ve"]}


def value_errors(model: FiniteModel | None, value_fn: ValueFunction, gamma: float) -> Callable[[Any], dict] | None:
    """The exact yardsticks of the uniform random policy for `value_fn`, as an `exact_eval` hook (None: no model).

    A linear v̂ (one weight row) gets the three figures of its features, a table those of one-hot features (both
    limits are then v_π itself), any other value function its VE alone. RLTorchError when the policy's chain
    has no on-policy distribution or TD fixed point.
    """
    if model is None or len(model.states) > MAX_STATES:
        return None
    policy = uniform_policy(model)
    if isinstance(value_fn, LinearValueFunction) and value_fn.actions is None:
        return linear_yardsticks(model, policy, gamma, value_fn.features).exact_eval
    try:
        sticks = linear_yardsticks(model, policy, gamma, TableFeatures(len(model.states)))
    except (TypeError, ValueError):  # states that are not numbers or tuples of numbers
        return None
    return StateValueErrors(sticks, list(model.states), limits=isinstance(value_fn, VTable))


def check_prediction_options(algorithm: type[Trainer], config: RunConfig) -> None:
    """ValueError (one line from the parser) for options that make no sense with a prediction algorithm."""
    if not algorithm.predicts_state_values:
        return
    name = algorithm.algorithm
    if config.values != "q":
        raise ValueError(f"--algo {name} learns the state values v̂(s) of a fixed policy, keyed by the states: "
                         "drop --values afterstate")
    if config.settings.get("runs") is not None or config.settings.get("sweep"):
        raise ValueError(f"--runs and --sweep need an algorithm with a fast form on the batched engine, and {name} "
                         "(prediction) has none there: train its seeds one at a time with --seed (many runs of it "
                         "run in rltorch.engines.linear_prediction, as the chapter 9 and 12 scripts do)")


def describe_errors(errors: dict[str, float], policy: str) -> str:
    """The report's line: the value error of v̂ under the evaluated policy, with the limits beside it."""
    figures = [f"{NAMES.get(tag, tag)} {value:.6g}" for tag, value in errors.items()]
    return f"exact value error of v̂ under {policy}: {figures[0]}" + (
        f" ({', '.join(figures[1:])})" if len(figures) > 1 else "")


def evaluate_state_values(args: argparse.Namespace, env: Any, value_fn: ValueFunction, config: dict[str, Any],
                          gamma: float) -> None:
    """`rltorch evaluate` of a prediction checkpoint: its exact value errors (RLTorchError where there are none)."""
    policy = config.get("policy")
    if policy != POLICY:
        raise RLTorchError(f"{args.checkpoint} holds state values of the policy {policy!r}, which rltorch cannot "
                           "rebuild: value them in Python with rltorch.mdp.linear.linear_yardsticks")
    errors = value_errors(EnvContext(env, gamma).model, value_fn, gamma)
    if errors is None:
        raise RLTorchError(f"{args.checkpoint} holds state values for {env.spec.id if env.spec else env}, which has no "
                           f"finite model of at most {MAX_STATES:,} states to value them on")
    figures = errors(SimpleNamespace(value_fn=value_fn))  # what the hooks read of an agent
    if args.json:
        print(json.dumps({tag.removeprefix("exact/"): value for tag, value in figures.items()}, indent=2))
        return
    print(describe_errors(figures, policy))

