"""Settings a trainer class or a value-function kind declares, as plain data the run layer turns into flags."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Option:
    """One declared setting: its name (`n` is `--n`), type, default, help and bounds.

    `type` is `int`, `float`, `str` or `bool` (a bool is a flag, False by default); numbers are refused
    outside `[minimum, maximum]` when the command line is read (a float's `minimum` 0 means > 0, as for a
    learning rate, except for the range [0, 1]), and `many` takes one or more values. `spelling` is the
    flag when it is not the name's (`--lambda` for `lam`).
    """

    name: str
    type: type
    default: Any
    help: str
    minimum: float | None = None
    maximum: float | None = None
    choices: tuple[Any, ...] | None = None
    many: bool = False
    spelling: str | None = None
    check: Callable[[str], Any] | None = None  # a text option's parser (its errors refuse the value)

    @property
    def flag(self) -> str:
        """The command-line spelling: `--planning-steps` for `planning_steps`."""
        return self.spelling or "--" + self.name.replace("_", "-")


def declared_values(options: tuple[Option, ...], settings: dict[str, Any]) -> dict[str, Any]:
    """The value of each declared option in `settings`, its default where `settings` has none."""
    return {option.name: settings.get(option.name, option.default) for option in options}
