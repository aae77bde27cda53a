"""The numbers behind Sutton & Barto's Figure 6.3, computed with the batched engine, for any slice of the runs.

Every (method, alpha) pair runs the same runs: run r of each uses the random stream of global run
index r (common random numbers), so the methods and step sizes are compared on the same luck. A run
is `episodes` episodes of SARSA, Expected SARSA or Q-learning on CliffWalking-v1 (epsilon 0.1,
gamma 1, values starting at 0); its score is the mean sum of rewards over its episodes. The interim
runs are global indices 0 .. runs_interim - 1 and the asymptotic ones follow them, so the seed of
every run is `SeedSequence(seed).spawn(total)[index]` for one split of the indices or another.

`compute_slice(runs, ...)` returns sums over those runs (`SliceCurves`), so a distributed driver can
call it on each rank with that rank's run indices and add the results (`merge`); `finish` divides.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import gymnasium as gym
import numpy as np

from rltorch.engines import BatchedEngine
from rltorch.mdp import FiniteModel, from_gymnasium

ENV_ID = "CliffWalking-v1"
METHODS = ("sarsa", "expected-sarsa", "qlearning")
LABELS = {"sarsa": "Sarsa", "expected-sarsa": "Expected Sarsa", "qlearning": "Q-learning"}
EPSILON, GAMMA = 0.1, 1.0
LANES_PER_BATCH = 60_000  # lanes (runs x methods x alphas) the engine holds at once


def cliff_model() -> FiniteModel:
    """CliffWalking-v1's finite model (from Gymnasium's transition table)."""
    return from_gymnasium(gym.make(ENV_ID))


@dataclass
class SliceCurves:
    """Sums over some runs: of each run's mean return, its square, and its mean return per block of episodes."""

    alphas: list[float]
    episodes: int
    block: int
    runs: int
    mean_sums: np.ndarray  # [methods, alphas]
    square_sums: np.ndarray  # [methods, alphas]
    block_sums: np.ndarray  # [methods, alphas, episodes // block]
    steps: int = 0

    @classmethod
    def empty(cls, alphas: Sequence[float], episodes: int, block: int) -> SliceCurves:
        """Sums over no runs."""
        shape = (len(METHODS), len(alphas))
        return cls(list(alphas), episodes, block, 0, np.zeros(shape), np.zeros(shape),
                   np.zeros((*shape, episodes // block)))

    def merge(self, other: SliceCurves) -> SliceCurves:
        """The sums over both slices' runs (the slices must not share runs)."""
        if (self.alphas, self.episodes, self.block) != (other.alphas, other.episodes, other.block):
            raise ValueError("slices of different experiments cannot be merged")
        return SliceCurves(self.alphas, self.episodes, self.block, self.runs + other.runs,
                           self.mean_sums + other.mean_sums, self.square_sums + other.square_sums,
                           self.block_sums + other.block_sums, self.steps + other.steps)

    def finish(self) -> dict[str, np.ndarray]:
        """Means over the runs: `mean` [methods, alphas], its standard error, and `blocks` [methods, alphas, points]."""
        runs = max(self.runs, 1)
        mean = self.mean_sums / runs
        variance = np.maximum(self.square_sums / runs - mean**2, 0.0) * runs / max(runs - 1, 1)
        return {"mean": mean, "stderr": np.sqrt(variance / runs), "blocks": self.block_sums / runs}


def lanes(runs: Sequence[int], alphas: Sequence[float]) -> tuple[list[str], list[float], list[int]]:
    """One lane per (run, method, alpha), run-major: the method names, step sizes and global run indices."""
    names, steps, indices = [], [], []
    for run in runs:
        for method in METHODS:
            names += [method] * len(alphas)
            steps += list(alphas)
            indices += [run] * len(alphas)
    return names, steps, indices


def compute_slice(runs: Sequence[int], alphas: Sequence[float], episodes: int, *, seed: int = 0, block: int = 1,
                  engine: BatchedEngine | None = None, progress: Callable[[int], None] | None = None) -> SliceCurves:
    """The sums of Figure 6.3's numbers over global run indices `runs` (see module); `progress(episodes)` as it goes."""
    engine = engine if engine is not None else BatchedEngine(cliff_model())
    if episodes % block:
        raise ValueError(f"the block ({block}) must divide the episodes ({episodes})")
    total = SliceCurves.empty(alphas, episodes, block)
    per_batch = max(1, LANES_PER_BATCH // (len(METHODS) * len(alphas)))
    runs = list(runs)
    for first in range(0, len(runs), per_batch):
        batch = runs[first:first + per_batch]
        total = total.merge(_batch(engine, batch, alphas, episodes, seed, block, progress))
    return total


def _batch(engine: BatchedEngine, runs: list[int], alphas: Sequence[float], episodes: int, seed: int, block: int,
           progress: Callable[[int], None] | None) -> SliceCurves:
    """One engine batch of runs, reduced to sums."""
    names, steps, indices = lanes(runs, alphas)
    reported = [0]

    def report(done: int) -> None:
        if progress is not None:
            progress(done - reported[0])
            reported[0] = done

    result = engine.run(names, steps, episodes, epsilon=EPSILON, gamma=GAMMA, seed=seed, run_index=indices,
                        keep_values=False, progress=report)
    report(len(names) * episodes)
    returns = result.returns.double().numpy().reshape(len(runs), len(METHODS), len(alphas), episodes)
    run_means = returns.mean(axis=-1)
    blocks = returns.reshape(*returns.shape[:-1], episodes // block, block).mean(axis=-1)
    return SliceCurves(list(alphas), episodes, block, len(runs), run_means.sum(axis=0), (run_means**2).sum(axis=0),
                       blocks.sum(axis=0), result.steps)
