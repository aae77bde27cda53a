"""Blackjack with a Q network: the same trainers, the table swapped for an MLP in one line.

Learns Q(s, a) with a `QNetwork` (one output per action over one-hot features of the player sum,
the dealer card and the usable ace) by on-policy Monte Carlo or Q-learning, and reports the exact
expected return of its greedy policy from the DP oracle, against the optimum −0.0465560.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import torch

from rltorch import MCTrainer, QLearningTrainer, QNetwork, QTable
from rltorch.envs.blackjack.encoder import BlackjackEncoder
from rltorch.envs.blackjack.env import BlackjackEnv
from rltorch.envs.blackjack.evaluation import ExactBlackjack
from rltorch.logger import TensorBoardLogger, run_name
from rltorch.policies import ConstantSchedule
from rltorch.run.options import non_negative_int, positive_int, print_json, unit_float

TRAINERS = {"mc": MCTrainer, "qlearning": QLearningTrainer}


def main(argv: list[str] | None = None) -> int:
    """Train, evaluate exactly, print and save."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    parser.add_argument("--algorithm", choices=tuple(TRAINERS), default="mc", help="the learning rule")
    parser.add_argument("--value-fn", choices=("table", "mlp"), default="mlp", help="table or network")
    parser.add_argument("--episodes", type=positive_int, default=30_000, help="training hands")
    parser.add_argument("--epsilon", type=unit_float, default=0.1, help="constant exploration rate")
    parser.add_argument("--hidden", type=positive_int, nargs="+", default=[64], help="hidden layer widths")
    parser.add_argument("--lr", type=float, default=1e-3, help="Adam learning rate")
    parser.add_argument("--replay-size", type=non_negative_int, default=0, help="Q-learning: DQN replay buffer")
    parser.add_argument("--target-update-every", type=non_negative_int, default=0, help="Q-learning: target copy")
    parser.add_argument("--seed", type=int, default=0, help="seed")
    parser.add_argument("--log-dir", type=Path, default=Path("runs"), help="TensorBoard root")
    parser.add_argument("--eval-every", type=positive_int, default=5000, help="episodes between exact checks")
    parser.add_argument("--json", type=Path, help="write the final figures here")
    args = parser.parse_args(argv)
    if args.lr <= 0:
        parser.error("--lr must be positive")
    torch.manual_seed(args.seed)
    torch.set_num_threads(1)
    value_fn = QNetwork(BlackjackEncoder(), 2, args.hidden, args.lr) if args.value_fn == "mlp" else QTable(alpha=None)
    extra = {"replay_size": args.replay_size, "target_update_every": args.target_update_every}
    logger = TensorBoardLogger(args.log_dir / run_name("Blackjack-v0", f"{args.algorithm}-{args.value_fn}", args.seed))
    trainer = TRAINERS[args.algorithm](
        BlackjackEnv(), value_fn, gamma=1.0, schedule=ConstantSchedule(args.epsilon), seed=args.seed, logger=logger,
        exact_eval=ExactBlackjack(), **(extra if args.algorithm == "qlearning" else {}),
    )
    start = time.perf_counter()
    trainer.train(args.episodes, log_every=500, eval_every=args.eval_every, eval_games=1000)
    figures = {"episodes": args.episodes, "seconds": round(time.perf_counter() - start, 1),
               **ExactBlackjack()(trainer.agent())}
    logger.close()
    print_json(figures, args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
