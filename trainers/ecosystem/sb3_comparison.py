"""Stable-Baselines3 against rltorch on tic-tac-toe, every agent judged by the same exact evaluation.

Trains sb3-contrib's MaskablePPO (through FlattenObservation, with the env's own action masks), SB3's DQN
(through FlattenObservation, an illegal move losing the game) and rltorch's SARSA (the course defaults), then
evaluates all three with `rltorch.external.exact_evaluation`: exact win/draw/loss against the uniform random
opponent, and whether any line of perfect (minimax) play beats them. The uniform random player is the
reference row. Writes sb3_comparison.md (a Markdown table) and sb3_comparison.json into --out (a new folder
under runs/ by default; files already there are refused unless --overwrite), with the trained models
(maskable_ppo.zip, dqn.zip, sarsa.pt).
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import sys
import time
from pathlib import Path
from typing import Any

import torch

from rltorch.errors import RLTorchError
from rltorch.run.options import at_most, make_parser, non_negative_int, positive_int, writable_file, writable_folder
from rltorch.run.output import run_cli, run_name
from trainers.ecosystem import agents

STEM = "sb3_comparison"
FILES = (f"{STEM}.md", f"{STEM}.json", "maskable_ppo.zip", "dqn.zip", "sarsa.pt")  # what it writes into --out
MAX_STEPS = 10**8  # timesteps or episodes of any one agent, at most


def build_parser() -> argparse.ArgumentParser:
    """The script's options."""
    parser = make_parser(__doc__)
    parser.add_argument("--ppo-steps", type=at_most(positive_int, MAX_STEPS), default=50_000,
                        help="MaskablePPO timesteps")
    parser.add_argument("--ppo-n-steps", type=at_most(positive_int, 10**6), default=512,
                        help="MaskablePPO rollout length between updates")
    parser.add_argument("--dqn-steps", type=at_most(positive_int, MAX_STEPS), default=50_000, help="DQN timesteps")
    parser.add_argument("--sarsa-episodes", type=at_most(positive_int, MAX_STEPS), default=100_000,
                        help="SARSA episodes (games)")
    parser.add_argument("--seat", choices=("X", "O"), default="X", help="the learners' mark (X moves first)")
    parser.add_argument("--seed", type=at_most(non_negative_int, 2**32 - 1), default=0, help="seed of every agent")
    parser.add_argument("--threads", type=at_most(positive_int, 256), default=1,
                        help="torch CPU threads (1 is fastest for these small networks)")
    output = parser.add_argument_group("output")
    output.add_argument("--out", type=writable_folder,
                        help=f"folder for {STEM}.md, {STEM}.json and the trained models "
                             f"(default: runs/{STEM}__seed__time__tag, a new one)")
    output.add_argument("--json", type=writable_file, help="also write the JSON to this file")
    output.add_argument("--no-progress", action="store_true", help="hide the progress bars")
    output.add_argument("--overwrite", action="store_true", help="allow writing over the files already in --out")
    return parser


def check(args: argparse.Namespace, parser: argparse.ArgumentParser) -> None:
    """Options that do not go together are a usage error (exit status 2)."""
    if args.ppo_n_steps > args.ppo_steps:
        parser.error(f"--ppo-n-steps ({args.ppo_n_steps}) must not exceed --ppo-steps ({args.ppo_steps})")


def choose_out(args: argparse.Namespace) -> None:
    """Set --out (a new folder under runs/ by default); unless --overwrite, refuse one that holds our files."""
    args.out = args.out or Path("runs") / run_name("TicTacToe-v0", STEM, args.seed)
    taken = [args.out / name for name in FILES if (args.out / name).exists()]
    if taken and not args.overwrite:
        raise RLTorchError(f"{taken[0]} exists: choose another --out, or pass --overwrite")


def run(args: argparse.Namespace, command: str) -> int:
    """Train and evaluate every agent, then write and print the table (refusing to overwrite, before any work)."""
    choose_out(args)
    torch.set_num_threads(args.threads)
    args.out.mkdir(parents=True, exist_ok=True)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
    start = time.perf_counter()
    results = [
        agents.train_maskable_ppo(args, args.out),
        agents.train_dqn(args, args.out),
        agents.train_sarsa(args, args.out),
        agents.random_reference(args.seat),
    ]
    table = agents.markdown_table(results)
    numbers: dict[str, Any] = {
        "seat": args.seat,
        "seed": args.seed,
        "command": command,
        "seconds": round(time.perf_counter() - start, 1),
        "machine": {"cpus": os.cpu_count(), "torch_threads": args.threads, "load_average_at_start": load},
        "agents": [result.row() for result in results],
    }
    markdown = (f"Tic-tac-toe as {args.seat} against the uniform random opponent; win/draw/loss are exact "
                f"probabilities, \"vs perfect play\" checks every line of minimax play "
                f"(`rltorch.external.exact_evaluation`).\n\n```bash\n{command}\n```\n\n{table}\n")
    text = json.dumps(numbers, indent=2) + "\n"
    (args.out / f"{STEM}.md").write_text(markdown)
    (args.out / f"{STEM}.json").write_text(text)
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(text)
    print(table)
    print(f"{numbers['seconds']:.1f} s; wrote {args.out / f'{STEM}.md'} and {args.out / f'{STEM}.json'}")
    return 0


def main(argv: list[str] | None = None) -> int:
    """Parse `argv` and run the comparison; errors are one line and exit status 1."""
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    args = parser.parse_args(argv)
    check(args, parser)
    command = shlex.join(["python", "trainers/ecosystem/sb3_comparison.py", *argv])
    return run_cli(lambda: run(args, command))


if __name__ == "__main__":
    sys.exit(main())
