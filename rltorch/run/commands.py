"""What the `rltorch` subcommands do: train on any registered env, evaluate exactly, play, draw grid figures.

`rltorch.run.cli` parses the command line and imports this module only when a command runs, so that
`rltorch --help` does not wait for torch.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from rltorch.agents import GreedyAgent
from rltorch.checkpoints import load, load_checkpoint, value_fn_from_checkpoint
from rltorch.envs.context import EnvContext
from rltorch.errors import RLTorchError
from rltorch.keys import AfterstateKeys, StateActionKeys, StateKeys
from rltorch.run.algorithms import algorithm_name, import_user_algorithm, trainer_class
from rltorch.run.cli import SHIPPED_AGENT
from rltorch.run.config import RunConfig
from rltorch.run.defaults import env_defaults
from rltorch.run.envs import declared_env_options, env_id_from_file, hook, import_user_module, make_env
from rltorch.run.learning_options import add_env_options, add_learning_options, unique
from rltorch.run.multirun import add_many_runs_options, evaluate_all_runs, many_runs_requested, train_many_runs
from rltorch.run.options import add_output_options, key_value, make_parser, parse
from rltorch.run.output import run_cli
from rltorch.run.prediction import check_prediction_options, evaluate_state_values
from rltorch.run.runs_setup import finite_model
from rltorch.run.runs_state import is_many_runs, run_agent
from rltorch.run.session import check_run_name, resume_settings
from rltorch.run.training import build_trainer, run_training
from rltorch.run.value_functions import (
    VALUE_FUNCTIONS,
    check_fits,
    import_user_value_function,
    value_function_kind,
)
from rltorch.trainers import TRAINERS
from rltorch.values import ValueFunction, VNetwork, VTable

Opened = tuple[Any, dict[str, Any], dict[str, Any]]  # a checkpoint's env, its data and its config

DEFAULT_ENV = "rltorch/TicTacToe-v0"
DEFAULT_ALGORITHM = "sarsa"
FIGURE_DPI = 150  # grid pictures readable at their natural size


def train_parser(env_id: str | None, algorithm: str | None, description: str | None = None,
                 user_algo: str | None = None, user_value_fn: str | None = None) -> argparse.ArgumentParser:
    """The options of one training run: `--env` and `--algo` unless fixed, the learning options, the env's own.

    The algorithm's declared options (every algorithm's when `algorithm` is None) and every registered value
    function's are offered, and those of a user's algorithm or value function class (`module:Class`) typed.
    """
    prog = {"prog": "rltorch train"} if env_id is None or description is None else {}
    parser = make_parser(description or "Train a tabular (or network) learner on any registered Gymnasium env.", **prog)
    if env_id is None:
        parser.add_argument("--env", help=f"a registered env id, or module:EnvId for your own env in your own module "
                                          f"(imported from the current folder first) (default: {DEFAULT_ENV}, or the "
                                          "resumed checkpoint's)")
        parser.add_argument("--env-option", type=key_value, action="append", metavar="KEY=VALUE",
                            help="a keyword argument for the env, e.g. is_slippery=False (repeatable)")
    if algorithm is None:
        predictions = ", ".join(name for name, cls in TRAINERS.items() if cls.predicts_state_values)
        parser.add_argument("--algo", type=algorithm_name, default=DEFAULT_ALGORITHM, metavar="{" + ",".join(TRAINERS)
                            + "} or module:Class", help="the learning algorithm (module:Class: your Trainer subclass "
                                                        "in your module, imported from the current folder first); "
                                                        f"the prediction ones ({predictions}) learn the state values "
                                                        "v̂(s) of the uniform random policy over the env's legal "
                                                        "actions, drawn from the run's seeded generator (a state with "
                                                        "one legal action, as in the random walks, draws nothing), "
                                                        "and where the env has a finite model they log the exact "
                                                        "value errors exact/ve, exact/ve_mc_limit and "
                                                        "exact/ve_td_fixed_point")
    algorithms = [trainer_class(algorithm)] if algorithm is not None else list(TRAINERS.values())
    algorithms += [trainer_class(user_algo)] if user_algo not in (None, *TRAINERS) else []
    kinds = [*VALUE_FUNCTIONS.values()]
    kinds += [value_function_kind(user_value_fn)] if user_value_fn not in (None, *VALUE_FUNCTIONS) else []
    add_learning_options(parser, unique(option for cls in algorithms for option in cls.options),
                         unique(option for kind in kinds for option in kind.options))
    add_env_options(parser, declared_env_options(env_id) if env_id is not None else ())
    add_output_options(parser, log_every=100, eval_every=5000, eval_games=500, test_games=1000)
    add_many_runs_options(parser)
    return parser


def train(argv: list[str] | None, env_id: str | None = None, algorithm: str | None = None,
          description: str | None = None, **defaults: Any) -> int:
    """Parse the options of one run (the env's own options once `--env` is known) and run it.

    The env's own defaults (`rltorch.run.defaults`) replace the course's; a preset script fixes `env_id` (and
    `algorithm`) and may change option defaults through `defaults`.
    The module of a `--env module:EnvId` typed here is imported (the user named it); with `--resume` and no
    `--env`, the env is the checkpoint's, whose module is never imported for it.
    """
    argv = list(sys.argv[1:] if argv is None else argv)
    known = _first_look(argv)

    def run() -> int:
        """Find the env, then parse with its defaults (a script's own `defaults` win) and train."""
        algo = algorithm or known.algo or DEFAULT_ALGORITHM
        import_user_algorithm(algo)
        if known.value_fn is not None:
            import_user_value_function(known.value_fn)
        env = env_id or _env_of_run(known)
        preset = {**env_defaults(env, algo), **defaults}
        return _train(argv, env, algorithm, description, preset, fixed_env=env_id is not None,
                      user_classes=(algo, known.value_fn))

    return run_cli(run)


def _first_look(argv: list[str]) -> argparse.Namespace:
    """`--env`, `--algo` and `--resume` read ahead of the full parse (which needs the env's own options)."""
    parser = make_parser(None, add_help=False)
    for option in ("--env", "--algo", "--resume", "--value-fn"):
        parser.add_argument(option)
    return parser.parse_known_args(argv)[0]


def _env_of_run(known: argparse.Namespace) -> str:
    """`rltorch train`'s env: the one typed (its module imported), else a resumed checkpoint's, else the default."""
    if known.env is not None:
        import_user_module(known.env)
        return known.env
    if known.resume is not None:
        saved = load_checkpoint(known.resume).get("config")
        return env_id_from_file(saved.get("env_id") if isinstance(saved, dict) else None, str(known.resume))
    return DEFAULT_ENV


def _train(argv: list[str], env_id: str, algorithm: str | None, description: str | None,
           defaults: dict[str, Any], fixed_env: bool,
           user_classes: tuple[str | None, str | None] = (None, None)) -> int:
    """Build the full parser for `env_id`, check everything, make the run's config, then train."""
    parser = train_parser(env_id, algorithm, description, *user_classes)
    parser.set_defaults(**defaults)
    if not fixed_env:
        parser.add_argument("--env", default=env_id, help=argparse.SUPPRESS)
        parser.add_argument("--env-option", type=key_value, action="append", help=argparse.SUPPRESS)
    args = parse(parser, argv)
    if args.run_name is not None:
        check_run_name(args.run_name)
    resumed, saved = resume_settings(args, parser, argv)
    config = run_config(args, saved, env_id, algorithm)
    try:
        cls = trainer_class(config.algo)
        check_fits(cls, value_function_kind(config.value_fn), config.value_fn)
        check_prediction_options(cls, config)
    except ValueError as error:
        parser.error(str(error))
    if many_runs_requested(config):
        return train_many_runs(config, resumed)
    trainer = build_trainer(config)
    return run_training(trainer, config, label=config.env.rpartition(":")[2].rpartition("/")[2], resumed=resumed)


def run_config(args: argparse.Namespace, saved: dict[str, Any], env_id: str, algorithm: str | None) -> RunConfig:
    """The run's frozen config: the command line's settings, a resumed run's put back, the declared options gathered."""
    settings = {"env": env_id, "algo": algorithm, **vars(args), **saved}
    declared = {"algo_options": trainer_class(settings["algo"], "the resumed run's --algo").options,
                "value_fn_options": value_function_kind(settings["value_fn"], "the resumed run's --value-fn").options}
    return RunConfig.from_settings(settings, **declared)


def evaluate(args: argparse.Namespace) -> None:
    """Print the exact figures of a checkpoint's greedy agent on the env it names (all runs of a many-runs file).

    A prediction run's checkpoint (values keyed by the states) has no greedy agent: its exact value errors instead.
    """
    env, payload, config = _env_and_payload(args)
    if config.get("keys") == StateKeys.kind:
        gamma = config.get("gamma", 1.0)
        return evaluate_state_values(args, env, value_fn_from_checkpoint(payload, args.checkpoint), config,
                                     float(gamma) if isinstance(gamma, (int, float)) else 1.0)
    env, agent, gamma, config = _env_and_agent(args, (env, payload, config))
    if args.run is None and config.get("runs") is not None:
        return evaluate_all_runs(args, env, config)
    exact = EnvContext(env, gamma).exact
    result = exact.report(agent) if exact is not None else None
    if exact is None or result is None:
        raise RLTorchError(f"{args.checkpoint} is an agent for {env.spec.id} {env.spec.kwargs or ''}, "
                           "which has no exact evaluation")
    if args.json:
        print(json.dumps(result, indent=2))
        return
    print(exact.describe(result))


def _env_and_agent(args: argparse.Namespace, opened: Opened | None = None) -> tuple[Any, Any, float, dict[str, Any]]:
    """The env a checkpoint names (or `--env`, with `--env-option`s), its agent, its discount and its config.

    `opened` is what `_env_and_payload(args)` returned, when the caller has it already.
    """
    env, payload, config = opened if opened is not None else _env_and_payload(args)
    if config.get("keys") == StateKeys.kind:
        raise RLTorchError(f"{args.checkpoint} holds the state values of a prediction run, which rank no action: "
                           "there is no agent to play or draw (rltorch evaluate gives its exact value errors)")
    agent = run_agent(payload, finite_model(env), getattr(args, "run", None), args.checkpoint) \
        if is_many_runs(payload) else load(args.checkpoint, trusted=args.trust)
    if isinstance(agent, ValueFunction):  # a whole-module file may hold the value function alone
        agent = GreedyAgent(agent, build_keys_for(agent, env, env.spec.id if env.spec else str(env)))
    return env, agent, float(config.get("gamma", 1.0)), config


def _env_and_payload(args: argparse.Namespace) -> tuple[Any, dict[str, Any], dict[str, Any]]:
    """The env a checkpoint names (or `--env`, with `--env-option`s), the checkpoint and its config.

    A module named only inside the file is never imported (`env_id_from_file`); a whole-module (pickled)
    file opens only with `--trust` and, naming no env, needs `--env`.
    """
    if args.value_fn is not None:
        import_user_module(args.value_fn, what="value function")
    payload = load_checkpoint(args.checkpoint, trusted=args.trust)
    config = payload.get("config") if isinstance(payload.get("config"), dict) else {}
    if args.env is not None:
        import_user_module(args.env)
        env_id = args.env
    elif "agent" in payload:
        raise RLTorchError(f"{args.checkpoint} is a whole-module file, which names no env: pass --env ID")
    else:
        env_id = env_id_from_file(config.get("env_id"), str(args.checkpoint), trusted=args.trust)
    saved = config.get("env_kwargs", {}) if args.env is None else {}
    kwargs = {**(saved if isinstance(saved, dict) else {}), **dict(getattr(args, "env_option", None) or [])}
    return make_env(env_id, kwargs), payload, config


def build_keys_for(value_fn: ValueFunction, env: Any, env_id: str) -> Any:
    """The keys a bare value function reads: afterstates for state values, else (state, action) pairs."""
    if isinstance(value_fn, (VTable, VNetwork)):
        afterstate = hook(env, "afterstate")
        if afterstate is None:
            raise RLTorchError(f"env {env_id} has no afterstate(state, action) to key these state values by")
        return AfterstateKeys(afterstate)
    return StateActionKeys()


def play(args: argparse.Namespace) -> None:
    """Play a checkpoint's agent in the terminal, where its env offers that; the person takes the agent's other seat."""
    if not args.checkpoint.exists() and args.checkpoint == SHIPPED_AGENT:
        raise RLTorchError(f"no {SHIPPED_AGENT} here (it ships with the repository); train one with "
                           "python trainers/sarsa_trainer.py --values afterstate --seat both "
                           "--checkpoint checkpoints/play_tictactoe.pt, or pass --checkpoint")
    env, agent, gamma, config = _env_and_agent(args)
    game = EnvContext(env, gamma).terminal_game
    if game is None:
        raise RLTorchError(f"{env.spec.id} has no terminal game")
    saved = config.get("env_kwargs") if isinstance(config.get("env_kwargs"), dict) else {}
    seat = _person_seat(args.seat, saved.get("seat"), args.checkpoint)
    try:
        game(agent, seat)
    except KeyboardInterrupt:
        print("\nbye")


def _person_seat(chosen: str | None, trained: Any, checkpoint: Path) -> str | None:
    """The person's seat: the one the agent did not learn when it learned one seat only (refusing that seat)."""
    if trained not in ("X", "O"):
        return chosen
    other = "O" if trained == "X" else "X"
    if chosen == trained:
        raise RLTorchError(f"{checkpoint} learned to play {trained} only, so it cannot play {other}: take "
                           f"--seat {other}, or train with --seat both")
    if chosen is None:
        print(f"the agent learned to play {trained}; you play {other}")
    return other


def figure(args: argparse.Namespace) -> None:
    """Write a grid-world checkpoint's learned policy beside the exact one as PNGs (never over existing files)."""
    from rltorch.run.pictures import grid_figures
    from rltorch.run.plots import save_png

    env, agent, gamma, _ = _env_and_agent(args)
    figures = grid_figures(EnvContext(env, gamma), agent)
    if not figures:
        raise RLTorchError(f"{env.spec.id} is not a grid world with a finite model: no policy picture to draw")
    out = args.out if args.out is not None else Path("runs") / "figures" / args.checkpoint.stem
    paths = {tag: out / (tag.replace("/", "_") + ".png") for tag in figures}
    taken = [str(path) for path in paths.values() if path.exists()]
    if taken and not args.overwrite:
        raise RLTorchError(f"{', '.join(taken)} exist: choose another --out, or pass --overwrite")
    out.mkdir(parents=True, exist_ok=True)
    for tag, picture in figures.items():
        print(f"wrote {save_png(picture, paths[tag], dpi=FIGURE_DPI)}")


def plot(args: argparse.Namespace) -> None:
    """Plot runs' scalars side by side from their event files."""
    from rltorch.run.plots import plot_runs

    print(f"wrote {plot_runs(args.runs, args.tags, args.out, args.labels)}")
