"""`--algo NAME`: one of rltorch's algorithms, or `module:Class`, a user's trainer class in a module the user names.

The same trust rule as for envs: a module typed on the command line is imported (the current folder first,
as `python -m` finds modules); a module named only inside a file (a checkpoint's saved `--algo`) is never
imported, and its run is refused in one line until the user names it.
"""

from __future__ import annotations

import argparse

from rltorch.errors import RLTorchError
from rltorch.run.envs import import_user_module
from rltorch.run.options import name_or_module_class
from rltorch.trainers import TRAINERS, Trainer
from rltorch.values.base import imported_class

algorithm_name = name_or_module_class(TRAINERS)  # an `--algo` value


def import_user_algorithm(spec: str) -> None:
    """Import the module of a `module:Class` the user typed (nothing for a registered name)."""
    try:
        algorithm_name(spec)
    except argparse.ArgumentTypeError as error:
        raise RLTorchError(f"--algo {error}") from None
    if spec not in TRAINERS:
        import_user_module(spec, what="algorithm")


def trainer_class(spec: str, source: str = "--algo") -> type[Trainer]:
    """The trainer class of `spec`: registered, or a `Trainer` subclass in a module already imported."""
    if spec in TRAINERS:
        return TRAINERS[spec]
    return imported_class(spec, Trainer, source, "algorithm", f"--algo {spec}")
