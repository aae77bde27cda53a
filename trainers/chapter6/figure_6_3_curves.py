"""The numbers behind Sutton & Barto's Figure 6.3, computed with the batched engine, for any slice of the runs.

Every (method, alpha) pair runs the same runs: run r of each uses the random stream of global run
index r (common random numbers), so the methods and step sizes are compared on the same luck. A run
is `episodes` episodes of SARSA, Expected SARSA or Q-learning on CliffWalking-v1 (epsilon 0.1,
gamma 1, values starting at 0); its score is the mean sum of rewards over its episodes. The interim
runs are global indices 0 .. runs_interim - 1 and the asymptotic ones follow them, so the seed of
every run is `SeedSequence(seed).spawn(total)[index]` for one split of the indices or another.

Sums over runs are exact to the last bit whatever the split: a phase's runs fall into fixed chunks
(`rltorch.run.many_runs.run_chunks`, a function of the phase alone), each chunk is summed on its own
(`chunk_sums`, one `SliceCurves` per chunk) and the chunks are added in order (`many_runs.fold`). Under
torchrun `many_runs.sharded_sums` hands each rank some of the chunks and folds all of them on every rank; one
process folds the same chunks in the same order, so the figure's numbers do not depend on the number of ranks.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import gymnasium as gym
import numpy as np

from rltorch.engines import BatchedEngine
from rltorch.mdp import FiniteModel, from_gymnasium
from rltorch.run.many_runs import fold, run_chunks
from rltorch.run.output import refuse_to_run

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


def runs_per_batch(alphas: Sequence[float]) -> int:
    """Runs the engine holds at once (every method and step size of a run is a lane)."""
    return max(1, LANES_PER_BATCH // (len(METHODS) * len(alphas)))


def chunk_sums(chunks: Sequence[Sequence[int]], alphas: Sequence[float], episodes: int, *, seed: int = 0,
               block: int = 1, engine: BatchedEngine | None = None,
               progress: Callable[[int], None] | None = None) -> list[SliceCurves]:
    """One `SliceCurves` per chunk of global run indices; `progress(episodes)` as it goes (see module)."""
    engine = engine if engine is not None else BatchedEngine(cliff_model())
    if episodes % block:
        raise ValueError(f"the block ({block}) must divide the episodes ({episodes})")
    per_batch = runs_per_batch(alphas)
    sums: list[SliceCurves] = []
    batch: list[Sequence[int]] = []  # the engine takes whole chunks, up to per_batch runs (at least one chunk)
    for chunk in chunks:
        if batch and sum(map(len, batch)) + len(chunk) > per_batch:
            sums += _batch(engine, batch, alphas, episodes, seed, block, progress)
            batch = []
        batch.append(chunk)
    if batch:
        sums += _batch(engine, batch, alphas, episodes, seed, block, progress)
    return sums


def compute_slice(runs: Sequence[int], alphas: Sequence[float], episodes: int, *, seed: int = 0, block: int = 1,
                  engine: BatchedEngine | None = None, progress: Callable[[int], None] | None = None) -> SliceCurves:
    """The sums of Figure 6.3's numbers over global run indices `runs`, in one process (see module)."""
    parts = chunk_sums(run_chunks(list(runs)), alphas, episodes, seed=seed, block=block, engine=engine,
                       progress=progress)
    return fold(parts, SliceCurves.empty(alphas, episodes, block))


def _batch(engine: BatchedEngine, chunks: list[Sequence[int]], alphas: Sequence[float], episodes: int, seed: int,
           block: int, progress: Callable[[int], None] | None) -> list[SliceCurves]:
    """One engine batch of whole chunks, each reduced to its own sums."""
    runs = [run for chunk in chunks for run in chunk]
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
    run_steps = result.lengths.reshape(len(runs), -1).sum(dim=1)
    sums, first = [], 0
    for chunk in chunks:
        part = slice(first, first + len(chunk))
        sums.append(SliceCurves(list(alphas), episodes, block, len(chunk), run_means[part].sum(axis=0),
                                (run_means[part] ** 2).sum(axis=0), blocks[part].sum(axis=0),
                                int(run_steps[part].sum())))
        first += len(chunk)
    return sums


if __name__ == "__main__":
    refuse_to_run(__file__, "figure_6_3.py", "trainers/chapter6/figure_6_3.py")
