"""`--value-fn NAME`: the value functions a run can learn in, each declaring its options and how it is built.

`NAME` is one of `VALUE_FUNCTIONS`, or `module:Class` for a user's `ValueFunction` subclass with a
classmethod `for_run(config, env)` (and optionally `options`, a tuple of `rltorch.options.Option`). As for
envs and algorithms, a module typed on the command line is imported; one named only inside a file is not.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import gymnasium as gym
import numpy as np
import torch

from rltorch.errors import RLTorchError
from rltorch.features import FourierBasis, PolynomialBasis, StateAggregation, TileCoder
from rltorch.features.base import Features
from rltorch.options import Option
from rltorch.run.config import RunConfig
from rltorch.run.envs import hook, import_user_module
from rltorch.run.options import name_or_module_class
from rltorch.trainers import Trainer
from rltorch.values import QNetwork, QTable, ValueFunction, VNetwork, VTable
from rltorch.values.base import imported_class
from rltorch.values.encoders import Encoder, space_encoder
from rltorch.values.feature_encoder import FeatureEncoder
from rltorch.values.linear import LinearValueFunction
from rltorch.values.ntuple import ntuple_for_env, tuples_option
from rltorch.values.weighted import WeightedQTable

Builder = Callable[[RunConfig, Any, type[Trainer]], ValueFunction]


@dataclass(frozen=True)
class ValueFunctionKind:
    """One `--value-fn` choice: what it is, the options it reads, and how a run builds it."""

    help: str
    options: tuple[Option, ...]
    build: Builder
    traces: bool = True  # can carry an eligibility trace (`Trainer.keeps_traces`): linear, or a one-hot table


def check_fits(algorithm: type[Trainer], kind: ValueFunctionKind, spec: str) -> None:
    """ValueError (one line from the parser) when the algorithm cannot learn in this kind of value function."""
    if algorithm.keeps_traces and not kind.traces:
        raise ValueError(f"--algo {algorithm.algorithm} keeps a trace over the weights of a linear value function "
                         f"or a table with a constant step, which --value-fn {spec} has not: use --value-fn table, "
                         "tiles, aggregation, polynomial or fourier")


def state_values(config: RunConfig, algorithm: type[Trainer]) -> bool:
    """Whether the run learns one value per key (an afterstate, or a prediction's state) rather than per action."""
    return config.values == "afterstate" or algorithm.predicts_state_values


def table(config: RunConfig, env: Any, algorithm: type[Trainer]) -> ValueFunction:
    """The table the algorithm needs: weighted, or by afterstates or states (V) or (state, action) with its step."""
    if algorithm.weighted_updates:
        return WeightedQTable()
    alpha = algorithm.step_size(config.alpha, config.algo_options)
    return VTable(alpha=alpha) if state_values(config, algorithm) else QTable(alpha=alpha)


def network(config: RunConfig, env: Any, algorithm: type[Trainer]) -> ValueFunction:
    """An MLP over the env's encoder (or its observation space's, or tile-coded features), seeded by `--seed`."""
    options = config.value_fn_options
    torch.manual_seed(config.seed)  # the network's initial weights
    encoder = hook(env, "encoder")
    encoder = encoder() if encoder is not None else None
    if options.get("inputs") == "tiles":
        low, high = feature_box(env, "mlp --inputs tiles")
        encoder = FeatureEncoder(low, high, tiles(options, low, high).config())
    try:
        encoder = encoder or state_encoder(env.observation_space)
        shared = {"hidden": options["hidden"], "lr": options["lr"], "device": options["device"],
                  "threads": config.threads}
        if state_values(config, algorithm):
            return VNetwork(encoder, **shared)
        return QNetwork(encoder, int(env.action_space.n), **shared)
    except ValueError as error:
        raise RLTorchError(str(error)) from None


def state_encoder(space: Any) -> Encoder:
    """A network's default input: one-hot for Discrete spaces (and tuples of them), the scaled state for a Box."""
    if isinstance(space, gym.spaces.Box):
        low, high = state_bounds(space, "mlp")
        return FeatureEncoder(low, high)
    return space_encoder(space)


def feature_box(env: Any, kind: str) -> tuple[list[float], list[float]]:
    """The box state features scale into: the env's own (`HasFeatureBounds`), else its observation space's."""
    bounds = hook(env, "feature_bounds")
    if bounds is not None:
        low, high = bounds()
        return [float(x) for x in low], [float(x) for x in high]
    return state_bounds(env.observation_space, kind)


def state_bounds(space: Any, kind: str) -> tuple[list[float], list[float]]:
    """The box the features scale states by: a Box's finite bounds, or [start, start + n] of a Discrete space."""
    if isinstance(space, gym.spaces.Discrete):
        return [float(space.start)], [float(space.start + space.n)]
    if isinstance(space, gym.spaces.Box) and np.isfinite(space.low).all() and np.isfinite(space.high).all():
        return space.low.reshape(-1).astype(float).tolist(), space.high.reshape(-1).astype(float).tolist()
    advice = "--inputs state" if kind.startswith("mlp") else "--value-fn table or mlp"
    raise RLTorchError(f"--value-fn {kind} scales states into known bounds, and observations in {space} have none "
                       f"(a Box with finite bounds or a Discrete space has): use {advice}")


def linear(make: Callable[[dict[str, Any], list[float], list[float]], Features]) -> Builder:
    """The builder of q̂(s, a) = w_a·x(s), or v̂(s) = w·x(s) to predict, over `make`'s features; α / active count."""

    def build(config: RunConfig, env: Any, algorithm: type[Trainer]) -> ValueFunction:
        if config.values == "afterstate":
            raise RLTorchError(f"--value-fn {config.value_fn} learns q(s, a) from state features: use --values q")
        low, high = feature_box(env, config.value_fn)
        features = make(config.value_fn_options, low, high)
        actions = None if algorithm.predicts_state_values else int(env.action_space.n)
        return LinearValueFunction(features, config.alpha / (features.active_count or 1), actions)

    return build


def tiles(options: dict[str, Any], low: list[float], high: list[float]) -> Features:
    """The book's tile coder (section 9.5.4)."""
    return TileCoder(low, high, options["tilings"], options["tiles"], options["hash_size"])


def aggregation(options: dict[str, Any], low: list[float], high: list[float]) -> Features:
    """State aggregation into equal groups."""
    return StateAggregation(options["groups"], low, high)


def polynomial(options: dict[str, Any], low: list[float], high: list[float]) -> Features:
    """The polynomial basis of the state scaled to [0, 1]^d."""
    return PolynomialBasis(options["order"], low, high)


def fourier(options: dict[str, Any], low: list[float], high: list[float]) -> Features:
    """The Fourier cosine basis of the state scaled to [0, 1]^d."""
    return FourierBasis(options["order"], low, high)


def ntuple(config: RunConfig, env: Any, algorithm: type[Trainer]) -> ValueFunction:
    """The n-tuple network over an env's square boards (2048), with `--alpha` and `--tuples`: V of boards."""
    values = "afterstate" if state_values(config, algorithm) else config.values  # a prediction's states are boards
    return ntuple_for_env(env, config.value_fn_options["tuples"], config.alpha, values)


ORDER = Option("order", int, 5, "polynomial and fourier: the order of the basis", minimum=0, maximum=1000)
TILE_OPTIONS = (
    Option("tilings", int, 8, "tiles (and mlp --inputs tiles): offset tilings; --alpha is the book's numerator, "
           "alpha / tilings per weight",
           minimum=1, maximum=4096),
    Option("tiles", int, 8, "tiles (and mlp --inputs tiles): tiles per dimension of each tiling", minimum=1,
           maximum=10**6),
    Option("hash_size", int, 0, "tiles: hash the tiles into this many weights per action (0: one weight per tile); "
           "mlp --inputs tiles: into this many inputs",
           minimum=0, maximum=2**31 - 1),
)
NETWORK_OPTIONS = (
    Option("hidden", int, [64], "mlp hidden layer widths", minimum=1, maximum=65_536, many=True),
    Option("lr", float, 1e-3, "mlp Adam learning rate", minimum=0, maximum=10.0),
    Option("device", str, "cpu", "where an mlp runs", choices=("cpu", "cuda", "auto")),
    Option("inputs", str, "state", "mlp input: the state (a Box scaled to [0, 1], else one-hot or the env's "
           "encoding), or its tile-coded features (--tilings, --tiles, --hash-size)", choices=("state", "tiles")),
    *TILE_OPTIONS,
)

VALUE_FUNCTIONS: dict[str, ValueFunctionKind] = {
    "table": ValueFunctionKind("a dict-backed table (the algorithm's own kind)", (), table),
    "mlp": ValueFunctionKind("a neural network behind the same interface", NETWORK_OPTIONS, network, traces=False),
    "tiles": ValueFunctionKind("linear in tile-coded state features", TILE_OPTIONS, linear(tiles)),
    "aggregation": ValueFunctionKind("linear in aggregated states", (Option(
        "groups", int, 10, "aggregation: groups per state dimension", minimum=1, maximum=10**6),), linear(aggregation)),
    "polynomial": ValueFunctionKind("linear in a polynomial basis", (ORDER,), linear(polynomial)),
    "fourier": ValueFunctionKind("linear in a Fourier basis", (ORDER,), linear(fourier)),
    "ntuple": ValueFunctionKind("an n-tuple network over board afterstates (2048)", (Option(
        "tuples", str, None, "ntuple: cells of each tuple, e.g. '0,1,2;3,4,5'", check=tuples_option),), ntuple),
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
