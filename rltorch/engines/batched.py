"""Many independent runs of a tabular method at once on a finite model: one lane per run, compiled by numba.

`BatchedEngine(model).run(algorithm, alphas, episodes)` runs one lane per entry of `alphas` (each its
own step size; SARSA, Expected SARSA and Q-learning lanes may be mixed by giving one algorithm name
per lane), every lane `episodes` episodes long from values 0, and returns every episode's sum of
rewards and length as `[lanes, episodes]`, and the learned tables: Q `[lanes, S, A]` (Double
Q-learning: `[lanes, 2, S, A]`, Q1 then Q2). `time_limit` is the env's `max_episode_steps`
(`time_limit_of(env)`): an episode that reaches it is truncated, as the per-step trainer truncates it.

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
from rltorch.engines.core import ALGORITHMS, FastForm, Lanes, Settings, advance, model_arrays
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
            epsilon: float = 0.1, gamma: float = 1.0, n: int = 1, seed: int = 0,
            run_index: Sequence[int] | torch.Tensor | None = None, time_limit: int | None = None,
            keep_values: bool = True, progress: Callable[[int], None] | None = None) -> BatchResult:
        """Run one lane per step size for `episodes` episodes each; `progress(episodes done)` is called as it goes."""
        started = time.perf_counter()
        alpha = _alphas(alphas)
        names = _algorithm_names(algorithm, len(alpha))
        _check_settings(episodes, epsilon, gamma, n, time_limit)
        run_index = torch.arange(len(alpha)) if run_index is None else torch.as_tensor(run_index, dtype=torch.long)
        if run_index.shape != (len(alpha),):
            raise RLTorchError(f"run_index must give one global run index per lane ({len(alpha)})")
        form = ALGORITHMS[names[0]]
        count, (states, actions) = len(alpha), self.arrays.legal.shape
        lanes = Lanes(np.zeros((count, form.tables, states, actions)), stream_states(seed, run_index), alpha,
                      np.array([ALGORITHMS[name].code for name in names], dtype=np.int64),
                      np.zeros(count, dtype=np.int64), np.zeros((count, episodes)),
                      np.zeros((count, episodes), dtype=np.int64))
        settings = Settings(float(epsilon), float(gamma), int(time_limit or 0), int(n))
        segment = max(1, -(-episodes // SEGMENTS))
        for until in range(segment, episodes + segment, segment):
            self._advance(form, min(until, episodes), lanes, settings)
            if progress is not None:
                progress(int(lanes.done.sum()))
        values = torch.from_numpy(lanes.values if form.tables > 1 else lanes.values[:, 0]) if keep_values else None
        draws = torch.from_numpy(lanes.streams[:, DRAWN].astype(np.int64))  # numbers each lane took from its stream
        return BatchResult(names, torch.from_numpy(alpha), run_index, torch.from_numpy(lanes.returns),
                           torch.from_numpy(lanes.lengths), values, draws, time.perf_counter() - started)

    def _advance(self, form: FastForm, until: int, lanes: Lanes, settings: Settings) -> None:
        """Every lane on until it has finished `until` episodes, on the engine's threads."""
        count = len(lanes.alpha)
        if self.threads == 1:
            advance(form.episode, 0, count, until, lanes, self.arrays, settings)
            return
        size = max(1, -(-count // (CHUNKS_PER_THREAD * self.threads)))
        with ThreadPoolExecutor(self.threads) as pool:
            jobs = [pool.submit(advance, form.episode, first, min(first + size, count), until, lanes, self.arrays,
                                settings) for first in range(0, count, size)]
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


def _check_settings(episodes: int, epsilon: float, gamma: float, n: int, time_limit: int | None) -> None:
    """Episodes >= 1, epsilon and gamma in [0, 1], n >= 1, a time limit None or >= 1."""
    if isinstance(episodes, bool) or not isinstance(episodes, int) or episodes < 1:
        raise RLTorchError(f"episodes must be an int >= 1, got {episodes!r}")
    if not 0.0 <= epsilon <= 1.0 or not 0.0 <= gamma <= 1.0:
        raise RLTorchError(f"epsilon and gamma must be in [0, 1], got {epsilon!r} and {gamma!r}")
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise RLTorchError(f"n must be an int >= 1, got {n!r}")
    if time_limit is not None and (isinstance(time_limit, bool) or not isinstance(time_limit, int) or time_limit < 1):
        raise RLTorchError(f"the time limit must be None or an int >= 1, got {time_limit!r}")
