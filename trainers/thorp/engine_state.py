"""The checks on a batched engine's saved state (`BatchedES.state_dict`), made before anything is built from it."""

from __future__ import annotations

import torch

from rltorch.run.output import refuse_to_run


def _is_count(value: object) -> bool:
    """Whether `value` is a whole number >= 0 (not a bool)."""
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _is_table(value: object, size: int) -> bool:
    """Whether `value` is a (size,) int64 tensor: the sums or the counts."""
    return isinstance(value, torch.Tensor) and value.dtype == torch.int64 and tuple(value.shape) == (size,)


def _is_generator_state(value: object, size: int) -> bool:
    """Whether `value` looks like `torch.Generator.get_state()`: a 1-D uint8 tensor of `size` bytes."""
    return isinstance(value, torch.Tensor) and value.dtype == torch.uint8 and tuple(value.shape) == (size,)


def check_state(state: object, generator_size: int, table_size: int) -> None:
    """Raise ValueError naming the problems unless `state` has the shape of a `state_dict` (or a gathered one).

    `generator_size`: the length of a generator state on the device that will load it; `table_size`: the length
    of the sums and the counts (2 * `engine.STATES`). A resumed file is checked
    this way before anything is made from it, so a file that is not an engine's state is refused with one line
    instead of failing half-way.
    """
    if not isinstance(state, dict):
        raise ValueError("the engine state is not a dict")
    config = state.get("config")
    problems = {
        "sums": _is_table(state.get("sums"), table_size), "counts": _is_table(state.get("counts"), table_size),
        "episodes": _is_count(state.get("episodes")), "peeked_naturals": _is_count(state.get("peeked_naturals")),
        "generator": _is_generator_state(state.get("generator"), generator_size),
        "config": isinstance(config, dict) and _is_count(config.get("seed")) and _is_count(config.get("starts")),
    }
    if "generators" in state or "world" in state:
        generators = state.get("generators")
        problems["world"] = _is_count(state.get("world")) and state["world"] >= 1
        problems["generators"] = isinstance(generators, list) and len(generators) == state.get("world") and all(
            _is_generator_state(generator, generator_size) for generator in generators)
    bad = [name for name, good in problems.items() if not good]
    if bad:
        raise ValueError(f"the engine state has a missing or malformed {', '.join(map(repr, bad))}")


if __name__ == "__main__":
    refuse_to_run(__file__, "study.py", "trainers/thorp/study.py")
