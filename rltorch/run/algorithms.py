"""`--algo NAME`: one of rltorch's algorithms, or `module:Class`, a user's trainer class in a module the user names.

The same trust rule as for envs: a module typed on the command line is imported (the current folder first,
as `python -m` finds modules); a module named only inside a file (a checkpoint's saved `--algo`) is never
imported, and its run is refused in one line until the user names it.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from typing import Any

from rltorch.errors import RLTorchError
from rltorch.run.envs import import_user_module
from rltorch.trainers import TRAINERS, Trainer


def algorithm_name(text: str) -> str:
    """An `--algo` value: a registered name, or `module:Class` (imported later, when the user typed it)."""
    module, sep, name = text.rpartition(":")
    if text in TRAINERS or (sep and module and name.isidentifier()
                            and all(part.isidentifier() for part in module.split("."))):
        return text
    raise argparse.ArgumentTypeError(f"must be one of {', '.join(TRAINERS)}, or module:Class, got {text!r}")


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
    module, _, name = spec.rpartition(":")
    if module not in sys.modules:
        raise RLTorchError(f"{source} asks for algorithm {spec!r} from module {module!r}, which rltorch does not "
                           f"import for a file; name it yourself with --algo {spec}")
    found: Any = getattr(importlib.import_module(module), name, None)
    if not (isinstance(found, type) and issubclass(found, Trainer)):
        raise RLTorchError(f"{spec!r} is not a trainer class (a subclass of rltorch.trainers.Trainer)")
    return found
