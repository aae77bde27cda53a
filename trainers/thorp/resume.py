"""The Thorp study's checkpoints: saving the batched engine's run, and what --resume continues from."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any, NamedTuple

import torch

from rltorch import parallel
from rltorch.checkpoints import load_checkpoint, save_checkpoint
from rltorch.errors import RLTorchError
from rltorch.run.output import refuse_to_run
from trainers.thorp import distributed
from trainers.thorp.engine import STATES, BatchedES
from trainers.thorp.engine_state import check_state

# The env a checkpoint's agent plays (named so `rltorch evaluate` knows it, and refuses: no exact oracle for a shoe).
STUDY_ENV = {"keys": "q", "env_class": "rltorch.envs.blackjack.env:BlackjackEnv", "env_id": "rltorch/Blackjack-v0",
             "env_kwargs": {"decks": 1, "dealer_peeks": True, "expanded_state": True,
                                                              "player_draws_below_12": False}}

def save_batched(checkpoint: Path | None, engine: BatchedES, seconds: float) -> None:
    """Save the batched engine's run to `checkpoint` (rank 0; every rank calls this: the state is gathered).

    After a partial last batch the checkpoint also holds the state after the last whole batch
    (`last_whole_batch`), which `resume_state` continues from.
    """
    state = distributed.gather_state(engine)
    if state is None or checkpoint is None:
        return
    table = engine.to_qtable()
    whole = {"last_whole_batch": engine.whole_batch_state} if engine.whole_batch_state is not None else {}
    save_checkpoint(checkpoint, {"config": {**engine.config(), **STUDY_ENV}, "value_fn_config": table.config(),
                                 "value_fn_state": table.state_dict(), "episodes": engine.episodes,
                                 "seconds": seconds, "engine": state, **whole})


class Resumed(NamedTuple):
    """What --resume continues from: the engine state, the seconds spent so far, and a saved state after the last
    whole batch to keep if nothing more is played (None when `state` is that state, or there is none)."""

    state: dict[str, Any]
    seconds: float
    whole: dict[str, Any] | None


def resume_state(args: argparse.Namespace, world: int) -> Resumed:
    """What --resume continues from (see `Resumed`); RLTorchError in one line for a file that is not fit.

    Rank 0 calls this before anything is made. A run that ended on a partial batch is continued from the state
    after its last whole batch (same --batch, same number of ranks), so that it equals one straight run; any
    other checkpoint saved inside a batch needs --inexact-resume (with another number of ranks the streams
    restart anyway).
    """
    saved = load_checkpoint(args.resume)
    state, seconds = saved.get("engine"), saved.get("seconds", 0.0)
    if state is None:
        raise RLTorchError(f"{args.resume} holds no batched-engine state to resume (made with --engine trainer?)")
    size = torch.Generator(parallel.local_device(args.device)).get_state().numel()
    whole = saved.get("last_whole_batch")
    try:
        check_state(state, size, 2 * STATES)
        if whole is not None:
            check_state(whole, size, 2 * STATES)
    except ValueError as error:
        raise RLTorchError(f"{args.resume} is not a Thorp study checkpoint: {error}") from None
    seconds = float(seconds) if isinstance(seconds, (int, float)) else 0.0
    if state.get("world", 1) != world or args.episodes <= state["episodes"]:
        return Resumed(state, seconds, whole)
    if whole is not None and whole.get("batch") == args.batch:
        return Resumed(whole, seconds, None)
    if state["episodes"] % args.batch and not args.inexact_resume:
        raise RLTorchError(f"{args.resume} was saved after {state['episodes']:,} episodes, inside a --batch "
                           f"{args.batch:,} batch it cannot continue exactly, so resuming cannot equal one straight "
                           "run; pass --inexact-resume to continue anyway")
    return Resumed(state, seconds, None)


if __name__ == "__main__":
    refuse_to_run(__file__, "study.py", "trainers/thorp/study.py")
