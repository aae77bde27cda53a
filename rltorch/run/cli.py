"""`rltorch train | evaluate | play | plot` (also `python -m rltorch ...`): any registered env, one run path."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from rltorch.checkpoints import load, load_checkpoint
from rltorch.errors import RLTorchError
from rltorch.run.envs import cli_options, exact_hooks, hook, make_env
from rltorch.run.options import add_output_options, key_value, make_parser, parse, writable_file, writable_folder
from rltorch.run.output import run_cli
from rltorch.run.session import apply_resume
from rltorch.run.training import add_env_options, add_learning_options, build_trainer, run_training
from rltorch.trainers import TRAINERS

DEFAULT_ENV = "rltorch/TicTacToe-v0"
SHIPPED_AGENT = Path("checkpoints") / "play_tictactoe.pt"


def train_parser(env_id: str | None, algorithm: str | None, description: str | None = None) -> argparse.ArgumentParser:
    """The options of one training run: `--env` and `--algo` unless fixed, the learning options, the env's own."""
    prog = {"prog": "rltorch train"} if env_id is None or description is None else {}
    parser = make_parser(description or "Train a tabular (or network) learner on any registered Gymnasium env.", **prog)
    if env_id is None:
        parser.add_argument("--env", default=DEFAULT_ENV,
                            help="a registered env id, or module:EnvId for your own env in your own module")
        parser.add_argument("--env-option", type=key_value, action="append", metavar="KEY=VALUE",
                            help="a keyword argument for the env, e.g. is_slippery=False (repeatable)")
    if algorithm is None:
        parser.add_argument("--algo", choices=tuple(TRAINERS), default="sarsa", help="the learning algorithm")
    add_learning_options(parser, algorithm)
    add_env_options(parser, cli_options(env_id) if env_id is not None else {})
    add_output_options(parser, log_every=100, eval_every=5000, eval_games=500, test_games=1000)
    return parser


def train(argv: list[str] | None, env_id: str | None = None, algorithm: str | None = None,
          description: str | None = None, **defaults: Any) -> int:
    """Parse the options of one run (the env's own options once `--env` is known) and run it.

    A preset script fixes `env_id` (and `algorithm`) and may change option defaults through `defaults`.
    """
    if env_id is None:
        known, _ = train_parser(None, None).parse_known_args(argv)
        return run_cli(lambda: _train(argv, known.env, algorithm, description, defaults, fixed_env=False))
    return run_cli(lambda: _train(argv, env_id, algorithm, description, defaults, fixed_env=True))


def _train(argv: list[str] | None, env_id: str, algorithm: str | None, description: str | None,
           defaults: dict[str, Any], fixed_env: bool) -> int:
    """Build the full parser for `env_id`, check everything, then train."""
    parser = train_parser(env_id, algorithm, description)
    parser.set_defaults(**defaults)
    if not fixed_env:
        parser.add_argument("--env", default=DEFAULT_ENV, help=argparse.SUPPRESS)
        parser.add_argument("--env-option", type=key_value, action="append", help=argparse.SUPPRESS)
    args = parse(parser, argv)
    resumed = apply_resume(args)
    env_id = getattr(args, "env", env_id)
    algo = algorithm or args.algo
    trainer = build_trainer(algo, args, env_id)
    return run_training(trainer, args, label=env_id.rpartition(":")[2].rpartition("/")[2], resumed=resumed)


def evaluate(args: argparse.Namespace) -> None:
    """Print the exact figures of a checkpoint's greedy agent on the env it names."""
    env, agent, gamma = _env_and_agent(args.checkpoint, dict(args.env_option or []), args.trust)
    _, report, describe = exact_hooks(env, gamma)
    result = report(agent) if report is not None else None
    if result is None:
        raise RLTorchError(f"{args.checkpoint} is an agent for {env.spec.id} {env.spec.kwargs or ''}, "
                           "which has no exact evaluation")
    if args.json:
        print(json.dumps(result, indent=2))
        return
    print(describe(result) if describe is not None else json.dumps(result, indent=2))


def _env_and_agent(path: Path, overrides: dict[str, Any], trusted: bool) -> tuple[Any, Any, float]:
    """The env a checkpoint names (with `overrides`), the checkpoint's agent, and its discount."""
    config = load_checkpoint(path, trusted=trusted).get("config")
    env_id = config.get("env_id") if isinstance(config, dict) else None
    if not env_id:
        raise RLTorchError(f"{path} does not name a registered env, so it cannot be evaluated or played")
    env = make_env(env_id, {**config.get("env_kwargs", {}), **overrides})
    return env, load(path, trusted=trusted), float(config.get("gamma", 1.0))


