"""The shared command line of the tic-tac-toe trainer scripts: options, one run, its report."""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import torch

from rltorch.agents import MixtureAgent, RandomAgent, SelfPlayAgent
from rltorch.envs.tictactoe.encoder import BoardEncoder
from rltorch.envs.tictactoe.env import SmartRandomOpponent, TicTacToeEnv, afterstate
from rltorch.envs.tictactoe.evaluation import ExactScalars, exact_report, format_report, reachable_key_count
from rltorch.envs.tictactoe.solver import PerfectAgent
from rltorch.errors import RLTorchError
from rltorch.keys import AfterstateKeys, StateActionKeys
from rltorch.logger import TensorBoardLogger, run_name
from rltorch.policies import make_schedule
from rltorch.trainers import TRAINERS, Trainer
from rltorch.values import QTable, ValueFunction, VTable
from rltorch.values.networks import QNetwork, VNetwork

ENV_NAME = "TicTacToe-v0"


def positive_int(text: str) -> int:
    """Parse an integer >= 1."""
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {text}")
    return value


def non_negative_int(text: str) -> int:
    """Parse an integer >= 0."""
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be >= 0, got {text}")
    return value


def unit_float(text: str) -> float:
    """Parse a float in [0, 1]."""
    value = float(text)
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"must be in [0, 1], got {text}")
    return value


def add_output_options(
    parser: argparse.ArgumentParser, log_every: int, eval_every: int, eval_games: int, test_games: int | None = None
) -> None:
    """The run-folder, logging, evaluation, checkpoint and JSON options every trainer script shares."""
    output = parser.add_argument_group("output")
    output.add_argument("--run-name", help="run folder name (default: env__algo__seed__time)")
    output.add_argument("--log-dir", type=Path, default=Path("runs"), help="TensorBoard root folder")
    output.add_argument("--log-every", type=positive_int, default=log_every, help="episodes per logged block")
    output.add_argument("--eval-every", type=non_negative_int, default=eval_every,
                        help="episodes between evaluations (0: none)")
    output.add_argument("--eval-games", type=positive_int, default=eval_games, help="greedy episodes per evaluation")
    if test_games is not None:
        output.add_argument("--test-games", type=positive_int, default=test_games,
                            help="greedy games of the final test")
    output.add_argument("--checkpoint", type=Path, help="checkpoint path (default: checkpoints/<run>.pt)")
    output.add_argument("--json", type=Path, help="write the final metrics to this JSON file")
    output.add_argument("--no-progress", action="store_true", help="hide the progress bar")


