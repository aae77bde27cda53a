"""Batched engines: many independent runs of a tabular method stepped together as tensors on a finite model."""

from rltorch.engines import numba_control
from rltorch.engines.batched import ALGORITHMS, BatchedEngine, BatchResult, resolve_device
from rltorch.engines.draws import CounterDraws, DrawSource, SequenceDraws, run_keys
from rltorch.engines.tensors import ModelTensors

__all__ = [
    "ALGORITHMS",
    "BatchResult",
    "BatchedEngine",
    "CounterDraws",
    "DrawSource",
    "ModelTensors",
    "SequenceDraws",
    "numba_control",
    "resolve_device",
    "run_keys",
]
