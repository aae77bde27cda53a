"""The fast form's long run, shared by the 2048 studies: train in blocks, save and resume, test greedily.

A run trains an `NTupleNetwork` with `CompiledAfterstateLearner` (TD-afterstate, greedy moves, no
exploration) for `--games` games, in blocks of `--block` games (one point of the curve each), saving a
data-only checkpoint after each block when `--checkpoint` is given; `--resume` goes on from one, bit for
bit as a straight run. Then `--test-games` greedy games from the fixed `--test-seed`, no learning.
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path
from typing import Any

import numpy as np
import torch

from rltorch.checkpoints import save_checkpoint
from rltorch.engines.afterstate2048 import CompiledAfterstateLearner, greedy_games
from rltorch.envs.game2048.fast import RESULT_ABS_ERROR, RESULT_ERRORS, RESULT_MAX_TILE, RESULT_MOVES, RESULT_SCORE
from rltorch.errors import RLTorchError
from rltorch.run.many_runs import progress
from rltorch.run.options import at_most, existing_file, non_negative_int, positive_int, step_size, writable_file
from rltorch.run.studies import SEED, add_study_outputs
from rltorch.values.ntuple import NTupleNetwork, check_tuples, parse_tuples

KIND = "game2048-compiled-td-afterstate"
MAX_GAMES = 10**8
SETTINGS = ("size", "games", "block", "alpha", "seed", "tuples")


def add_outputs(parser: argparse.ArgumentParser, stem: str) -> argparse.ArgumentParser:
    """A 2048 study's outputs (one process: no ranks, no timeout to join them); `parser` back."""
    add_study_outputs(parser, "also write the PNG, the JSON and the Markdown snippet into this folder (e.g. docs)",
                      f"{stem}__study__seed__time__tag, unique", ranks=False)
    parser.set_defaults(dist_timeout=None)
    return parser


def add_training_options(parser: argparse.ArgumentParser, games: int, block: int) -> None:
    """The options of a long run: games, blocks, step size, tuples, seeds, checkpoint and resume."""
    group = parser.add_argument_group("training")
    group.add_argument("--games", type=at_most(positive_int, MAX_GAMES), default=games, help="training games")
    group.add_argument("--block", type=at_most(positive_int, MAX_GAMES), default=block,
                       help="games per point of the curve (and per checkpoint)")
    group.add_argument("--alpha", type=step_size, default=0.1,
                       help="share of the TD error one update removes (each weight moves alpha / features)")
    group.add_argument("--tuples", type=parse_tuples, default=None,
                       help="tuples of cells, e.g. '0,1,2,3;0,1,4,5' (default: the board size's own)")
    group.add_argument("--seed", type=SEED, default=0, help="seed of the training games")
    group.add_argument("--test-games", type=at_most(non_negative_int, MAX_GAMES), default=1000,
                       help="greedy test games after training")
    group.add_argument("--test-seed", type=SEED, default=2048, help="seed of the test games (fixed)")
    group.add_argument("--checkpoint", type=writable_file, help="save the learner here after every block")
    group.add_argument("--resume", type=existing_file, help="go on from this checkpoint (same settings)")


def network_of(args: argparse.Namespace, size: int) -> NTupleNetwork:
    """The network the options ask for, or one line (RLTorchError) when a tuple does not fit the board."""
    try:
        if args.tuples is not None:
            check_tuples(size, args.tuples)
        return NTupleNetwork(size, args.tuples, alpha=args.alpha)
    except ValueError as error:
        raise RLTorchError(str(error)) from None


def settings_of(args: argparse.Namespace, network: NTupleNetwork) -> dict[str, Any]:
    """The settings a checkpoint must share with the run that resumes it."""
    return {"size": network.size, "games": args.games, "block": args.block, "alpha": args.alpha,
            "seed": args.seed, "tuples": [list(cells) for cells in network.tuples]}


def train(args: argparse.Namespace, size: int) -> tuple[NTupleNetwork, np.ndarray]:
    """Train (or go on training) for `--games` games; the network and one row of results per game."""
    network = network_of(args, size)
    learner = CompiledAfterstateLearner(network, seed=args.seed)
    settings = settings_of(args, network)
    done: list[np.ndarray] = []
    if args.resume is not None:
        done = [resume(args.resume, network, learner, settings)]
    with progress(args.games, f"{size}x{size} training", args, unit="game") as bar:
        bar.update(learner.games_done)
        while learner.games_done < args.games:
            results = learner.run(min(args.block, args.games - learner.games_done))
            done.append(results)
            bar.update(len(results))
            bar.set_postfix(score=f"{results[:, RESULT_SCORE].mean():,.0f}",
                            reach_2048=f"{(results[:, RESULT_MAX_TILE] >= 11).mean():.1%}")
            if args.checkpoint is not None:
                save(args.checkpoint, network, learner, settings, np.concatenate(done))
    return network, np.concatenate(done)


