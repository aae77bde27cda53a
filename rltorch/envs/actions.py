"""Shared by rltorch's envs: checks on what callers pass to `step` and `reset`, and the masks they return.

Actions. An env's `step` takes any integer-like action: a Python int, a numpy integer, a 0-d
integer array, or an integral float such as 4.0 or np.float32(4.0) (what a float network output
or a numpy action buffer may hold). Anything else (a str, 4.5, NaN, None, a list, and bools, which
are flags rather than numbers here) is a `TypeError` naming the action. Envs keep their hot path
free of this check for plain ints: `if type(action) is not int: action = as_action(action)`.

Reset options. `reset(options=...)` takes None or a dict whose keys the env knows; any other key,
a value of the wrong type or range, or options that do not go together are a `ValueError` naming the option.

Action masks. Every env with `legal_actions()` also says which actions are legal the way the Gymnasium
ecosystem reads it: `info["action_mask"]` from `reset` and `step` (an `np.int8` 0/1 vector over the
`Discrete` action space, 1 at each of `legal_actions()` after that reset or step), and an `action_masks()`
method (the name sb3-contrib's MaskablePPO looks for) that returns the same. Each call returns a new array,
as Gymnasium's `check_env` demands (callers keep infos): a copy of a read-only template built once per set
of legal actions (`action_mask`, `legal_mask`), the cheapest fresh array numpy makes.
"""

from __future__ import annotations

import operator
from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import Any

import numpy as np


def action_mask(legal: Iterable[int], size: int) -> np.ndarray:
    """A read-only `np.int8` vector of `size` entries, 1 at each action of `legal` and 0 elsewhere."""
    mask = np.zeros(size, dtype=np.int8)
    mask[list(legal)] = 1
    mask.flags.writeable = False
    return mask


_TEMPLATES: dict[tuple[tuple[int, ...], int], np.ndarray] = {}


def legal_mask(legal: Iterable[int], size: int) -> np.ndarray:
    """A new writable copy of `action_mask(legal, size)`, whose template is built once per set of legal actions."""
    key = (tuple(legal), size)
    template = _TEMPLATES.get(key)
    if template is None:
        template = _TEMPLATES[key] = action_mask(key[0], size)
    return template.copy()


class ActionMasks:
    """Mixed into an env with `legal_actions()` and a `Discrete` action space: its masks, as the module says."""

    def action_masks(self) -> np.ndarray:
        """The legal actions now as a new `np.int8` 0/1 vector over the action space (MaskablePPO's hook)."""
        return legal_mask(self.legal_actions(), int(self.action_space.n))  # type: ignore[attr-defined]

    def _mask_info(self) -> dict[str, Any]:
        """A new info dict for `reset` or `step`: the legal actions now as `action_mask`."""
        return {"action_mask": self.action_masks()}


def integer_value(value: object) -> int | None:
    """The int that an integer-like `value` stands for (see the module docstring), or None if it is not one."""
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value.item()
    if isinstance(value, (bool, np.bool_)):
        return None
    try:
        return operator.index(value)
    except TypeError:
        pass
    if isinstance(value, (float, np.floating)) and float(value).is_integer():
        return int(value)
    return None


def as_action(action: object, expected: str = "an integer") -> int:
    """`action` as a plain int; TypeError naming it (and saying it should be `expected`) if it is not integer-like."""
    value = integer_value(action)
    if value is None:
        raise TypeError(f"action must be {expected}, got {action!r} of type {type(action).__name__}")
    return value


def reset_options(
    options: object, known: Sequence[str], alone: Collection[str] = (), needs: Mapping[str, str] | None = None
) -> tuple[Any, ...]:
    """The values of the `known` options in their order (None where not given), once `options` is checked.

    `options` must be None or a dict with no key outside `known`; an option in `alone` may come with no
    other, and `needs` maps an option to one it cannot do without. A failure is a ValueError naming the option.
    """
    if options is None:
        return (None,) * len(known)
    if not isinstance(options, Mapping):
        raise ValueError(f"reset options must be a dict or None, got {options!r}")
    unknown = [key for key in options if key not in known]
    if unknown:
        offer = f"known: {', '.join(map(repr, known))}" if known else "this env takes none"
        raise ValueError(f"unknown reset option{'s' * (len(unknown) > 1)} {', '.join(map(repr, unknown))} ({offer})")
    given = [key for key in known if options.get(key) is not None]
    for key in given:
        if key in alone and len(given) > 1:
            others = ", ".join(repr(other) for other in given if other != key)
            raise ValueError(f"reset option {key!r} cannot be combined with {others}")
        if needs and key in needs and needs[key] not in given:
            raise ValueError(f"reset option {key!r} needs {needs[key]!r} too")
    return tuple(options.get(key) for key in known)


def integer_option(name: str, value: object, low: int, high: int) -> int:
    """An integer-like option value within low..high as an int, or ValueError naming the option `name`."""
    number = integer_value(value)
    if number is None or not low <= number <= high:
        raise ValueError(f"reset option {name!r} must be a whole number {low}..{high}, got {value!r}")
    return number


def integer_options(
    name: str, values: object, count: int | None = None, low: int | None = None, high: int | None = None
) -> tuple[int, ...]:
    """A sequence of `count` (any number if None) integer-like values, each within low..high where given, as ints.

    Anything else is a ValueError naming the option `name`.
    """
    items = None if isinstance(values, (str, bytes)) else _items(values)
    numbers = None if items is None else [integer_value(item) for item in items]
    if (
        numbers is None
        or any(number is None or (low is not None and number < low) or (high is not None and number > high)
               for number in numbers)
        or (count is not None and len(numbers) != count)
    ):
        size = f"{count} " if count is not None else ""
        bounds = f" in {low}..{high}" if low is not None and high is not None else ""
        raise ValueError(f"reset option {name!r} must be a sequence of {size}whole numbers{bounds}, got {values!r}")
    return tuple(numbers)  # type: ignore[arg-type]


def _items(values: object) -> tuple[Any, ...] | None:
    """The items of an iterable `values`, or None when it is not iterable."""
    try:
        return tuple(values)  # type: ignore[call-overload]
    except TypeError:
        return None


class StartOptions(ActionMasks):
    """Mixed into the book envs: `reset` starts in `start_state`, or in a checked `options["state"]`."""

    start_state: Any

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Any, dict]:
        """Start in the env's start state, or in `options["state"]`; return (observation, info)."""
        super().reset(seed=seed)  # type: ignore[misc]
        (state,) = reset_options(options, ("state",))
        self._state = self.start_state if state is None else self._checked_start(state)
        self._done = False
        return self._state, self._mask_info()

    def _checked_start(self, state: Any) -> Any:
        """`state` as the env's observation, or a ValueError naming `options['state']`."""
        raise NotImplementedError