def build_parser(algorithm: str, description: str, alpha: float = 0.1) -> argparse.ArgumentParser:
    """The options every tic-tac-toe trainer script takes (course defaults)."""
    parser = argparse.ArgumentParser(description=description, formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    learning = parser.add_argument_group("learning")
    learning.add_argument("--episodes", type=positive_int, default=100_000, help="training episodes (games)")
    learning.add_argument("--alpha", type=unit_float, default=alpha, help="step size of the table update")
    learning.add_argument("--gamma", type=unit_float, default=0.9, help="discount factor")
    learning.add_argument("--values", choices=("q", "afterstate"), default="q",
                          help="key the table by (state, action) pairs or by afterstates")
    learning.add_argument("--seed", type=int, default=0, help="seed of every random choice in the run")
    learning.add_argument("--value-fn", choices=("table", "mlp"), default="table",
                          help="a dict-backed table, or a neural network behind the same interface")
    learning.add_argument("--hidden", type=positive_int, nargs="+", default=[64], help="mlp hidden layer widths")
    learning.add_argument("--lr", type=float, default=1e-3, help="mlp Adam learning rate")
    learning.add_argument("--device", choices=("cpu", "cuda", "auto"), default="cpu", help="where an mlp runs")
    learning.add_argument("--threads", type=positive_int, default=1,
                          help="CPU threads for torch (small networks run fastest on one)")
    if algorithm == "qlearning":
        learning.add_argument("--replay-size", type=non_negative_int, default=0,
                              help="DQN: replay the last N transitions in minibatches (0: off)")
        learning.add_argument("--batch-size", type=positive_int, default=32, help="DQN: minibatch size")
        learning.add_argument("--target-update-every", type=non_negative_int, default=0,
                              help="DQN: bootstrap from a frozen copy refreshed every K fits (0: off)")
    if algorithm == "mc":
        learning.add_argument("--every-visit", action="store_true", help="every-visit instead of first-visit MC")
        learning.add_argument("--sample-average", action="store_true", help="step 1/N(key) instead of --alpha")
    exploration = parser.add_argument_group("exploration")
    exploration.add_argument("--epsilon-schedule", choices=("exponential", "linear", "constant"),
                             default="exponential",
                             help="final + (start - final) * exp(-episode / decay), a line, or flat")
    exploration.add_argument("--epsilon-start", type=unit_float, default=1.0, help="epsilon at episode 0")
    exploration.add_argument("--epsilon-final", type=unit_float, default=0.01, help="epsilon in the long run")
    exploration.add_argument("--epsilon-decay", type=float, default=10_000.0,
                             help="time constant (exponential) or length in episodes (linear)")
    game = parser.add_argument_group("game")
    game.add_argument("--opponent", default="random",
                      help="random | smart | perfect | self, or a mixture by weight such as random:0.5,perfect:0.5")
    game.add_argument("--smart-p", type=unit_float, default=0.8, help="how often the smart opponent wins or blocks")
    game.add_argument("--self-play-every", type=positive_int, default=1000,
                      help="episodes between refreshes of the self-play opponent's frozen copy")
    game.add_argument("--seat", choices=("X", "O", "both"), default="X",
                      help="the learner's mark (X moves first); both: alternate every game")
    add_output_options(parser, log_every=100, eval_every=5000, eval_games=500, test_games=1000)
    return parser


OPPONENT_NAMES = ("random", "smart", "perfect", "self")


def parse_opponent(spec: str) -> list[tuple[str, float]]:
    """Parse 'random' or 'random:0.5,perfect:0.5' into (name, weight) pairs."""
    parts = []
    for item in spec.split(","):
        name, _, weight = item.strip().partition(":")
        if name not in OPPONENT_NAMES:
            choices = ", ".join(OPPONENT_NAMES)
            raise RLTorchError(f"unknown opponent {name!r} in --opponent {spec!r}; choose from {choices}")
        try:
            parts.append((name, float(weight) if weight else 1.0))
        except ValueError:
            raise RLTorchError(f"bad weight {weight!r} in --opponent {spec!r}") from None
        if parts[-1][1] < 0:
            raise RLTorchError(f"negative weight in --opponent {spec!r}")
    if sum(weight for _, weight in parts) <= 0:
        raise RLTorchError(f"the weights in --opponent {spec!r} add up to 0")
    return parts


def build_opponent(spec: str, smart_p: float, keys: Any) -> tuple[Any, SelfPlayAgent | None]:
    """The env's opponent for `spec`, and the self-play copy inside it (if any) to refresh."""
    self_play = None
    agents = []
    for name, weight in parse_opponent(spec):
        if name == "self":
            self_play = self_play or SelfPlayAgent(keys)
            agent = self_play
        else:
            agent = {"random": RandomAgent, "perfect": PerfectAgent}.get(name, lambda: SmartRandomOpponent(smart_p))()
        agents.append((agent, weight))
    return (agents[0][0] if len(agents) == 1 else MixtureAgent(agents)), self_play


def build_value_fn(args: argparse.Namespace, alpha: float | None) -> ValueFunction:
    """The table or network that `--value-fn` and `--values` ask for."""
    if args.value_fn == "table":
        return VTable(alpha=alpha) if args.values == "afterstate" else QTable(alpha=alpha)
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)  # the network's initial weights
    try:
        if args.values == "afterstate":
            return VNetwork(BoardEncoder(), args.hidden, args.lr, args.device)
        return QNetwork(BoardEncoder(), 9, args.hidden, args.lr, args.device)
    except ValueError as error:
        raise RLTorchError(str(error)) from None


def build_trainer(algorithm: str, args: argparse.Namespace, logger: Any = None) -> tuple[Trainer, Any]:
    """The trainer (value function, env, evaluation env) that `args` describe, and its training callback."""
    try:
        schedule = make_schedule(args.epsilon_schedule, args.epsilon_start, args.epsilon_final, args.epsilon_decay)
    except ValueError as error:
        raise RLTorchError(str(error)) from None
    sample_average = getattr(args, "sample_average", False)
    alpha = None if sample_average else args.alpha
    if alpha == 0:
        raise RLTorchError("--alpha must be > 0 (use --sample-average for 1/N steps)")
    value_fn = build_value_fn(args, alpha)
    keys = AfterstateKeys(afterstate) if args.values == "afterstate" else StateActionKeys()
    opponent, self_play = build_opponent(args.opponent, args.smart_p, keys)
    extra = {
        "mc": lambda: {"first_visit": not args.every_visit},
        "qlearning": lambda: {"replay_size": args.replay_size, "batch_size": args.batch_size,
                              "target_update_every": args.target_update_every},
    }.get(algorithm, dict)()
    trainer = TRAINERS[algorithm](
        TicTacToeEnv(opponent, seat=args.seat),
        value_fn,
        keys=keys,
        gamma=args.gamma,
        schedule=schedule,
        seed=args.seed,
        logger=logger,
        eval_env=TicTacToeEnv(RandomAgent(), seat=args.seat),
        exact_eval=ExactScalars(args.seat),
        **extra,
    )
    return trainer, (SelfPlayRefresher(self_play, args.self_play_every) if self_play else None)


