"""Episodes per second: SARSATrainer (TensorBoard logging on) against the plain-Python SARSA loop.

Both run the same algorithm (course defaults, random opponent) in alternation, several rounds,
timed in process CPU time (TensorBoard's writer thread included), and the best round of each is
compared: the one least disturbed by the rest of the machine.
Usage: python bench/tictactoe_speed.py [--episodes 100000] [--rounds 3] [--json PATH]
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time

import plain_sarsa

from rltorch import QTable, SARSATrainer
from rltorch.envs import TicTacToeEnv
from rltorch.logger import TensorBoardLogger
from rltorch.run.options import at_most, make_parser, positive_int, writable_file

MAX_ROUNDS = 1000  # rounds of a measurement, at most


def time_baseline(episodes: int, seed: int) -> float:
    """Episodes per second of the plain loop."""
    start = time.process_time()
    plain_sarsa.train(episodes, seed=seed)
    return episodes / (time.process_time() - start)


def time_trainer(episodes: int, seed: int, log_dir: str) -> float:
    """Episodes per second of SARSATrainer with TensorBoard logging and periodic evaluation."""
    logger = TensorBoardLogger(log_dir)
    trainer = SARSATrainer(TicTacToeEnv(), QTable(alpha=0.1), gamma=0.9, seed=seed, logger=logger)
    start = time.process_time()
    trainer.train(episodes, progress=False)
    seconds = time.process_time() - start
    logger.close()
    return episodes / seconds


def build_parser() -> argparse.ArgumentParser:
    """The script's options."""
    parser = make_parser(__doc__)
    parser.add_argument("--episodes", type=at_most(positive_int, 10**8), default=100_000, help="episodes per run")
    parser.add_argument("--rounds", type=at_most(positive_int, MAX_ROUNDS), default=3,
                        help="alternating rounds of each")
    parser.add_argument("--json", type=writable_file, help="write the figures to this file")
    return parser


def main(argv: list[str] | None = None) -> dict:
    """Run the rounds and print the comparison."""
    args = build_parser().parse_args(argv)
    baseline, framework = [], []
    with tempfile.TemporaryDirectory() as log_root:
        for round_index in range(args.rounds):
            baseline.append(time_baseline(args.episodes, round_index))
            framework.append(time_trainer(args.episodes, round_index, f"{log_root}/{round_index}"))
            print(f"round {round_index + 1}: plain {baseline[-1]:,.0f} ep/s, SARSATrainer {framework[-1]:,.0f} ep/s")
    result = {
        "episodes": args.episodes,
        "plain_best": max(baseline),
        "trainer_best": max(framework),
        "plain_median": statistics.median(baseline),
        "trainer_median": statistics.median(framework),
    }
    result["ratio_best"] = result["plain_best"] / result["trainer_best"]
    result["target_met"] = result["ratio_best"] <= 1.4
    print(
        f"best: plain {result['plain_best']:,.0f} ep/s, SARSATrainer {result['trainer_best']:,.0f} ep/s, "
        f"plain/trainer = {result['ratio_best']:.2f} (target <= 1.40: {'met' if result['target_met'] else 'MISSED'})"
    )
    if args.json:
        args.json.write_text(json.dumps(result, indent=2))
    return result


if __name__ == "__main__":
    main()
