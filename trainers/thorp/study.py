"""Reproduce Thorp's single-deck basic strategy with Monte Carlo ES over every valid start (seed 001's study).

One deck, dealer peeks, hit or stand, expanded state (total, dealer card, usable ace, cards capped at
4, two-card pair). Each episode starts from one of the 10,720 (hand, up card) deals, drawn uniformly,
with a random first action and greedy play after it; values are sample averages with visit counts.
Writes to --out a Markdown report (Thorp vs the exact oracle vs MC ES, cell by cell and for each named
exception) and two figures (soft 18 against an ace as MC ES converges, infinite vs single deck; the
expanded-state policies with visit counts); logs to TensorBoard under --log-dir and saves a checkpoint
(`rltorch.checkpoints.load` gives its greedy agent for `BlackjackEnv` with the study's rules).
Under torchrun the batched engine runs data-parallel over the ranks (`trainers.thorp.distributed`, docs/distributed.md):
`torchrun --standalone --nproc-per-node 2 trainers/thorp/study.py ...`; rank 0 alone writes.
An existing run folder, checkpoint or report in --out is refused (before any work) unless --overwrite.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

import torch
from tqdm import tqdm

from rltorch import parallel
from rltorch.errors import RLTorchError
from rltorch.logger import NullLogger, TensorBoardLogger
from rltorch.run.options import at_most, existing_file, make_parser, non_negative_int, positive_int, writable_file
from rltorch.run.output import StopSignals, print_json, run_cli, run_name
from rltorch.run.plots import save_png
from rltorch.run.session import check_run_name
from rltorch.run.studies import add_study_outputs
from trainers.thorp import distributed, figures, learning
from trainers.thorp.engine import BatchedES
from trainers.thorp.learning import LearnedPolicy
from trainers.thorp.report import report_markdown
from trainers.thorp.resume import Resumed, resume_state, save_batched

REPORT, SOFT18_FIGURE, POLICY_FIGURE = "thorp_report.md", "thorp_soft18_ace.png", "thorp_policies.png"
# Upper bounds of the options: far past any run here (the docs plan 1e11 hands on 64 ranks), below any overflow.
MAX_SEED, MAX_EPISODES, MAX_BATCH, MAX_THREADS = 2**32 - 1, 10**13, 1 << 24, 256


def build_parser(check_resume: bool = True) -> argparse.ArgumentParser:
    """The script's options (`check_resume=False`: ranks other than 0 take --resume unchecked; only rank 0 reads it)."""
    parser = make_parser(__doc__)
    training = parser.add_argument_group("learning")
    training.add_argument("--episodes", type=at_most(positive_int, MAX_EPISODES), default=2_000_000_000,
                          help="MC ES episodes (hands)")
    training.add_argument("--seed", type=at_most(non_negative_int, MAX_SEED), default=0,
                          help="seed of every random choice in the run")
    training.add_argument("--engine", choices=("batched", "trainer"), default="batched",
                          help="batched torch engine, or MCExploringStarts on BlackjackEnv (about 50x slower)")
    training.add_argument("--batch", type=at_most(positive_int, MAX_BATCH), default=1 << 17,
                          help="batched engine: episodes played per greedy-policy update")
    training.add_argument("--device", choices=("cpu", "cuda"), default="cpu", help="batched engine: torch device")
    training.add_argument("--threads", type=at_most(positive_int, MAX_THREADS), default=1,
                          help="torch CPU threads (1 is fastest for this engine on a small machine)")
    training.add_argument("--resume", type=existing_file if check_resume else Path,
                          help="batched engine: continue from this checkpoint up to --episodes in all (0 more: "
                               "only report); a run that ended on a partial batch continues from its last whole "
                               "batch, so the result equals one straight run")
    training.add_argument("--inexact-resume", action="store_true",
                          help="resume, with the same number of ranks, from a checkpoint saved inside a batch that "
                               "cannot continue exactly (another --batch, or an older checkpoint); the continuation "
                               "then differs from a straight run")
    training.add_argument("--soft18-episodes", type=at_most(non_negative_int, 10**10), default=8_000_000,
                          help="episodes of each soft-18 convergence run (4 runs; 0 skips that figure)")
    output = add_study_outputs(
        parser, "folder for the report and figures (default: the run folder; docs to update the README's)",
        "Blackjack-single-deck__thorp-es__seed__time", overwrite_help="allow writing into an existing run folder, "
        "over an existing checkpoint, or over the report and figures in --out")
    output.add_argument("--log-every", type=at_most(positive_int, MAX_EPISODES), default=20_000_000,
                        help="episodes between logs")
    output.add_argument("--checkpoint", type=writable_file, help="checkpoint path (default: checkpoints/<run>.pt)")
    output.add_argument("--checkpoint-every", type=at_most(non_negative_int, MAX_EPISODES), default=0,
                        help="batched engine: also save the checkpoint every this many episodes (0: at the end only)")
    return parser


