"""Many independent runs of a tabular method at once on a finite model: one lane per run, compiled by numba.

`BatchedEngine(model).run(algorithm, alphas, episodes)` runs one lane per entry of `alphas` (each its
own step size; SARSA, Expected SARSA and Q-learning lanes may be mixed by giving one algorithm name
per lane), every lane `episodes` episodes long from values 0, and returns every episode's sum of
rewards and length as `[lanes, episodes]`, and the learned tables: Q `[lanes, S, A]` (Double
Q-learning: `[lanes, 2, S, A]`, Q1 then Q2). `time_limit` is the env's `max_episode_steps`
(`time_limit_of(env)`): an episode that reaches it is truncated, as the per-step trainer truncates it.
`epsilon` is one number, or one per episode (a trainer's schedule: episode k plays with `schedule(k)`).
`start=result.lanes_state()` continues lanes where an earlier batch left them (their tables, streams and
episode count), so a run cut into batches of episodes equals the same run in one batch, to the last bit.

Each lane is its algorithm's numba twin of the per-step trainer (`ALGORITHMS`, filled by
`rltorch.engines.onestep` and `rltorch.engines.nstep`), drawing from the stream of global run
`run_index[l]` (default 0..L-1) under `seed` (`rltorch.engines.draws`), so a run's results do not
depend on the batch it is in, and the trainer fed that stream repeats the lane exactly
(`tests/test_batched_engine.py`, time limits included).
Lanes are spread over `threads` CPU threads; there is no GPU form (see the README's design section).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from rltorch.engines import nstep, onestep  # noqa: F401 - their fast forms join ALGORITHMS
from rltorch.engines.core import ALGORITHMS, FastForm, Lanes, Settings, model_arrays
from rltorch.engines.draws import DRAWN, stream_states
from rltorch.errors import RLTorchError
from rltorch.mdp.model import FiniteModel

SEGMENTS = 100  # progress reports per batch
CHUNKS_PER_THREAD = 8  # lanes differ in length: small chunks keep the threads busy


def engine_device(device: str | torch.device) -> torch.device:
    """The engine's device: `cpu` (or `auto`); a GPU is refused in one line (the engine has no GPU form)."""
    name = str(device)
    if name in ("cpu", "auto"):
        return torch.device("cpu")
    if name.startswith("cuda"):
        raise RLTorchError(f"device {name}: the batched engine runs on the CPU (numba) and has no GPU form; use cpu")
    raise RLTorchError(f"device must be cpu or auto, got {name!r}")


def time_limit_of(env: Any) -> int | None:
    """The env's time limit (`env.spec.max_episode_steps`), None when it has none."""
    spec = getattr(env, "spec", None)
    return getattr(spec, "max_episode_steps", None)


@dataclass
class LaneState:
    """Where lanes stand between batches: tables `[lanes, tables, S, A]`, streams `[lanes, 4]` uint64, episodes done."""

    values: np.ndarray
    streams: np.ndarray
    episodes_done: int


@dataclass
class BatchResult:
    """What a batch learned: per-lane settings, `[lanes, episodes]` returns and lengths, final values, draws, timing."""

    algorithms: list[str]
    alphas: torch.Tensor
    run_index: torch.Tensor
    returns: torch.Tensor
    lengths: torch.Tensor
    values: torch.Tensor | None
    draws: torch.Tensor
    seconds: float
    streams: np.ndarray | None = None  # [lanes, 4] uint64: each lane's stream where the batch left it
    episodes_done: int = 0  # every lane's episode count at the end of the batch

    def lanes_state(self) -> LaneState:
        """The lanes as the batch left them, to `start` the next batch from (needs `keep_values`)."""
        if self.values is None or self.streams is None:
            raise RLTorchError("a batch run with keep_values=False cannot be continued")
        values = self.values.numpy()
        return LaneState(values[:, None] if values.ndim == 3 else values, self.streams, self.episodes_done)

    @property
    def steps(self) -> int:
        """Agent steps taken over all lanes."""
        return int(self.lengths.sum())

    @property
    def steps_per_second(self) -> float:
        """Agent steps per second of wall time."""
        return self.steps / max(self.seconds, 1e-9)


