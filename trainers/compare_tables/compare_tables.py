"""Q table against afterstate table: the comparison the course promises, measured exactly.

SARSA learns tic-tac-toe with (state, action) keys and with afterstate keys, the same episodes
and seeds. Every --check-every episodes the greedy policy's exact loss probability against the
random opponent is computed; the table reports the size of each table, the final exact win and
loss probabilities, and the first check at which the loss probability reached 0.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys

from tqdm import tqdm

from rltorch import AfterstateKeys, QTable, SARSATrainer, StateActionKeys, VTable
from rltorch.envs.tictactoe.env import TicTacToeEnv, afterstate
from rltorch.envs.tictactoe.exact import exact_outcome_vs_random
from rltorch.run.options import at_most, make_parser, positive_int, step_size, unit_float, writable_file

KINDS = {"q": (QTable, StateActionKeys), "afterstate": (VTable, lambda: AfterstateKeys(afterstate))}


def run_one(kind: str, seed: int, args: argparse.Namespace) -> dict:
    """Train one table; return its size, final exact figures and the first episode with exact loss 0."""
    table_class, make_keys = KINDS[kind]
    env = TicTacToeEnv(seat=args.seat)
    trainer = SARSATrainer(env, table_class(alpha=args.alpha), keys=make_keys(), gamma=args.gamma, seed=seed)
    first_zero: list[int] = []

    def check(trainer: SARSATrainer) -> None:
        if not first_zero and exact_outcome_vs_random(trainer.agent(), args.seat)["loss"] == 0:
            first_zero.append(trainer.episodes_done)

    trainer.train(args.episodes, log_every=args.check_every, eval_every=0, progress=not args.no_progress,
                  callback=check)
    final = exact_outcome_vs_random(trainer.agent(), args.seat)
    return {
        "kind": kind, "seed": seed, "table_size": len(trainer.value_fn),
        "exact_win": float(final["win"]), "exact_loss": float(final["loss"]),
        "first_zero_loss": first_zero[0] if first_zero else None,
    }


def summarize(runs: list[dict]) -> str:
    """A Markdown table with one row per table kind (means over seeds, and the per-seed episodes)."""
    lines = [
        "| table | size (mean) | exact win (mean) | exact loss (mean) | episodes to exact loss 0 (per seed) |",
        "| --- | --- | --- | --- | --- |",
    ]
    for kind in KINDS:
        rows = [run for run in runs if run["kind"] == kind]
        settled = ", ".join(f"{r['first_zero_loss']:,}" if r["first_zero_loss"] else "never" for r in rows)
        lines.append(
            f"| {kind} | {statistics.mean(r['table_size'] for r in rows):,.0f} "
            f"| {statistics.mean(r['exact_win'] for r in rows):.4f} "
            f"| {statistics.mean(r['exact_loss'] for r in rows):.5f} | {settled} |"
        )
    return "\n".join(lines)


def build_parser() -> argparse.ArgumentParser:
    """The script's options."""
    parser = make_parser(__doc__)
    parser.add_argument("--episodes", type=at_most(positive_int, 10**8), default=100_000,
                        help="training episodes per run")
    parser.add_argument("--seeds", type=at_most(positive_int, 1000), default=5, help="seeds 0..n-1 for each table kind")
    parser.add_argument("--check-every", type=at_most(positive_int, 10**8), default=1000,
                        help="episodes between exact checks")
    parser.add_argument("--alpha", type=step_size, default=0.1, help="step size")
    parser.add_argument("--gamma", type=unit_float, default=0.9, help="discount factor")
    parser.add_argument("--seat", choices=("X", "O"), default="X", help="the learner's seat")
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bars")
    parser.add_argument("--json", type=writable_file, help="write every run's figures to this file")
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run both table kinds over the seeds and print the Markdown table."""
    args = build_parser().parse_args(argv)
    jobs = [(kind, seed) for seed in range(args.seeds) for kind in KINDS]
    runs = [run_one(kind, seed, args) for kind, seed in tqdm(jobs, unit="run", disable=args.no_progress)]
    print(summarize(runs))
    if args.json:
        args.json.write_text(json.dumps(runs, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
