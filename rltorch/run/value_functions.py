"""`--value-fn NAME`: the value functions a run can learn in, each declaring its options and how it is built.

`NAME` is one of `VALUE_FUNCTIONS`, or `module:Class` for a user's `ValueFunction` subclass with a
classmethod `for_run(config, env)` (and optionally `options`, a tuple of `rltorch.options.Option`). As for
envs and algorithms, a module typed on the command line is imported; one named only inside a file is not.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch

from rltorch.errors import RLTorchError
from rltorch.options import Option
from rltorch.run.config import RunConfig
from rltorch.run.envs import hook, import_user_module
from rltorch.run.options import name_or_module_class
from rltorch.trainers import Trainer
from rltorch.values import QNetwork, QTable, ValueFunction, VNetwork, VTable
from rltorch.values.base import imported_class
from rltorch.values.encoders import space_encoder
from rltorch.values.weighted import WeightedQTable

Builder = Callable[[RunConfig, Any, type[Trainer]], ValueFunction]


@dataclass(frozen=True)
class ValueFunctionKind:
    """One `--value-fn` choice: what it is, the options it reads, and how a run builds it."""

    help: str
    options: tuple[Option, ...]
    build: Builder


def table(config: RunConfig, env: Any, algorithm: type[Trainer]) -> ValueFunction:
    """The table the algorithm needs: weighted, or by afterstates or (state, action) with its step size."""
    if algorithm.weighted_updates:
        return WeightedQTable()
    alpha = algorithm.step_size(config.alpha, config.algo_options)
    return VTable(alpha=alpha) if config.values == "afterstate" else QTable(alpha=alpha)


def network(config: RunConfig, env: Any, algorithm: type[Trainer]) -> ValueFunction:
    """An MLP over the env's encoder (or its observation space's), seeded by `--seed`."""
    options = config.value_fn_options
    torch.manual_seed(config.seed)  # the network's initial weights
    encoder = hook(env, "encoder")
    encoder = encoder() if encoder is not None else None
    try:
        encoder = encoder or space_encoder(env.observation_space)
        shared = {"hidden": options["hidden"], "lr": options["lr"], "device": options["device"],
                  "threads": config.threads}
        if config.values == "afterstate":
            return VNetwork(encoder, **shared)
        return QNetwork(encoder, int(env.action_space.n), **shared)
    except ValueError as error:
        raise RLTorchError(str(error)) from None


NETWORK_OPTIONS = (
    Option("hidden", int, [64], "mlp hidden layer widths", minimum=1, maximum=65_536, many=True),
    Option("lr", float, 1e-3, "mlp Adam learning rate", minimum=0, maximum=10.0),
    Option("device", str, "cpu", "where an mlp runs", choices=("cpu", "cuda", "auto")),
)

VALUE_FUNCTIONS: dict[str, ValueFunctionKind] = {
    "table": ValueFunctionKind("a dict-backed table (the algorithm's own kind)", (), table),
    "mlp": ValueFunctionKind("a neural network behind the same interface", NETWORK_OPTIONS, network),
}


value_function_name = name_or_module_class(VALUE_FUNCTIONS)  # a `--value-fn` value


def import_user_value_function(spec: str) -> None:
    """Import the module of a `module:Class` the user typed (nothing for a registered name)."""
    if spec not in VALUE_FUNCTIONS:
        import_user_module(spec, what="value function")


def value_function_kind(spec: str, source: str = "--value-fn") -> ValueFunctionKind:
    """The kind `spec` names: registered, or a user's class from a module already imported (never imported here)."""
    if spec in VALUE_FUNCTIONS:
        return VALUE_FUNCTIONS[spec]
    found: Any = imported_class(spec, ValueFunction, source, "value function", f"--value-fn {spec}")
    if not hasattr(found, "for_run"):
        raise RLTorchError(f"{spec!r} has no classmethod for_run(config, env) to build it for a run")
    return ValueFunctionKind(found.__doc__ or spec, tuple(getattr(found, "options", ())),
                             lambda config, env, algorithm: found.for_run(config, env))
