"""Generalization, shown: an afterstate network plays boards it never trained on.

Trains an afterstate `VNetwork` with SARSA as X against the random opponent for fewer episodes
than it takes to meet every afterstate, recording each afterstate it was fitted on. Then, over
every reachable position where X moves and none of the position's afterstates was ever fitted,
it counts how often the greedy move is optimal by the minimax solver (only positions where
some move is a mistake count), next to the share a random move would get right there; and the
exact figures of the network and of a table trained the same way.
"""

from __future__ import annotations

import argparse
import sys

import torch

from rltorch import AfterstateKeys, SARSATrainer, VTable
from rltorch.envs.tictactoe.encoder import BoardEncoder
from rltorch.envs.tictactoe.env import TicTacToeEnv, afterstate, legal_moves
from rltorch.envs.tictactoe.exact import exact_outcome_vs_random
from rltorch.envs.tictactoe.solver import count_reachable_keys, learner_positions, optimal_moves
from rltorch.run.options import at_most, make_parser, non_negative_int, positive_float, positive_int, writable_file
from rltorch.run.output import print_json
from rltorch.values.networks import VNetwork


def unseen_positions(seen: set) -> list[tuple[int, ...]]:
    """Decisive X-to-move positions (some move is a mistake) none of whose afterstates is in `seen`."""
    return [
        p for p in learner_positions("X")
        if len(optimal_moves(p)) < len(legal_moves(p)) and not any(afterstate(p, m) in seen for m in legal_moves(p))
    ]


def optimal_count(agent, positions: list) -> int:
    """How many of `positions` the agent's greedy move is minimax-optimal in."""
    return sum(agent.act(p, legal_moves(p)) in optimal_moves(p) for p in positions)


def random_move_share(positions: list) -> float:
    """The expected share of `positions` where a uniformly random move is optimal (the no-knowledge baseline)."""
    return sum(len(optimal_moves(p)) / len(legal_moves(p)) for p in positions) / max(len(positions), 1)


def build_parser() -> argparse.ArgumentParser:
    """The script's options."""
    parser = make_parser(__doc__)
    parser.add_argument("--episodes", type=at_most(positive_int, 10**7), default=1500,
                        help="training episodes for each learner")
    parser.add_argument("--hidden", type=at_most(positive_int, 4096), nargs="+", default=[64],
                        help="hidden layer widths")
    parser.add_argument("--lr", type=at_most(positive_float, 10.0), default=3e-3, help="Adam learning rate")
    parser.add_argument("--seed", type=at_most(non_negative_int, 2**32 - 1), default=0, help="seed")
    parser.add_argument("--json", type=writable_file, help="write the figures here")
    return parser


def main(argv: list[str] | None = None) -> int:
    """Train the network and the table, then compare them on the unseen positions."""
    args = build_parser().parse_args(argv)
    torch.manual_seed(args.seed)
    torch.set_num_threads(1)
    network = VNetwork(BoardEncoder(), args.hidden, args.lr)
    network.remember_keys()
    results = {}
    for name, value_fn in (("network", network), ("table", VTable(alpha=0.1))):
        trainer = SARSATrainer(TicTacToeEnv(), value_fn, keys=AfterstateKeys(afterstate), seed=args.seed)
        trainer.train(args.episodes, eval_every=0, progress=True)
        results[name] = trainer.agent()
    unseen = unseen_positions(network.seen_keys)
    report = {
        "episodes": args.episodes,
        "afterstates_fitted": len(network.seen_keys),
        "afterstates_reachable": count_reachable_keys("X", "afterstate"),
        "unseen_positions": len(unseen),
        "network_optimal_on_unseen": optimal_count(results["network"], unseen),
        "random_move_expected_share": random_move_share(unseen),
        **{f"{name}_exact_{k}": float(v) for name, agent in results.items()
           for k, v in exact_outcome_vs_random(agent, "X").items()},
    }
    print_json(report, args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
