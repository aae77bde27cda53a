"""Reproduce Thorp's single-deck basic strategy with Monte Carlo ES over every valid start (seed 001's study).

One deck, dealer peeks, hit or stand, expanded state (total, dealer card, usable ace, cards capped at
4, two-card pair). Each episode starts from one of the 10,720 (hand, up card) deals, drawn uniformly,
with a random first action and greedy play after it; values are sample averages with visit counts.
Writes to --out a Markdown report (Thorp vs the exact oracle vs MC ES, cell by cell and for each named
exception) and two figures (soft 18 against an ace as MC ES converges, infinite vs single deck; the
expanded-state policies with visit counts); logs to TensorBoard under --log-dir and saves a checkpoint
(`rltorch.checkpoints.load` gives its greedy agent for `BlackjackEnv` with the study's rules).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

import torch
from tqdm import tqdm

from rltorch.agents import GreedyAgent
from rltorch.checkpoints import load_checkpoint, save_checkpoint
from rltorch.errors import RLTorchError
from rltorch.keys import StateActionKeys
from rltorch.logger import TensorBoardLogger, run_name
from rltorch.run.options import non_negative_int, positive_int, print_json, run_cli
from rltorch.run.plots import save_png

import thorp_figures
import thorp_learning as thorp_study
from thorp_engine import BatchedES
from thorp_learning import LearnedPolicy
from thorp_report import report_markdown

REPORT, SOFT18_FIGURE, POLICY_FIGURE = "thorp_report.md", "thorp_soft18_ace.png", "thorp_policies.png"


def episode_count(text: str) -> int:
    """Parse a positive episode count such as 2000000000, 2_000_000_000 or 2e9."""
    try:
        value = float(text.replace("_", ""))
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number of episodes such as 2e9, got {text!r}") from None
    if value < 1 or value != int(value):
        raise argparse.ArgumentTypeError(f"must be a positive whole number, got {text!r}")
    return int(value)


def build_parser() -> argparse.ArgumentParser:
    """The script's options."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    learning = parser.add_argument_group("learning")
    learning.add_argument("--episodes", type=episode_count, default=2_000_000_000, help="MC ES episodes (hands)")
    learning.add_argument("--seed", type=int, default=0, help="seed of every random choice in the run")
    learning.add_argument("--engine", choices=("batched", "trainer"), default="batched",
                          help="batched torch engine, or MCTrainer on BlackjackEnv (about 50x slower)")
    learning.add_argument("--batch", type=positive_int, default=1 << 17,
                          help="batched engine: episodes played per greedy-policy update")
    learning.add_argument("--device", default="cpu", help="batched engine: torch device")
    learning.add_argument("--threads", type=positive_int, default=1,
                          help="torch CPU threads (1 is fastest for this engine on a small machine)")
    learning.add_argument("--resume", type=Path,
                          help="batched engine: continue from this checkpoint up to --episodes in all (0 more: "
                               "only report)")
    learning.add_argument("--soft18-episodes", type=non_negative_int, default=8_000_000,
                          help="episodes of each soft-18 convergence run (4 runs; 0 skips that figure)")
    output = parser.add_argument_group("output")
    output.add_argument("--out", type=Path, default=Path("docs"), help="folder for the report and figures")
    output.add_argument("--log-dir", type=Path, default=Path("runs"), help="TensorBoard root folder")
    output.add_argument("--run-name", help="run folder name (default: Blackjack-single-deck__thorp-es__seed__time)")
    output.add_argument("--log-every", type=episode_count, default=20_000_000, help="episodes between logs")
    output.add_argument("--checkpoint", type=Path, help="checkpoint path (default: checkpoints/<run>.pt)")
    output.add_argument("--json", type=Path, help="write the final metrics to this JSON file")
    output.add_argument("--dpi", type=positive_int, default=80, help="resolution of the PNGs")
    output.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    return parser


def log_policy(logger: TensorBoardLogger, policy: LearnedPolicy, step: int) -> None:
    """Log the agreement with the exact play and the key states' Q gaps and z scores."""
    agreement = thorp_study.agreement(policy)
    scalars = {"thorp/deal_agreement": agreement["deal_agreement"],
               "thorp/clear_disagreements": len(agreement["clear_disagreements"])}
    for name, numbers in thorp_study.key_states(policy).items():
        scalars[f"q_gap/{name}"], scalars[f"z/{name}"] = numbers["q_gap"], numbers["z"]
    logger.scalars(scalars, step)


