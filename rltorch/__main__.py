"""`python -m rltorch evaluate | play | plot`: exact figures, a game, and curves from TensorBoard runs."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from rltorch.checkpoints import load, load_checkpoint
from rltorch.errors import RLTorchError
from rltorch.run.options import run_cli

DEFAULT_CHECKPOINT = Path(__file__).resolve().parent.parent / "checkpoints" / "play_tictactoe.pt"


def build_parser() -> argparse.ArgumentParser:
    """The `evaluate` and `play` subcommands."""
    parser = argparse.ArgumentParser(prog="python -m rltorch", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    evaluate = commands.add_parser("evaluate", help="exact win/draw/loss of a tic-tac-toe checkpoint")
    evaluate.add_argument("checkpoint", type=Path, help="a checkpoint written by a trainer")
    evaluate.add_argument("--seat", choices=("X", "O", "both"), default="both", help="which seat(s) to evaluate")
    evaluate.add_argument("--json", action="store_true", help="print JSON instead of text")
    play = commands.add_parser("play", help="play tic-tac-toe against a trained agent in the terminal")
    play.add_argument("--checkpoint", type=Path, default=DEFAULT_CHECKPOINT, help="the agent to play against")
    play.add_argument("--seat", choices=("X", "O"), help="your mark (asked when omitted)")
    plot = commands.add_parser("plot", help="plot runs' scalars side by side from their event files")
    plot.add_argument("runs", nargs="+", type=Path, help="run folders (each holding an events file)")
    plot.add_argument("--tags", nargs="+", default=["eval/exact_loss", "eval/exact_win"], help="scalar tags")
    plot.add_argument("--labels", nargs="+", help="legend labels, one per run (default: folder names)")
    plot.add_argument("--out", type=Path, default=Path("curves.png"), help="PNG to write")
    return parser


def load_tictactoe_agent(path: Path) -> Any:
    """Load a checkpoint whose trainer ran on tic-tac-toe."""
    env = load_checkpoint(path)["config"].get("env", "TicTacToeEnv")
    if env != "TicTacToeEnv":
        raise RLTorchError(f"{path} holds an agent for {env}, not for tic-tac-toe")
    return load(path)


def run(args: argparse.Namespace) -> None:
    """Carry out one subcommand."""
    if args.command == "plot":
        from rltorch.run.plots import plot_runs

        print(f"wrote {plot_runs(args.runs, args.tags, args.out, args.labels)}")
        return
    agent = load_tictactoe_agent(args.checkpoint)
    if args.command == "evaluate":
        from rltorch.envs.tictactoe.evaluation import exact_report, format_report

        report = exact_report(agent, args.seat)
        print(json.dumps(report, indent=2) if args.json else format_report(report))
        return
    from rltorch.envs.tictactoe.play import TerminalGame

    try:
        TerminalGame(agent).run(args.seat)
    except KeyboardInterrupt:
        print("\nbye")


def main(argv: list[str] | None = None) -> int:
    """Run a subcommand; errors become one message and exit status 1."""
    return run_cli(lambda: run(build_parser().parse_args(argv)))


if __name__ == "__main__":
    sys.exit(main())
