"""Many independent runs of one experiment: their seeds, a progress bar, and runs shared out over the ranks.

`map_runs` / `map_run_batches` hand each torch.distributed rank its share of the runs and give every rank
every run's result, in seed order, so a study's numbers do not depend on the number of ranks.
`sharded_sums` does the same for sums over very many runs, exact to the last bit: the runs fall into fixed
chunks (`run_chunks`, at most CHUNKS of them, a function of the runs alone), each chunk is summed on its
own, and every rank adds all the chunks in chunk order (`fold`), as one process adds the same chunks.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable, Iterable, Sequence
from typing import Protocol, TypeVar

import numpy as np
from tqdm import tqdm

from rltorch import parallel

Result = TypeVar("Result")
CHUNKS = 256  # sums over runs are made in at most this many fixed chunks (the unit a rank computes)


SumsT = TypeVar("SumsT", bound="Sums")


class Sums(Protocol):
    """Sums over some runs that add up with the sums over other runs (the two sets of runs must not overlap)."""

    def merge(self: SumsT, other: SumsT) -> SumsT:
        """The sums over both sets of runs."""
        ...


def run_seeds(seed: int, runs: int) -> list[int]:
    """Seeds for `runs` independent runs, drawn from `SeedSequence(seed)`: run i has the same seed in every method,
    and two base seeds share no run."""
    return [int(word) for word in np.random.SeedSequence(seed).generate_state(runs)]


def progress(total: int, description: str, args: argparse.Namespace, unit: str = "run") -> tqdm:
    """A progress bar over `total` units of work (hidden with --no-progress, and on every rank but rank 0)."""
    return tqdm(total=total, desc=description, unit=unit, disable=args.no_progress or not parallel.is_rank0(),
                dynamic_ncols=True)


def map_run_batches(per_batch: Callable[[list[int]], list[Result]], seeds: Sequence[int], bar: tqdm | None = None,
                    unit: int = 1, rounds: int = 100, min_batch: int = 1) -> list[Result]:
    """`per_batch(some_seeds)` (one result per seed) over every seed, sharded over the ranks in at most `rounds`
    rounds of at least `min_batch` runs a rank; every rank gets every result, in the order of `seeds`.

    `bar` advances by `unit` per run, after each round.
    """
    def advance(round_seeds: Sequence[int]) -> None:
        """Count the round's runs on the bar."""
        if bar is not None:
            bar.update(unit * len(round_seeds))

    rounds = max(1, min(rounds, len(seeds) // (min_batch * parallel.world_size())))
    return parallel.map_sharded(per_batch, list(seeds), rounds=rounds, progress=advance)


def map_runs(per_run: Callable[[int], Result], seeds: Sequence[int], bar: tqdm | None = None,
             unit: int = 1) -> list[Result]:
    """`per_run(seed)` for every seed, sharded over the ranks; every rank gets every result, in the order of `seeds`.

    A result must depend on its seed alone and be small and picklable (arrays, numbers, tuples: not a trainer).
    """
    return map_run_batches(lambda batch: [per_run(seed) for seed in batch], seeds, bar, unit)


def run_chunks(runs: Sequence[int], chunks: int = CHUNKS) -> list[Sequence[int]]:
    """`runs` cut into at most `chunks` consecutive chunks of equal size (the last may be shorter)."""
    size = max(1, math.ceil(len(runs) / chunks))
    return [runs[first:first + size] for first in range(0, len(runs), size)]


def chunk_rounds(chunks: Sequence[Sequence[int]], runs_per_batch: int, world: int) -> int:
    """Rounds of `parallel.map_sharded` that give each of `world` ranks about `runs_per_batch` runs a round."""
    chunks_per_batch = max(1, runs_per_batch // max(1, max(map(len, chunks), default=1)))
    return max(1, math.ceil(len(chunks) / (world * chunks_per_batch)))


def fold(parts: Iterable[SumsT], empty: SumsT) -> SumsT:
    """`empty` merged with every part, in the given order."""
    total = empty
    for part in parts:
        total = total.merge(part)
    return total


def sharded_sums(per_chunks: Callable[[list[Sequence[int]]], list[SumsT]], runs: Sequence[int], empty: SumsT, *,
                 runs_per_batch: int, progress: Callable[[int], None] | None = None) -> SumsT:
    """The sums over `runs`, exact to the last bit whatever the number of ranks (see the module).

    `per_chunks(some_chunks)` returns one sums per chunk; the ranks share the chunks out in rounds of about
    `runs_per_batch` runs a rank; `progress(runs)` counts the runs of each round as the ranks hand them in.
    """
    chunks = run_chunks(runs)

    def handed_in(round_chunks: Sequence[Sequence[int]]) -> None:
        """Count the round's runs."""
        if progress is not None:
            progress(sum(map(len, round_chunks)))

    parts = parallel.map_sharded(per_chunks, chunks, rounds=chunk_rounds(chunks, runs_per_batch, parallel.world_size()),
                                 progress=handed_in)
    return fold(parts, empty)
