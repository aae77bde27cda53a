"""Episodes per second of rltorch's blackjack Monte Carlo against the book's loop in plain Python, in one run.

Two workloads, 500,000 episodes each by default: first-visit MC prediction of stick-on-20, and MC
with exploring starts. rltorch runs `MCTrainer.train` as the trainer script does (TensorBoard
logging every 1,000 episodes; no evaluations, no progress bar). The baselines are in
`plain_blackjack.py`: `book` is the book's companion code (NumPy per card), `lean` the same
algorithms hand-tuned in pure Python, shown for reference. Timed in process CPU time, in
alternating rounds; the best round of each counts.
Usage: python bench/blackjack_speed.py [--episodes 500000] [--rounds 3] [--json PATH]
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from collections.abc import Callable

import plain_blackjack

from rltorch.logger import TensorBoardLogger
from rltorch.run.options import at_most, make_parser, positive_int, writable_file
from trainers.chapter5.methods import make_trainer

WORKLOADS = {"prediction": ("prediction", plain_blackjack.book_prediction, plain_blackjack.lean_prediction),
             "es": ("es", plain_blackjack.book_es, plain_blackjack.lean_es)}
MAX_ROUNDS = 1000  # rounds of a measurement, at most


def episodes_per_second(run: Callable[[], object], episodes: int) -> float:
    """Run once; episodes per second of process CPU time (TensorBoard's writer thread included)."""
    start = time.process_time()
    run()
    return episodes / (time.process_time() - start)


def rltorch_run(method: str, episodes: int, seed: int, log_dir: str) -> Callable[[], object]:
    """A closure that trains rltorch's trainer for `method` with TensorBoard logging."""
    def run() -> None:
        logger = TensorBoardLogger(log_dir)
        make_trainer(method, seed=seed, logger=logger).train(episodes, log_every=1000, eval_every=0, progress=False)
        logger.close()
    return run


def measure(episodes: int, rounds: int) -> dict[str, dict[str, float]]:
    """Best episodes per second of rltorch, book and lean on each workload."""
    best: dict[str, dict[str, float]] = {name: {"rltorch": 0.0, "book": 0.0, "lean": 0.0} for name in WORKLOADS}
    with tempfile.TemporaryDirectory() as log_root:
        for round_index in range(rounds):
            for name, (method, book, lean) in WORKLOADS.items():
                speeds = {
                    "rltorch": episodes_per_second(
                        rltorch_run(method, episodes, round_index, f"{log_root}/{name}{round_index}"), episodes),
                    "book": episodes_per_second(lambda b=book, r=round_index: b(episodes, r), episodes),
                    "lean": episodes_per_second(lambda f=lean, r=round_index: f(episodes, r), episodes),
                }
                for who, speed in speeds.items():
                    best[name][who] = max(best[name][who], speed)
                print(f"round {round_index + 1} {name}: " + ", ".join(f"{w} {s:,.0f} ep/s" for w, s in speeds.items()))
    return best


def build_parser() -> argparse.ArgumentParser:
    """The script's options."""
    parser = make_parser(__doc__)
    parser.add_argument("--episodes", type=at_most(positive_int, 10**9), default=500_000, help="episodes per run")
    parser.add_argument("--rounds", type=at_most(positive_int, MAX_ROUNDS), default=3,
                        help="alternating rounds of each")
    parser.add_argument("--json", type=writable_file, help="write the figures to this file")
    return parser


def main(argv: list[str] | None = None) -> dict:
    """Run the rounds and print the comparison."""
    args = build_parser().parse_args(argv)
    best = measure(args.episodes, args.rounds)
    result = {"episodes": args.episodes, "rounds": args.rounds, "best_episodes_per_second": best}
    result["target_met"] = all(speeds["rltorch"] >= speeds["book"] for speeds in best.values())
    for name, speeds in best.items():
        print(f"best {name}: rltorch {speeds['rltorch']:,.0f}, book {speeds['book']:,.0f} "
              f"(rltorch/book = {speeds['rltorch'] / speeds['book']:.2f}), lean {speeds['lean']:,.0f} ep/s")
    print(f"target (rltorch at least as fast as the book's loop): {'met' if result['target_met'] else 'MISSED'}")
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n")
    return result


if __name__ == "__main__":
    main()