def play(args: argparse.Namespace) -> None:
    """Play a checkpoint's agent in the terminal, where its env offers that."""
    if not args.checkpoint.exists() and args.checkpoint == SHIPPED_AGENT:
        raise RLTorchError(f"no {SHIPPED_AGENT} here (it ships with the repository); train one with "
                           "python trainers/sarsa_trainer.py --values afterstate --seat both "
                           "--checkpoint checkpoints/play_tictactoe.pt, or pass --checkpoint")
    env, agent, _ = _env_and_agent(args.checkpoint, {}, args.trust)
    game = hook(env, "play_in_terminal")
    if game is None:
        raise RLTorchError(f"{env.spec.id} has no terminal game")
    try:
        game(agent, args.seat)
    except KeyboardInterrupt:
        print("\nbye")


def figure(args: argparse.Namespace) -> None:
    """Write a grid-world checkpoint's learned policy beside the exact one as PNGs."""
    from rltorch.mdp.pictures import grid_figures
    from rltorch.run.plots import save_png

    env, agent, gamma = _env_and_agent(args.checkpoint, dict(args.env_option or []), args.trust)
    figures = grid_figures(env, agent, gamma)
    if not figures:
        raise RLTorchError(f"{env.spec.id} is not a grid world with a finite model: no policy picture to draw")
    args.out.mkdir(parents=True, exist_ok=True)
    for tag, picture in figures.items():
        print(f"wrote {save_png(picture, args.out / (tag.replace('/', '_') + '.png'))}")


def build_parser() -> argparse.ArgumentParser:
    """The `evaluate`, `play` and `plot` subcommands (`train` has its own parser)."""
    parser = make_parser("rltorch: train, evaluate exactly, play, and plot TensorBoard runs.", prog="rltorch")
    commands = parser.add_subparsers(dest="command", required=True, metavar="{train,evaluate,play,plot,figure}")
    commands.add_parser("train", help="train on any registered env (rltorch train --help)", add_help=False,
                        allow_abbrev=False)
    evaluate_cmd = commands.add_parser("evaluate", help="exact figures of a checkpoint's greedy agent",
                                       formatter_class=parser.formatter_class, allow_abbrev=False)
    evaluate_cmd.add_argument("checkpoint", type=Path, help="a checkpoint written by a trainer")
    evaluate_cmd.add_argument("--env-option", type=key_value, action="append", metavar="KEY=VALUE",
                              help="override an env option, e.g. seat=X")
    evaluate_cmd.add_argument("--json", action="store_true", help="print JSON instead of text")
    evaluate_cmd.add_argument("--trust", action="store_true",
                              help="also open a whole-module (pickled) file: it can run code, so only one you trust")
    play_cmd = commands.add_parser("play", help="play a trained agent in the terminal (tic-tac-toe)",
                                   formatter_class=parser.formatter_class, allow_abbrev=False)
    play_cmd.add_argument("--checkpoint", type=Path, default=SHIPPED_AGENT, help="the agent to play against")
    play_cmd.add_argument("--seat", choices=("X", "O"), help="your mark (asked when omitted)")
    play_cmd.add_argument("--trust", action="store_true",
                          help="also open a whole-module (pickled) file: it can run code, so only one you trust")
    plot_cmd = commands.add_parser("plot", help="plot runs' scalars side by side from their event files",
                                   formatter_class=parser.formatter_class, allow_abbrev=False)
    plot_cmd.add_argument("runs", nargs="+", type=Path, help="run folders (each holding an events file)")
    plot_cmd.add_argument("--tags", nargs="+", default=["eval/mean_return"], help="scalar tags to plot")
    plot_cmd.add_argument("--labels", nargs="+", help="legend labels, one per run (default: folder names)")
    plot_cmd.add_argument("--out", type=writable_file, default=Path("runs") / "curves.png", help="PNG to write")
    figure_cmd = commands.add_parser("figure", help="a grid world's learned policy and values beside the exact ones",
                                     formatter_class=parser.formatter_class, allow_abbrev=False)
    figure_cmd.add_argument("checkpoint", type=Path, help="a grid world's checkpoint (FrozenLake, CliffWalking, ...)")
    figure_cmd.add_argument("--out", type=writable_folder, default=Path("runs") / "figures", help="folder for the PNGs")
    figure_cmd.add_argument("--env-option", type=key_value, action="append", metavar="KEY=VALUE",
                            help="override an env option")
    figure_cmd.add_argument("--trust", action="store_true",
                            help="also open a whole-module (pickled) file: it can run code, so only one you trust")
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run a subcommand; errors become one message and a non-zero exit status."""
    import sys

    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["train"]:
        return train(argv[1:])
    args = build_parser().parse_args(argv)
    if args.command == "plot":
        from rltorch.run.plots import plot_runs

        return run_cli(lambda: print(f"wrote {plot_runs(args.runs, args.tags, args.out, args.labels)}"))
    return run_cli(lambda: {"evaluate": evaluate, "play": play, "figure": figure}[args.command](args))
