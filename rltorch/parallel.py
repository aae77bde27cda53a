"""Data-parallel helpers over `torch.distributed`, for runs launched with `torchrun` (or alone: world size 1).

`init_from_env` joins the process group that torchrun describes in the environment (RANK, WORLD_SIZE,
LOCAL_RANK, MASTER_ADDR, MASTER_PORT): gloo for CPU tensors, NCCL for CUDA ones. Without torchrun
(no WORLD_SIZE, or 1) no process group is made and every helper acts on the one process: `all_reduce_sum`
returns its tensor, `gather_to_rank0` a one-item list. Every collective runs under the timeout given to
`init_from_env`; a rank that dies, hangs or cannot be reached makes the collective fail, and the
helpers raise `LostContact` ("rank R: lost contact with the other ranks (...)") instead of hanging.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from datetime import timedelta
from typing import Any, NamedTuple, TypeVar

import numpy as np
import torch
import torch.distributed as dist

from rltorch.errors import RLTorchError

DEFAULT_TIMEOUT_S = 60.0
Item = TypeVar("Item")
Result = TypeVar("Result")
_SENTENCE_END = re.compile(r"(?<=[a-z0-9)])\.\s+(?=[A-Z])")  # ". This is typically caused by ..." is cut off
_LOCATION = re.compile(r"\[[^\]]*\.(?:cc|cpp|h|hpp):\d+\]\s*")  # "[../third_party/gloo/...cc:81] " in C++ errors


class LostContact(RLTorchError):
    """A collective failed or timed out: another rank died, hung, or cannot be reached."""

    def __init__(self, rank: int, reason: str) -> None:
        super().__init__(f"rank {rank}: lost contact with the other ranks ({reason})")
        self.rank, self.reason = rank, reason


class Ranks(NamedTuple):
    """This process's place in the run: its rank and the number of ranks (the world size)."""

    rank: int
    world: int


def _env_int(name: str, default: int) -> int:
    """An integer environment variable set by torchrun, or `default` when unset."""
    text = os.environ.get(name, "")
    try:
        return int(text) if text else default
    except ValueError:
        raise RLTorchError(f"environment variable {name} must be a whole number, got {text!r}") from None


def env_rank() -> int:
    """torchrun's RANK (0 when not launched by torchrun); readable before any process group exists."""
    return _env_int("RANK", 0)


def env_world() -> int:
    """torchrun's WORLD_SIZE (1 when not launched by torchrun); readable before any process group exists."""
    return _env_int("WORLD_SIZE", 1)


def local_rank() -> int:
    """torchrun's LOCAL_RANK: this process's index on its machine (0 when not launched by torchrun)."""
    return _env_int("LOCAL_RANK", 0)


def local_world() -> int:
    """torchrun's LOCAL_WORLD_SIZE: the ranks on this machine (1 when not launched by torchrun)."""
    return _env_int("LOCAL_WORLD_SIZE", 1)


def local_device(kind: str | torch.device = "cpu") -> torch.device:
    """The device of `kind` this rank uses: `cuda:LOCAL_RANK` for CUDA under torchrun (one GPU a rank), else `kind`."""
    device = torch.device(kind)
    if device.type == "cuda" and device.index is None and env_world() > 1:
        return torch.device("cuda", local_rank())
    return device


def resolve_backend(backend: str = "auto", device: str | torch.device | None = None) -> str:
    """`backend`, or for "auto": "nccl" when `device` is CUDA and NCCL is built in, else "gloo"."""
    if backend != "auto":
        return backend
    is_cuda = device is not None and torch.device(device).type == "cuda"
    return "nccl" if is_cuda and dist.is_nccl_available() else "gloo"


