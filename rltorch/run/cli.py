"""`rltorch train | evaluate | play | plot | figure` (also `python -m rltorch ...`): any registered env, one run path.

This module only parses; what a command does lives in `rltorch.run.commands`, imported once a command
runs, so `--help` and bad options answer without loading torch, and a Ctrl-C while it loads is a clean
exit (130).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from rltorch.run.options import key_value, make_parser, non_negative_int, writable_file, writable_folder
from rltorch.run.output import run_cli

SHIPPED_AGENT = Path("checkpoints") / "play_tictactoe.pt"


def train(argv: list[str] | None = None, env_id: str | None = None, algorithm: str | None = None,
          description: str | None = None, **defaults: Any) -> int:
    """Run one training run from the command line (see `rltorch.run.commands.train`); the scripts' entry point."""
    try:
        from rltorch.run import commands
    except KeyboardInterrupt:
        return _interrupted()
    return commands.train(argv, env_id, algorithm, description, **defaults)


def train_parser(env_id: str | None, algorithm: str | None, description: str | None = None) -> argparse.ArgumentParser:
    """The options of one training run (see `rltorch.run.commands.train_parser`)."""
    from rltorch.run.commands import train_parser as build

    return build(env_id, algorithm, description)


def _interrupted() -> int:
    """A Ctrl-C before any work: one line, exit status 130."""
    print("\ninterrupted", file=sys.stderr)
    return 130


def build_parser() -> argparse.ArgumentParser:
    """The `evaluate`, `play` and `plot` subcommands (`train` has its own parser)."""
    parser = make_parser("rltorch: train, evaluate exactly, play, and plot TensorBoard runs.", prog="rltorch")
    commands = parser.add_subparsers(dest="command", required=True, metavar="{train,evaluate,play,plot,figure}")
    commands.add_parser("train", help="train on any registered env (rltorch train --help)", add_help=False,
                        allow_abbrev=False)
    evaluate_cmd = _checkpoint_command(commands, "evaluate", "exact figures of a checkpoint's greedy agent", parser)
    evaluate_cmd.add_argument("checkpoint", type=Path, help="a checkpoint written by a trainer")
    evaluate_cmd.add_argument("--json", action="store_true", help="print JSON instead of text")
    evaluate_cmd.add_argument("--run", type=non_negative_int, help="of a --runs checkpoint: run I alone (default: "
                                                                   "the summary over all its runs)")
    play_cmd = _checkpoint_command(commands, "play", "play a trained agent in the terminal (tic-tac-toe)", parser)
    play_cmd.add_argument("--checkpoint", type=Path, default=SHIPPED_AGENT, help="the agent to play against")
    play_cmd.add_argument("--seat", choices=("X", "O"), help="your mark (asked when omitted; an agent that learned "
                                                         "one seat only takes that one)")
    plot_cmd = commands.add_parser("plot", help="plot runs' scalars side by side from their event files",
                                   formatter_class=parser.formatter_class, allow_abbrev=False)
    plot_cmd.add_argument("runs", nargs="+", type=Path, help="run folders (each holding an events file)")
    plot_cmd.add_argument("--tags", nargs="+", default=["eval/mean_return"], help="scalar tags to plot")
    plot_cmd.add_argument("--labels", nargs="+", help="legend labels, one per run (default: folder names)")
    plot_cmd.add_argument("--out", type=writable_file, default=Path("runs") / "curves.png", help="PNG to write")
    figure_cmd = _checkpoint_command(commands, "figure", "a grid world's learned policy and values beside the exact "
                                     "ones", parser)
    figure_cmd.add_argument("checkpoint", type=Path, help="a grid world's checkpoint (FrozenLake, CliffWalking, ...)")
    figure_cmd.add_argument("--out", type=writable_folder,
                            help="folder for the PNGs (default: runs/figures/<checkpoint name>)")
    figure_cmd.add_argument("--overwrite", action="store_true", help="replace PNGs already in the folder")
    figure_cmd.add_argument("--run", type=non_negative_int, help="of a --runs checkpoint: draw run I (default: 0)")
    return parser


def _checkpoint_command(commands: Any, name: str, description: str,
                        parent: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """A subcommand that opens a checkpoint: its `--env`, `--env-option` and `--trust` options."""
    command = commands.add_parser(name, help=description, description=description,
                                  formatter_class=parent.formatter_class, allow_abbrev=False)
    command.add_argument("--env", help="the env to use instead of the one the checkpoint names (module:EnvId "
                                       "imports your module; a module named only inside a file is never imported)")
    command.add_argument("--env-option", type=key_value, action="append", metavar="KEY=VALUE",
                         help="override an env option, e.g. seat=X (repeatable)")
    command.add_argument("--value-fn", metavar="module:Class",
                         help="your value function class that the checkpoint names, its module imported because "
                              "you name it here")
    command.add_argument("--trust", action="store_true",
                         help="also open a whole-module (pickled) file, and import an env module the file names: "
                              "both can run code, so only for a file you trust")
    return command


def main(argv: list[str] | None = None) -> int:
    """Run a subcommand; errors become one message and a non-zero exit status."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["train"]:
        return train(argv[1:])
    args = build_parser().parse_args(argv)
    return run_cli(lambda: getattr(_commands(), args.command)(args))


def _commands() -> Any:
    """The module that carries the commands out (imported on first use)."""
    from rltorch.run import commands

    return commands