def train_batched(args: argparse.Namespace, logger: TensorBoardLogger) -> tuple[BatchedES, float]:
    """Run the batched engine (from --resume if given) with a progress bar and logs; return it and its seconds."""
    engine, seconds = thorp_study.make_engine(args.seed, args.device), 0.0
    if args.resume:
        saved = load_checkpoint(args.resume)
        if "engine" not in saved:
            raise RLTorchError(f"{args.resume} holds no batched-engine state to resume (made with --engine trainer?)")
        engine.load_state_dict(saved["engine"])
        seconds = saved.get("seconds", 0.0)
    next_log = (engine.episodes // args.log_every + 1) * args.log_every
    start = time.perf_counter()

    def after_batch(engine: BatchedES, size: int) -> None:
        nonlocal next_log
        bar.update(size)
        if engine.episodes >= next_log:
            next_log += args.log_every
            log_policy(logger, LearnedPolicy.from_engine(engine), engine.episodes)

    more = max(args.episodes - engine.episodes, 0)
    with tqdm(total=more, unit="ep", unit_scale=True, disable=args.no_progress, dynamic_ncols=True) as bar:
        try:
            engine.train(more, batch=args.batch, callback=after_batch)
        except KeyboardInterrupt:
            print(f"\ninterrupted after {engine.episodes} episodes; reporting what was learned", file=sys.stderr)
    return engine, seconds + time.perf_counter() - start


def train(args: argparse.Namespace, logger: TensorBoardLogger, checkpoint: Path) -> tuple[LearnedPolicy, dict]:
    """Train with the chosen engine, save the checkpoint; return the learned policy and the run's numbers."""
    start = time.perf_counter()
    if args.engine == "trainer":
        if args.resume:
            raise RLTorchError("--resume works with the batched engine only")
        trainer = thorp_study.make_trainer(args.seed, logger)
        trainer.train(args.episodes, log_every=min(args.log_every, 100_000), eval_every=0,
                      progress=not args.no_progress)
        seconds, episodes, extra = time.perf_counter() - start, trainer.episodes_done, {"seed": args.seed}
        trainer.save(checkpoint)
        policy = LearnedPolicy.from_table(trainer.value_fn)
    else:
        engine, seconds = train_batched(args, logger)
        policy, episodes = LearnedPolicy.from_engine(engine), engine.episodes
        extra = {"seed": engine.seed, "batch": args.batch, "device": args.device, "threads": args.threads,
                 "peeked_naturals": engine.peeked_naturals}
        save_checkpoint(checkpoint, {"agent": GreedyAgent(engine.to_qtable(), StateActionKeys()),
                                     "config": engine.config(), "episodes": engine.episodes,
                                     "seconds": seconds, "engine": engine.state_dict()})
    log_policy(logger, policy, episodes)
    run = {"engine": args.engine, **extra, "episodes": episodes, "seconds": round(seconds, 1),
           "episodes_per_second": round(episodes / max(seconds, 1e-9))}
    return policy, run


def draw_figures(args: argparse.Namespace, policy: LearnedPolicy, logger: TensorBoardLogger) -> dict[str, Any]:
    """Save the policy figure and, unless skipped, the soft-18 convergence figure; return the soft-18 numbers."""
    figures = {POLICY_FIGURE: thorp_figures.figure_policies(policy)}
    numbers: dict[str, Any] = {}
    if args.soft18_episodes:
        start = time.perf_counter()
        history = thorp_figures.soft18_history(args.soft18_episodes, args.seed)
        figures[SOFT18_FIGURE] = thorp_figures.figure_soft18(history)
        numbers = {"seconds": round(time.perf_counter() - start, 1), "episodes_each": args.soft18_episodes}
        for (decks, peeks), record in history.items():
            stand, hit = thorp_figures.soft18_exact(decks, peeks)
            numbers[f"{'infinite' if decks is None else 'single'} deck, {'peek' if peeks else 'no peek'}"] = {
                "mc_stand": round(record["stand"][-1], 4), "mc_hit": round(record["hit"][-1], 4),
                "exact_stand": round(stand, 4), "exact_hit": round(hit, 4)}
    for name, figure in figures.items():
        save_png(figure, args.out / name, args.dpi)
        logger.writer.add_figure(f"figures/{Path(name).stem}", figure, close=True)
    return numbers


def run_study(args: argparse.Namespace) -> dict[str, Any]:
    """Train, report, draw; return the metrics."""
    torch.set_num_threads(args.threads)
    name = args.run_name or run_name("Blackjack-single-deck", "thorp-es", args.seed)
    checkpoint = args.checkpoint or Path("checkpoints") / f"{name}.pt"
    args.out.mkdir(parents=True, exist_ok=True)
    logger = TensorBoardLogger(args.log_dir / name)
    logger.hyperparameters({key: str(value) for key, value in vars(args).items()})
    policy, run = train(args, logger, checkpoint)
    agreement, acceptance = thorp_study.agreement(policy), thorp_study.acceptance(policy)
    soft18 = draw_figures(args, policy, logger)
    figures = [POLICY_FIGURE] + ([SOFT18_FIGURE] if soft18 else [])
    report = report_markdown(policy, run, agreement, acceptance, figures[::-1], soft18)
    (args.out / REPORT).write_text(report)
    logger.text("report", report)
    logger.close()
    return {**run, "acceptance": acceptance, "agreement": agreement, "key_states": thorp_study.key_states(policy),
            "soft18": soft18, "report": str(args.out / REPORT), "checkpoint": str(checkpoint),
            "log_dir": str(logger.log_dir)}


def main(argv: list[str] | None = None) -> int:
    """Parse `argv`, run the study, print and optionally save the metrics."""
    args = build_parser().parse_args(argv)
    return run_cli(lambda: print_json(run_study(args), args.json))


if __name__ == "__main__":
    sys.exit(main())