def save(path: Path, network: NTupleNetwork, learner: CompiledAfterstateLearner, settings: dict[str, Any],
         results: np.ndarray) -> None:
    """A data-only checkpoint of the run: settings, network, learner state and every game's results."""
    save_checkpoint(path, {"kind": KIND, "settings": settings, "value_fn_config": network.config(),
                           "value_fn_state": network.state_dict(), "learner": learner.state_dict(),
                           "results": torch.from_numpy(results)})


def resume(path: Path, network: NTupleNetwork, learner: CompiledAfterstateLearner,
           settings: dict[str, Any]) -> np.ndarray:
    """Load a checkpoint into the network and learner; its games' results. One line when it does not fit."""
    try:
        data = torch.load(path, weights_only=True)
    except Exception as error:  # a damaged or foreign file: one line
        raise RLTorchError(f"cannot read checkpoint {path}: {type(error).__name__}") from None
    if not isinstance(data, dict) or data.get("kind") != KIND:
        raise RLTorchError(f"{path} is not a checkpoint of this training")
    saved = data["settings"]
    differ = [name for name in SETTINGS if name != "games" and saved.get(name) != settings[name]]
    if differ:
        raise RLTorchError(f"{path} was trained with other settings ({', '.join(differ)}): resume with its own")
    network.load_state_dict(data["value_fn_state"])
    learner.load_state_dict(data["learner"])
    return data["results"].numpy()


def test(network: NTupleNetwork, args: argparse.Namespace) -> dict[str, Any]:
    """The greedy test games: mean score (± s.e.), shares reaching 2048 and 4096 (± s.e.), tiles reached."""
    results = greedy_games(network, args.test_games, args.test_seed) if args.test_games else np.zeros((0, 5))
    return {"games": args.test_games, "seed": args.test_seed, **summary(results)}


def summary(results: np.ndarray) -> dict[str, Any]:
    """Mean score and moves, shares reaching 2048 and 4096, each with its standard error; the largest tiles."""
    def mean(values: np.ndarray) -> dict[str, float | None]:
        error = float(values.std(ddof=1) / math.sqrt(len(values))) if len(values) > 1 else None
        return {"mean": float(values.mean()) if len(values) else None, "standard_error": error}

    tiles = results[:, RESULT_MAX_TILE].astype(int)
    return {"score": mean(results[:, RESULT_SCORE]), "moves": mean(results[:, RESULT_MOVES]),
            "reach_2048": mean((tiles >= 11).astype(float)), "reach_4096": mean((tiles >= 12).astype(float)),
            "largest_tile": {str(1 << int(t)): int((tiles == t).sum()) for t in np.unique(tiles)}}


def curve(results: np.ndarray, block: int) -> dict[str, list[float]]:
    """Per block of games: the games so far, mean score, shares reaching 2048 and 4096, mean absolute TD error."""
    starts = range(0, len(results), block)
    blocks = [results[start:start + block] for start in starts]
    return {"games": [start + len(part) for start, part in zip(starts, blocks, strict=True)],
            "score": [float(part[:, RESULT_SCORE].mean()) for part in blocks],
            "score_standard_error": [float(part[:, RESULT_SCORE].std(ddof=1) / math.sqrt(len(part)))
                                     if len(part) > 1 else 0.0 for part in blocks],
            "reach_2048": [float((part[:, RESULT_MAX_TILE] >= 11).mean()) for part in blocks],
            "reach_4096": [float((part[:, RESULT_MAX_TILE] >= 12).mean()) for part in blocks],
            "td_error": [float(part[:, RESULT_ABS_ERROR].sum() / max(part[:, RESULT_ERRORS].sum(), 1.0))
                         for part in blocks]}


if __name__ == "__main__":
    print("training.py is a module of ntuple_4x4.py; run python trainers/game2048/ntuple_4x4.py --help",
          file=sys.stderr)
    sys.exit(2)
