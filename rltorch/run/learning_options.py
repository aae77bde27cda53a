"""The flags of a training run: the shared learning and exploration options, and the options that an algorithm,
a value function and an env declare (`rltorch.options.Option`), turned into checked, bounded flags."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Iterable
from typing import Any

from rltorch.options import Option
from rltorch.run.options import (
    MAX_EPISODES,
    at_most,
    finite_float,
    integer,
    non_negative_int,
    positive_float,
    positive_int,
    step_size,
    unit_float,
)
from rltorch.run.value_functions import VALUE_FUNCTIONS, value_function_name

MAX_SEED = 2**32 - 1  # numpy's and most libraries' seed range


def declared_type(option: Option) -> Callable[[str], Any] | None:
    """The parser of a declared option's value: a checked number within its bounds, or None for text."""
    if option.check is not None:
        return option.check
    if option.type is int:
        base = {0: non_negative_int, 1: positive_int}.get(option.minimum, integer)
    elif option.type is float and (option.minimum, option.maximum) == (0, 1):
        return unit_float
    elif option.type is float:
        base = positive_float if option.minimum == 0 else finite_float
    else:
        return None
    return at_most(base, option.maximum) if option.maximum is not None else base


def add_declared(group: Any, options: Iterable[Option], prefix: str = "") -> None:
    """Declared options as flags (`prefix` goes before each destination, e.g. `env__` for an env's)."""
    for option in options:
        if option.type is bool:
            group.add_argument(option.flag, dest=prefix + option.name, action="store_true", help=option.help)
            continue
        keywords: dict[str, Any] = {"default": option.default, "help": option.help, "dest": prefix + option.name}
        if option.choices is not None:
            keywords["choices"] = option.choices
        else:
            keywords["metavar"] = option.flag.lstrip("-").replace("-", "_").upper()
        if option.many:
            keywords["nargs"] = "+"
        kind = declared_type(option)
        if kind is not None:
            keywords["type"] = kind
        group.add_argument(option.flag, **keywords)


def add_learning_options(parser: argparse.ArgumentParser, algorithm_options: Iterable[Option],
                         value_fn_options: Iterable[Option]) -> None:
    """The learning and exploration options (the course's defaults), then the algorithms' and value functions'."""
    learning = parser.add_argument_group("learning")
    learning.add_argument("--episodes", type=at_most(positive_int, MAX_EPISODES), default=100_000,
                          help="training episodes (1e5 works)")
    learning.add_argument("--alpha", type=step_size, default=0.1, help="step size of the table update")
    learning.add_argument("--gamma", type=unit_float, default=0.9, help="discount factor")
    learning.add_argument("--values", choices=("q", "afterstate"), default="q",
                          help="key the values by (state, action) pairs or by afterstates")
    learning.add_argument("--seed", type=at_most(non_negative_int, MAX_SEED), default=0,
                          help="seed of every random choice in the run")
    learning.add_argument("--max-episode-steps", type=at_most(non_negative_int, 10**12),
                          help="the env's time limit in steps (0: none; default: the env's own)")
    learning.add_argument("--threads", type=at_most(positive_int, 1024), default=1,
                          help="CPU threads for torch and the batched engine (small networks run fastest on one)")
    learning.add_argument("--value-fn", type=value_function_name, default="table",
                          metavar="{" + ",".join(VALUE_FUNCTIONS) + "} or module:Class",
                          help="what holds the values (module:Class: your ValueFunction subclass with "
                               "for_run(config, env), in your module, imported from the current folder first)")
    add_declared(learning, value_fn_options)
    add_declared(learning, algorithm_options)
    exploration = parser.add_argument_group("exploration")
    exploration.add_argument("--epsilon-schedule", choices=("exponential", "linear", "constant"),
                             default="exponential",
                             help="final + (start - final) * exp(-episode / decay), a line, or flat at start")
    exploration.add_argument("--epsilon-start", type=unit_float, default=1.0, help="epsilon at episode 0")
    exploration.add_argument("--epsilon-final", type=unit_float, default=0.01, help="epsilon in the long run")
    exploration.add_argument("--epsilon-decay", type=at_most(positive_float, MAX_EPISODES), default=10_000.0,
                             help="time constant (exponential) or length in episodes (linear)")


def add_env_options(parser: argparse.ArgumentParser, options: tuple[Option, ...]) -> None:
    """The env's declared options as `--name` flags (destinations `env__name`)."""
    if options:
        add_declared(parser.add_argument_group("environment"), options, prefix="env__")


def unique(options: Iterable[Option]) -> tuple[Option, ...]:
    """Options without repeats by name (algorithms of one family declare the same ones)."""
    found: dict[str, Option] = {}
    for option in options:
        found.setdefault(option.name, option)
    return tuple(found.values())
