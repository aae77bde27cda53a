"""Batched engines: many independent runs of a tabular method on a finite model, each a numba twin of its trainer."""

from rltorch.engines.batched import BatchedEngine, BatchResult, LaneState, engine_device, time_limit_of
from rltorch.engines.core import ALGORITHMS, FastForm
from rltorch.engines.draws import run_keys, uniforms

__all__ = [
    "ALGORITHMS",
    "BatchResult",
    "BatchedEngine",
    "FastForm",
    "LaneState",
    "engine_device",
    "run_keys",
    "time_limit_of",
    "uniforms",
]