def init_from_env(backend: str = "auto", timeout_s: float = DEFAULT_TIMEOUT_S,
                  device: str | torch.device | None = None) -> Ranks:
    """Join torchrun's process group (RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT); world 1 makes none.

    `backend="auto"` takes NCCL for a CUDA `device` (and pins this rank to `cuda:LOCAL_RANK`), else gloo.
    Collectives that wait longer than `timeout_s` fail with `LostContact`.
    """
    rank, world = env_rank(), env_world()
    if world < 1 or not 0 <= rank < world:
        raise RLTorchError(f"RANK {rank} and WORLD_SIZE {world} do not describe a rank of a run")
    if world == 1:
        return Ranks(0, 1)
    if dist.is_initialized():
        return Ranks(dist.get_rank(), dist.get_world_size())
    missing = [name for name in ("MASTER_ADDR", "MASTER_PORT") if not os.environ.get(name)]
    if missing:
        raise RLTorchError(f"WORLD_SIZE is {world} but {' and '.join(missing)} is not set (launch with torchrun)")
    if timeout_s <= 0:
        raise RLTorchError(f"timeout_s must be > 0, got {timeout_s}")
    backend = resolve_backend(backend, device)
    if backend == "nccl":
        torch.cuda.set_device(local_device("cuda"))
    with _collective(rank, "could not join"):
        dist.init_process_group(backend, init_method="env://", rank=rank, world_size=world,
                                timeout=timedelta(seconds=timeout_s))
    return Ranks(rank, world)


@contextmanager
def joined(backend: str = "auto", timeout_s: float = DEFAULT_TIMEOUT_S,
           device: str | torch.device | None = None) -> Iterator[Ranks]:
    """`init_from_env` for the block, then `shutdown` however it ends; yields this process's `Ranks`."""
    try:
        yield init_from_env(backend, timeout_s, device)
    finally:
        shutdown()


def rank() -> int:
    """This process's rank in the process group (0 without one)."""
    return dist.get_rank() if dist.is_available() and dist.is_initialized() else 0


def world_size() -> int:
    """The number of ranks in the process group (1 without one)."""
    return dist.get_world_size() if dist.is_available() and dist.is_initialized() else 1


def is_rank0() -> bool:
    """Whether this process is rank 0 (the one that logs and writes); true without a process group."""
    return rank() == 0


def shard(n_items: int, rank: int, world: int) -> range:
    """Rank `rank`'s contiguous slice of `n_items` items split over `world` ranks (the first ones get one more)."""
    if n_items < 0 or world < 1 or not 0 <= rank < world:
        raise ValueError(f"need n_items >= 0 and 0 <= rank < world, got {n_items}, {rank}, {world}")
    base, extra = divmod(n_items, world)
    start = rank * base + min(rank, extra)
    return range(start, start + base + (rank < extra))


def rank_seed(seed: int, rank: int, world: int, *key: int) -> int:
    """A 64-bit seed for rank `rank` of `world`: numpy's `SeedSequence(seed, spawn_key=(world, *key, rank))`."""
    if seed < 0 or any(part < 0 for part in key) or not 0 <= rank < world:
        raise ValueError(f"need seed and key >= 0 and 0 <= rank < world, got {seed}, {key}, {rank}, {world}")
    sequence = np.random.SeedSequence(seed, spawn_key=(world, *key, rank))
    return int(sequence.generate_state(1, np.uint64)[0])


def _reason(error: BaseException) -> str:
    """The first sentence of a collective's error, without the C++ source location, cut to 160 characters."""
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    text = _LOCATION.sub("", lines[0]) if lines else type(error).__name__
    text = _SENTENCE_END.split(text, maxsplit=1)[0].rstrip(".")
    return text if len(text) <= 160 else text[:157] + "..."


@contextmanager
def _collective(rank: int | None = None, what: str = "") -> Iterator[None]:
    """Turn a failing or timed-out collective's RuntimeError (DistBackendError, ...) into `LostContact`."""
    try:
        yield
    except RuntimeError as error:
        reason = _reason(error)
        raise LostContact(env_rank() if rank is None else rank, f"{what}: {reason}" if what else reason) from error


def all_reduce_sum(tensor: torch.Tensor) -> torch.Tensor:
    """Sum `tensor` over every rank, in place, and return it (unchanged without a process group)."""
    if world_size() > 1:
        with _collective():
            dist.all_reduce(tensor, op=dist.ReduceOp.SUM)
    return tensor