class SelfPlayRefresher:
    """A training callback that copies the learner's values into its self-play opponent every k episodes."""

    def __init__(self, opponent: SelfPlayAgent, every: int) -> None:
        self.opponent = opponent
        self.every = every
        self.last_refresh = 0

    def __call__(self, trainer: Trainer) -> None:
        """Refresh the frozen copy when `every` episodes have passed since the last one."""
        if trainer.episodes_done - self.last_refresh >= self.every:
            self.opponent.refresh(trainer.value_fn)
            self.last_refresh = trainer.episodes_done


def train_and_report(algorithm: str, args: argparse.Namespace) -> dict[str, Any]:
    """Train as `args` say, test, save the checkpoint and logs; return the final metrics."""
    name = args.run_name or run_name(ENV_NAME, algorithm, args.seed)
    checkpoint = args.checkpoint or Path("checkpoints") / f"{name}.pt"
    logger = TensorBoardLogger(args.log_dir / name)
    trainer, callback = build_trainer(algorithm, args, logger)
    logger.hyperparameters({**{k: str(v) for k, v in vars(args).items()}, **trainer.config()})
    start = time.perf_counter()
    try:
        trainer.train(args.episodes, log_every=args.log_every, eval_every=args.eval_every,
                      eval_games=args.eval_games, progress=not args.no_progress, callback=callback)
    except KeyboardInterrupt:
        print(f"\ninterrupted after {trainer.episodes_done} episodes; saving what was learned", file=sys.stderr)
    seconds = time.perf_counter() - start
    outcomes = trainer.test(args.test_games)
    exact = exact_report(trainer.agent(), args.seat)
    logger.close()
    _save(trainer, checkpoint)
    metrics = {
        "algorithm": algorithm,
        "episodes": trainer.episodes_done,
        "seconds": round(seconds, 3),
        "episodes_per_second": round(trainer.episodes_done / max(seconds, 1e-9), 1),
        "test_games": outcomes.games,
        "test_wins": outcomes.wins,
        "test_losses": outcomes.losses,
        "test_draws": outcomes.draws,
        "table_size": len(trainer.value_fn) if args.value_fn == "table" else None,
        "reachable_keys": reachable_key_count(args.seat, args.values),
        "exact": exact,
        "checkpoint": str(checkpoint),
        "log_dir": str(logger.log_dir),
    }
    _report(metrics)
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(metrics, indent=2) + "\n")
    return metrics


def _save(trainer: Trainer, path: Path) -> None:
    """Save the checkpoint, turning file-system failures into one clear error."""
    try:
        trainer.save(path)
    except OSError as error:
        raise RLTorchError(f"cannot write checkpoint {path}: {error.strerror or error}") from None


def _report(metrics: dict[str, Any]) -> None:
    """Print the course's test line and where things went."""
    size = "a network" if metrics["table_size"] is None else f"{metrics['table_size']:,} entries"
    print(
        f"{metrics['episodes']:,} episodes in {metrics['seconds']:.1f} s ({metrics['episodes_per_second']:,.0f} ep/s)\n"
        f"test vs random, {metrics['test_games']} greedy games: wins {metrics['test_wins']}, "
        f"losses {metrics['test_losses']}, draws {metrics['test_draws']}\n"
        f"table size: {size} "
        f"(of {metrics['reachable_keys']:,} keys reachable against a random opponent)\n"
        f"exact evaluation of the greedy policy:\n{format_report(metrics['exact'])}\n"
        f"checkpoint: {metrics['checkpoint']}\n"
        f"TensorBoard: tensorboard --logdir {Path(metrics['log_dir']).parent}  (run {Path(metrics['log_dir']).name})"
    )


def print_json(metrics: dict[str, Any], path: Path | None) -> None:
    """Print `metrics` as JSON, and write them to `path` when given."""
    text = json.dumps(metrics, indent=2)
    print(text)
    if path:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text + "\n")


def run_cli(run: Callable[[], Any]) -> int:
    """Call `run`; an rltorch or file-system error becomes one line on stderr and exit status 1."""
    try:
        run()
    except RLTorchError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    except OSError as error:
        where = f" ({error.filename})" if getattr(error, "filename", None) else ""
        print(f"error: {error.strerror or error}{where}", file=sys.stderr)
        return 1
    return 0


def script_main(algorithm: str, description: str, argv: list[str] | None = None, alpha: float = 0.1) -> int:
    """Parse `argv` and run one tic-tac-toe trainer script."""
    args = build_parser(algorithm, description, alpha).parse_args(argv)
    return run_cli(lambda: train_and_report(algorithm, args))