def log_policy(logger: TensorBoardLogger, policy: LearnedPolicy, step: int) -> None:
    """Log the agreement with the exact play and the key states' Q gaps and z scores."""
    agreement = learning.agreement(policy)
    scalars = {"thorp/deal_agreement": agreement["deal_agreement"],
               "thorp/clear_disagreements": len(agreement["clear_disagreements"])}
    for name, numbers in learning.key_states(policy).items():
        scalars[f"q_gap/{name}"], scalars[f"z/{name}"] = numbers["q_gap"], numbers["z"]
    logger.scalars(scalars, step)


def train_batched(args: argparse.Namespace, logger: TensorBoardLogger, signals: StopSignals | None = None,
                  checkpoint: Path | None = None,
                  resumed: Resumed | None = None) -> tuple[BatchedES, float]:
    """Run the batched engine (from --resume if given) with a progress bar and logs; return it and its seconds.

    Under torchrun every rank calls this: rank 0 reads --resume (`resumed`, if it did already) and hands the
    state to the others, the ranks play their shares of each batch, and only rank 0 shows progress, logs and
    saves to `checkpoint` every --checkpoint-every episodes. Whole batches come first; before a partial last
    batch the state is kept in `engine.whole_batch_state` for the checkpoint (see `resume_state`).
    """
    signals = signals or StopSignals(lambda: None)
    rank0 = parallel.is_rank0()
    engine, seconds = learning.make_engine(args.seed, parallel.local_device(args.device)), 0.0
    if args.resume:
        if rank0 and resumed is None:
            resumed = resume_state(args, parallel.world_size())
        distributed.load_state(engine, resumed.state if rank0 else None)
        seconds = resumed.seconds if rank0 else 0.0
        engine.whole_batch_state = resumed.whole if rank0 and args.episodes <= engine.episodes else None
    else:
        distributed.start_streams(engine)
    next_log = (engine.episodes // args.log_every + 1) * args.log_every
    every = getattr(args, "checkpoint_every", 0)
    next_save = (engine.episodes // every + 1) * every if every else None
    start = time.perf_counter()

    def after_batch(engine: BatchedES, size: int) -> None:
        nonlocal next_log, next_save
        bar.update(size)
        if rank0 and engine.episodes >= next_log:
            next_log += args.log_every
            log_policy(logger, LearnedPolicy.from_engine(engine), engine.episodes)
        if next_save is not None and engine.episodes >= next_save:  # the same batch on every rank
            next_save = (engine.episodes // every + 1) * every
            save_batched(checkpoint, engine, seconds + time.perf_counter() - start)

    more = max(args.episodes - engine.episodes, 0)
    whole = more - more % args.batch
    with tqdm(total=more, unit="ep", unit_scale=True, disable=args.no_progress or not rank0,
              dynamic_ncols=True) as bar:
        stopped = distributed.train(engine, whole, batch=args.batch, callback=after_batch,
                                          stop=lambda: signals.received)
        if stopped is None and whole < more:  # a partial last batch: keep the state an exact resume starts from
            snapshot = distributed.gather_copy(engine)
            engine.whole_batch_state = None if snapshot is None else {**snapshot, "batch": args.batch}
            stopped = distributed.train(engine, more - whole, batch=args.batch, callback=after_batch,
                                              stop=lambda: signals.received)
    if stopped is not None:
        if signals.received is None:  # another rank was signalled: stop (and exit) as it does
            signals.received = stopped
        if rank0:
            print(f"stopped after {engine.episodes:,} episodes (a whole batch); saving and reporting", file=sys.stderr)
    return engine, seconds + time.perf_counter() - start


def train(args: argparse.Namespace, logger: TensorBoardLogger, checkpoint: Path, signals: StopSignals,
          resumed: Resumed | None = None) -> tuple[LearnedPolicy, dict]:
    """Train with the chosen engine, save the checkpoint; return the learned policy and the run's numbers."""
    start = time.perf_counter()
    if args.engine == "trainer":
        trainer = learning.make_trainer(args.seed, logger)
        signals.on_stop = lambda: setattr(trainer, "stop_requested", True)
        trainer.train(args.episodes, log_every=min(args.log_every, 100_000), eval_every=0,
                      progress=not args.no_progress)
        seconds, episodes, extra = time.perf_counter() - start, trainer.episodes_done, {"seed": args.seed}
        trainer.save(checkpoint)
        policy = LearnedPolicy.from_table(trainer.value_fn)
    else:
        engine, seconds = train_batched(args, logger, signals, checkpoint, resumed)
        save_batched(checkpoint, engine, seconds)
        policy, episodes = LearnedPolicy.from_engine(engine), engine.episodes
        extra = {"seed": engine.seed, "batch": args.batch, "device": args.device, "threads": args.threads,
                 "ranks": parallel.world_size(), "peeked_naturals": engine.peeked_naturals}
    log_policy(logger, policy, episodes)
    run = {"engine": args.engine, **extra, "episodes": episodes, "seconds": round(seconds, 1),
           "episodes_per_second": round(episodes / max(seconds, 1e-9))}
    return policy, run


def draw_figures(args: argparse.Namespace, policy: LearnedPolicy, logger: TensorBoardLogger,
                 signals: StopSignals) -> dict[str, Any]:
    """Save the policy figure and, unless skipped, the soft-18 convergence figure; return the soft-18 numbers."""
    drawn = {POLICY_FIGURE: figures.figure_policies(policy)}
    numbers: dict[str, Any] = {}
    if args.soft18_episodes and not signals.received:
        start = time.perf_counter()
        history = figures.soft18_history(args.soft18_episodes, args.seed, progress=not args.no_progress,
                                               stop=lambda: signals.received is not None)
    if args.soft18_episodes and not signals.received:
        drawn[SOFT18_FIGURE] = figures.figure_soft18(history)
        numbers = {"seconds": round(time.perf_counter() - start, 1), "episodes_each": args.soft18_episodes}
        for (decks, peeks), record in history.items():
            stand, hit = figures.soft18_exact(decks, peeks)
            numbers[f"{'infinite' if decks is None else 'single'} deck, {'peek' if peeks else 'no peek'}"] = {
                "mc_stand": round(record["stand"][-1], 4), "mc_hit": round(record["hit"][-1], 4),
                "exact_stand": round(stand, 4), "exact_hit": round(hit, 4)}
    for name, figure in drawn.items():
        save_png(figure, args.out / name, args.dpi)
        logger.figure(f"figures/{Path(name).stem}", figure)
    return numbers


def output_files(args: argparse.Namespace) -> list[str]:
    """The names of the files the study writes into --out."""
    return [REPORT, POLICY_FIGURE] + ([SOFT18_FIGURE] if args.soft18_episodes else [])


def plan_outputs(args: argparse.Namespace) -> None:
    """Settle the run name, checkpoint and output folder in `args`; unless --overwrite, refuse to replace any of
    them (a checkpoint being resumed may be written over: the run goes on in it)."""
    args.run_name = check_run_name(args.run_name) if args.run_name else \
        run_name("Blackjack-single-deck", "thorp-es", args.seed)
    args.checkpoint = args.checkpoint or Path("checkpoints") / f"{args.run_name}.pt"
    args.out = args.out or args.log_dir / args.run_name
    if args.overwrite:
        return
    continued = args.resume is not None and args.checkpoint.resolve() == Path(args.resume).resolve()
    taken = [path for path in [args.log_dir / args.run_name, *(args.out / name for name in output_files(args)),
                               *([] if continued else [args.checkpoint])] if path.exists()]
    if taken:
        raise RLTorchError(f"{taken[0]} exists: choose another --run-name, --out or --checkpoint, or pass --overwrite")


def run_study(args: argparse.Namespace, signals: StopSignals, resumed: Resumed | None = None) -> dict[str, Any] | None:
    """Train, report, draw; return the metrics (None on ranks other than 0: they only train).

    Rank 0 expects `plan_outputs(args)` done (and `resumed` read) before: nothing here refuses a file.
    """
    torch.set_num_threads(args.threads)
    if not parallel.is_rank0():
        engine, seconds = train_batched(args, NullLogger(), signals)
        save_batched(None, engine, seconds)  # hands this rank's stream to rank 0's checkpoint
        return None
    args.out.mkdir(parents=True, exist_ok=True)
    logger = TensorBoardLogger(args.log_dir / args.run_name)
    logger.hyperparameters({key: str(value) for key, value in vars(args).items()})
    policy, run = train(args, logger, args.checkpoint, signals, resumed)
    agreement, acceptance = learning.agreement(policy), learning.acceptance(policy)
    soft18 = draw_figures(args, policy, logger, signals)
    drawn = [POLICY_FIGURE] + ([SOFT18_FIGURE] if soft18 else [])
    report = report_markdown(policy, run, agreement, acceptance, drawn[::-1], soft18)
    (args.out / REPORT).write_text(report)
    logger.text("report", report)
    logger.close()
    return {**run, "acceptance": acceptance, "agreement": agreement, "key_states": learning.key_states(policy),
            "soft18": soft18, "report": str(args.out / REPORT), "checkpoint": str(args.checkpoint),
            "log_dir": str(logger.log_dir)}


def study(args: argparse.Namespace) -> int:
    """Run the study with SIGINT/SIGTERM turned into a clean stop; return the exit status.

    Every refusal comes before any file or folder is made: rank 0 reads --resume and settles its outputs before
    the ranks join.
    """
    if args.device == "cuda" and not torch.cuda.is_available():
        raise RLTorchError("--device cuda was asked for but no GPU is available")
    if parallel.env_world() > 1 and args.engine == "trainer":
        raise RLTorchError("--engine trainer runs in one process; under torchrun use the batched engine")
    if args.resume and args.engine == "trainer":
        raise RLTorchError("--resume works with the batched engine only")
    resumed = None
    if parallel.env_rank() == 0:
        resumed = resume_state(args, parallel.env_world()) if args.resume else None
        plan_outputs(args)
    signals = StopSignals(lambda: None)
    try:
        with parallel.joined(timeout_s=args.dist_timeout, device=args.device), signals.active():
            metrics = run_study(args, signals, resumed)  # Ctrl-C while joining the ranks: interrupted
            if metrics is not None:
                print_json(metrics, args.json)
    except parallel.LostContact as error:
        print(error, file=sys.stderr)
        return 1
    return signals.exit_status


def main(argv: list[str] | None = None) -> int:
    """Parse `argv`, run the study, print and optionally save the metrics."""
    args = build_parser(check_resume=parallel.env_rank() == 0).parse_args(argv)
    return run_cli(lambda: study(args))


if __name__ == "__main__":
    sys.exit(main())