class BatchedEngine:
    """Runs batches of independent lanes of one method on `model` (see module), on `threads` CPU threads."""

    def __init__(self, model: FiniteModel, *, device: str | torch.device = "cpu", threads: int = 1) -> None:
        self.device = engine_device(device)
        self.model, self.threads = model, max(1, int(threads))
        self.arrays = model_arrays(model)

    def run(self, algorithm: str | Sequence[str], alphas: float | Sequence[float] | torch.Tensor, episodes: int, *,
            epsilon: float | Sequence[float] | np.ndarray = 0.1, gamma: float = 1.0, n: int = 1, seed: int = 0,
            run_index: Sequence[int] | torch.Tensor | None = None, time_limit: int | None = None,
            keep_values: bool = True, progress: Callable[[int], None] | None = None,
            start: LaneState | None = None) -> BatchResult:
        """Run one lane per step size for `episodes` (more) episodes each; `progress(episodes done)` as it goes."""
        started = time.perf_counter()
        alpha = _alphas(alphas)
        names = _algorithm_names(algorithm, len(alpha))
        epsilons = _epsilons(epsilon, episodes)
        _check_settings(gamma, n, time_limit)
        run_index = torch.arange(len(alpha)) if run_index is None else torch.as_tensor(run_index, dtype=torch.long)
        if run_index.shape != (len(alpha),):
            raise RLTorchError(f"run_index must give one global run index per lane ({len(alpha)})")
        form = ALGORITHMS[names[0]]
        count, (states, actions) = len(alpha), self.arrays.legal.shape
        values, streams, first = _start(start, (count, form.tables, states, actions), seed, run_index)
        lanes = Lanes(values, streams, alpha, np.array([ALGORITHMS[name].code for name in names], dtype=np.int64),
                      np.full(count, first, dtype=np.int64), np.zeros((count, episodes)),
                      np.zeros((count, episodes), dtype=np.int64), epsilons, first)
        settings = Settings(0.0, float(gamma), int(time_limit or 0), int(n))
        segment = max(1, -(-episodes // SEGMENTS))
        for until in range(segment, episodes + segment, segment):
            self._advance(form, first + min(until, episodes), lanes, settings)
            if progress is not None:
                progress(int(lanes.done.sum()) - first * count)
        values = torch.from_numpy(lanes.values if form.tables > 1 else lanes.values[:, 0]) if keep_values else None
        draws = torch.from_numpy(lanes.streams[:, DRAWN].astype(np.int64))  # numbers each lane took from its stream
        return BatchResult(names, torch.from_numpy(alpha), run_index, torch.from_numpy(lanes.returns),
                           torch.from_numpy(lanes.lengths), values, draws, time.perf_counter() - started,
                           lanes.streams, first + episodes)

    def _advance(self, form: FastForm, until: int, lanes: Lanes, settings: Settings) -> None:
        """Every lane on until it has finished `until` episodes, on the engine's threads."""
        count = len(lanes.alpha)
        if self.threads == 1:
            form.advance(0, count, until, lanes, self.arrays, settings)
            return
        size = max(1, -(-count // (CHUNKS_PER_THREAD * self.threads)))
        with ThreadPoolExecutor(self.threads) as pool:
            jobs = [pool.submit(form.advance, first, min(first + size, count), until, lanes, self.arrays, settings)
                    for first in range(0, count, size)]
            for job in jobs:
                job.result()


def _alphas(alphas: float | Sequence[float] | torch.Tensor) -> np.ndarray:
    """The step sizes as a [lanes] float64 array, each in (0, 1]."""
    alpha = np.ascontiguousarray(torch.as_tensor(alphas, dtype=torch.float64).reshape(-1).cpu().numpy())
    if alpha.size == 0 or not bool(((alpha > 0) & (alpha <= 1)).all()):
        raise RLTorchError("give at least one step size, each in (0, 1]")
    return alpha


def _algorithm_names(algorithm: str | Sequence[str], count: int) -> list[str]:
    """One algorithm with a fast form per lane; lanes may mix only algorithms of one episode function."""
    names = [algorithm] * count if isinstance(algorithm, str) else list(algorithm)
    if len(names) != count:
        raise RLTorchError(f"{len(names)} algorithm names for {count} step sizes: give one per lane")
    unknown = sorted(set(names) - set(ALGORITHMS))
    if unknown:
        raise RLTorchError(f"unknown algorithm {unknown[0]!r}; choose from {', '.join(ALGORITHMS)}")
    if len({ALGORITHMS[name].episode for name in names}) > 1:
        raise RLTorchError("only sarsa, expected-sarsa and qlearning lanes can share a batch")
    return names


def _epsilons(epsilon: float | Sequence[float] | np.ndarray, episodes: int) -> np.ndarray:
    """Each episode's epsilon as a [episodes] float64 array (one number is every episode's), each in [0, 1]."""
    if isinstance(episodes, bool) or not isinstance(episodes, int) or episodes < 1:
        raise RLTorchError(f"episodes must be an int >= 1, got {episodes!r}")
    given = np.asarray(epsilon, dtype=np.float64).reshape(-1)
    if given.size not in (1, episodes):
        raise RLTorchError(f"give one epsilon, or one per episode ({episodes}), not {given.size}")
    if not bool(((given >= 0) & (given <= 1)).all()):
        raise RLTorchError(f"epsilon must be in [0, 1], got {epsilon!r}")
    return np.ascontiguousarray(np.broadcast_to(given, (episodes,)))


def _start(start: LaneState | None, shape: tuple[int, ...], seed: int,
           run_index: torch.Tensor) -> tuple[np.ndarray, np.ndarray, int]:
    """The lanes' first tables, streams and episode count: fresh (zeros, streams at their start) or `start`'s."""
    if start is None:
        return np.zeros(shape), stream_states(seed, run_index), 0
    values = np.array(start.values, dtype=np.float64)  # a copy: the caller's state stays as it was
    streams = np.array(start.streams, dtype=np.uint64)
    if values.shape != shape or streams.shape != (shape[0], 4) or start.episodes_done < 0:
        raise RLTorchError(f"the lanes to continue have tables {values.shape} and streams {streams.shape}, "
                           f"not {shape} and {(shape[0], 4)}")
    return values, streams, int(start.episodes_done)


def _check_settings(gamma: float, n: int, time_limit: int | None) -> None:
    """Gamma in [0, 1], n >= 1, a time limit None or >= 1 (episodes and epsilon are checked by `_epsilons`)."""
    if not 0.0 <= gamma <= 1.0:
        raise RLTorchError(f"gamma must be in [0, 1], got {gamma!r}")
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise RLTorchError(f"n must be an int >= 1, got {n!r}")
    if time_limit is not None and (isinstance(time_limit, bool) or not isinstance(time_limit, int) or time_limit < 1):
        raise RLTorchError(f"the time limit must be None or an int >= 1, got {time_limit!r}")
