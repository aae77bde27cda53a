"""The Thorp study's batched MC ES as N data-parallel ranks (torchrun; one process is the world-1 case).

Every batch of `batch` episodes is split over the ranks (`rltorch.parallel.shard`: rank r plays a
contiguous share, the first `batch % world` ranks one episode more). Each rank plays its share with its
own random stream on the greedy policy of the shared table, collects the batch's statistics (sums,
counts, peeked naturals, episodes) and two stop flags in one int64 tensor, and ONE `all_reduce` per batch
adds them up; every rank then adds the same totals to its table, so all ranks hold the same table and
the same greedy policy after every batch.

Random streams: a run of `world` ranks starting at episode count E seeds rank r's generator with
`rltorch.parallel.rank_seed(seed, r, world, E)` (numpy SeedSequence(seed, spawn_key=(world, E, r))),
except world 1 from episode 0, which seeds it with `seed` itself: the one-process run of before. The
table after a run is therefore a function of (seed, world, batch, episodes). A checkpoint holds the
table and every rank's generator state: resumed with the same number of ranks, the streams continue
where they stopped (the same numbers as a run that never stopped, when the saved count is a multiple of
`batch`); resumed with another number of ranks, the run starts from exactly the saved table and counts,
and the streams restart from (seed, new world, rank, saved episode count).
"""

from __future__ import annotations

import signal
from collections.abc import Callable
from typing import Any

import torch

from rltorch import parallel
from rltorch.run.output import refuse_to_run
from trainers.thorp.engine import STATISTICS, BatchedES

STOP_SLOTS = 2  # after the statistics: how many ranks received SIGINT, how many another stop signal (SIGTERM)


def stream_seed(seed: int, rank: int, world: int, episodes: int) -> int:
    """The seed of rank `rank`'s stream in a run of `world` ranks from episode count `episodes` (see above)."""
    if world == 1 and episodes == 0:
        return seed
    return parallel.rank_seed(seed, rank, world, episodes)


def start_streams(engine: BatchedES) -> None:
    """Seed this rank's stream for a run of the current world from the engine's episode count."""
    engine.generator.manual_seed(stream_seed(engine.seed, parallel.rank(), parallel.world_size(), engine.episodes))


def train(engine: BatchedES, episodes: int, batch: int = 1 << 17,
          callback: Callable[[BatchedES, int], None] | None = None,
          stop: Callable[[], int | None] | None = None) -> int | None:
    """Run `episodes` more episodes over every rank, `batch` per policy update; one all_reduce per batch.

    Every rank calls this with the same arguments. `callback(engine, size)` runs after each batch
    (the table is then the same on every rank). Each rank deals its next batch while the all_reduce
    runs (`BatchedES.deal`: the draws come in the same order as a batch-by-batch run's). `stop()`
    returns a signal number once this rank was asked to stop; its flag travels with the batch's
    statistics, so every rank stops after the same batch. Returns the stop signal (SIGINT if any rank
    got one, else SIGTERM) or None.
    """
    if episodes < 0 or batch < 1:
        raise ValueError("episodes must be >= 0 and batch >= 1")
    rank, world = parallel.rank(), parallel.world_size()
    packed = torch.zeros(STATISTICS + STOP_SLOTS, dtype=torch.int64, device=engine.device)
    statistics, flags = packed[:STATISTICS], packed[STATISTICS:]
    done, dealt = 0, engine.deal(len(parallel.shard(min(batch, episodes), rank, world))) if episodes else None
    while done < episodes:
        size = min(batch, episodes - done)
        packed.zero_()
        engine.play_dealt(dealt, out=statistics)
        received = stop() if stop is not None else None
        if received is not None:
            flags[0 if received == signal.SIGINT else 1] = 1
        summed = parallel.start_all_reduce_sum(packed)
        following = min(batch, episodes - done - size)
        before = engine.generator.get_state()  # the stream as a batch-by-batch run leaves it after this batch
        if following:  # deal the next batch (its draws do not depend on the policy) while the ranks add up
            dealt = engine.deal(len(parallel.shard(following, rank, world)))
        ahead = engine.generator.get_state()
        summed()
        engine.add_statistics(statistics)
        done += size
        engine.generator.set_state(before)  # a checkpoint or a stop sees the stream of a run without the deal ahead
        if callback is not None:
            callback(engine, size)
        interrupts, terminates = flags.tolist()
        if interrupts or terminates:
            return signal.SIGINT if interrupts else signal.SIGTERM
        engine.generator.set_state(ahead)
    return None


def gather_state(engine: BatchedES) -> dict[str, Any] | None:
    """On rank 0: `engine.state_dict()` with the world size and every rank's generator state; None elsewhere.

    A collective: every rank calls it (after the same batch).
    """
    generators = parallel.gather_to_rank0(engine.generator.get_state())
    if generators is None:
        return None
    return {**engine.state_dict(), "world": parallel.world_size(), "generators": generators}


def gather_copy(engine: BatchedES) -> dict[str, Any] | None:
    """`gather_state` holding its own copies of the tensors (the engine goes on adding to its own); a collective."""
    state = gather_state(engine)
    if state is None:
        return None
    return {key: value.clone() if isinstance(value, torch.Tensor) else value for key, value in state.items()}


def load_state(engine: BatchedES, state: dict[str, Any] | None) -> None:
    """Restore rank 0's `state` (from `gather_state` or an older one-process checkpoint) on every rank.

    A collective: rank 0 passes the state, the other ranks anything (None); it is broadcast. With the
    saved number of ranks each rank takes back its own generator; with another, the streams restart
    from the saved episode count (`start_streams`).
    """
    state = parallel.broadcast_from_rank0(state)
    generators, world = state.get("generators", [state["generator"]]), parallel.world_size()
    same_world = state.get("world", 1) == world and len(generators) == world
    own = generators[parallel.rank()] if same_world else engine.generator.get_state()
    engine.load_state_dict({**state, "generator": own})
    if not same_world:
        start_streams(engine)


__all__ = ["STOP_SLOTS", "gather_copy", "gather_state", "load_state", "start_streams", "stream_seed", "train"]


if __name__ == "__main__":
    refuse_to_run(__file__, "study.py", "trainers/thorp/study.py")