def start_all_reduce_sum(tensor: torch.Tensor) -> Callable[[], torch.Tensor]:
    """Start summing `tensor` over every rank, in place; the returned call waits for the sum and returns `tensor`.

    Do other work in between (not on `tensor`); the wait raises `LostContact` like `all_reduce_sum`.
    """
    if world_size() == 1:
        return lambda: tensor
    with _collective():
        work = dist.all_reduce(tensor, op=dist.ReduceOp.SUM, async_op=True)

    def wait() -> torch.Tensor:
        with _collective():
            work.wait()
        return tensor

    return wait


def barrier() -> None:
    """Wait until every rank gets here (nothing without a process group)."""
    if world_size() > 1:
        with _collective():
            dist.barrier()


def gather_to_rank0(obj: Any) -> list[Any] | None:
    """Every rank's picklable `obj`, in rank order, on rank 0; None on the other ranks ([obj] alone)."""
    if world_size() == 1:
        return [obj]
    gathered: list[Any] | None = [None] * world_size() if is_rank0() else None
    with _collective():
        dist.gather_object(obj, gathered, dst=0)
    return gathered


def broadcast_from_rank0(obj: Any) -> Any:
    """Rank 0's picklable `obj` on every rank (the other ranks' `obj` is ignored; `obj` itself alone)."""
    if world_size() == 1:
        return obj
    box = [obj if is_rank0() else None]
    with _collective():
        dist.broadcast_object_list(box, src=0)
    return box[0]


def all_gather(obj: Any) -> list[Any]:
    """Every rank's picklable `obj`, in rank order, on every rank ([obj] without a process group)."""
    if world_size() == 1:
        return [obj]
    gathered: list[Any] = [None] * world_size()
    with _collective():
        dist.all_gather_object(gathered, obj)
    return gathered


def map_sharded(compute: Callable[[list[Item]], list[Result]], items: Sequence[Item], *, rounds: int = 100,
                progress: Callable[[Sequence[Item]], None] | None = None) -> list[Result]:
    """`compute` over `items` split across the ranks; every rank gets all the results, in the order of `items`.

    The items go in about `rounds` rounds: in each, every rank computes the results of its own contiguous
    slice (`compute(slice)` returns one result per item) and one all-gather hands them to every rank, so a
    lost rank is noticed within a round and no rank waits longer than a round's work. When each result is
    a function of its item alone, the list is the same whatever the number of ranks. `progress(round_items)`
    runs after each round on every rank.
    """
    if rounds < 1:
        raise ValueError(f"rounds must be >= 1, got {rounds}")
    world, me = world_size(), rank()
    per_rank = max(1, math.ceil(len(items) / (world * rounds)))
    results: list[Result] = []
    for start in range(0, len(items), per_rank * world):
        round_items = items[start:start + per_rank * world]
        mine = list(round_items[me * per_rank:(me + 1) * per_rank])
        computed = compute(mine) if mine else []
        if len(computed) != len(mine):
            raise ValueError(f"compute returned {len(computed)} results for {len(mine)} items")
        for part in all_gather(computed):
            results.extend(part)
        if progress is not None:
            progress(round_items)
    return results


def shutdown() -> None:
    """Leave the process group if one was made (errors of a group that already lost a rank are ignored)."""
    if dist.is_available() and dist.is_initialized():
        with suppress(RuntimeError):
            dist.destroy_process_group()


__all__ = [
    "DEFAULT_TIMEOUT_S",
    "LostContact",
    "Ranks",
    "all_gather",
    "all_reduce_sum",
    "barrier",
    "broadcast_from_rank0",
    "env_rank",
    "env_world",
    "gather_to_rank0",
    "init_from_env",
    "is_rank0",
    "joined",
    "local_device",
    "local_rank",
    "local_world",
    "map_sharded",
    "rank",
    "rank_seed",
    "resolve_backend",
    "shard",
    "shutdown",
    "start_all_reduce_sum",
    "world_size",
]
