"""The network swap on Mountain Car: the same SARSA trainer with tile coding, then an MLP on the state or on the tiles.

One run each, seed --seed, of `rltorch`'s `SARSATrainer` on `MountainCar-v0` with episodes cut at --cap steps,
gamma 1 and a constant epsilon (--epsilon). The value function is the only change: `LinearValueFunction`
over the book's tile coder (8 tilings of 8 x 8, alpha 0.5/8), as `rltorch train --value-fn tiles` builds
it, against the `QNetwork` that `rltorch train --value-fn mlp` builds (the position and velocity scaled to
[0, 1], --hidden units, Adam at --lr, one step per transition) and the same network on the same tile features
(`--value-fn mlp --inputs tiles`: the coder's 792 binary features of a state as its input). Printed: steps per
episode in blocks of --block episodes, the episodes cut at the cap, and the wall and CPU time of each.
Usage: python bench/mountain_car_swap.py [--episodes 50] [--cap 1000] [--json PATH]
"""

from __future__ import annotations

import argparse
import json
import time

import torch

from rltorch.policies import ConstantSchedule
from rltorch.run.envs import make_env
from rltorch.run.options import (
    at_most,
    make_parser,
    non_negative_int,
    positive_float,
    positive_int,
    unit_float,
    writable_file,
)
from rltorch.run.value_functions import state_encoder
from rltorch.trainers import SARSATrainer
from rltorch.values import QNetwork
from rltorch.values.feature_encoder import FeatureEncoder
from rltorch.values.linear import LinearValueFunction
from trainers.chapter10.engine import ACTIONS, book_coder


def lengths_of(value_fn: object, args: argparse.Namespace) -> dict[str, object]:
    """One run with `value_fn`: every episode's steps, and the wall and CPU seconds it took."""
    env = make_env("MountainCar-v0", {"max_episode_steps": args.cap})
    trainer = SARSATrainer(env, value_fn, gamma=1.0, schedule=ConstantSchedule(args.epsilon), seed=args.seed)
    lengths, wall, cpu = [], time.perf_counter(), time.process_time()
    for _ in range(args.episodes):
        before = trainer.steps_done
        trainer.run_episode(args.epsilon)
        lengths.append(trainer.steps_done - before)
    return {"lengths": lengths, "wall_seconds": round(time.perf_counter() - wall, 1),
            "cpu_seconds": round(time.process_time() - cpu, 1), "capped": sum(n >= args.cap for n in lengths)}


def build_parser() -> argparse.ArgumentParser:
    """The script's options."""
    parser = make_parser(__doc__.split("\n")[0], prog="bench/mountain_car_swap.py")
    parser.add_argument("--episodes", type=at_most(positive_int, 100_000), default=50, help="episodes per run")
    parser.add_argument("--cap", type=at_most(positive_int, 10**6), default=1000, help="steps that cut an episode")
    parser.add_argument("--epsilon", type=unit_float, default=0.0, help="exploration rate of both")
    parser.add_argument("--hidden", type=at_most(positive_int, 4096), nargs="+", default=[64], help="MLP widths")
    parser.add_argument("--lr", type=at_most(positive_float, 1.0), default=1e-3, help="MLP Adam learning rate")
    parser.add_argument("--block", type=at_most(positive_int, 100_000), default=10, help="episodes per printed mean")
    parser.add_argument("--seed", type=at_most(non_negative_int, 2**32 - 1), default=0, help="seed of both runs")
    parser.add_argument("--json", type=writable_file, help="also write the results here")
    return parser


def main(argv: list[str] | None = None) -> None:
    """Run both value functions and print their steps per episode by block and their times."""
    args = build_parser().parse_args(argv)
    torch.set_num_threads(1)
    torch.manual_seed(args.seed)
    space = make_env("MountainCar-v0").observation_space
    coder = book_coder()
    tile_inputs = FeatureEncoder(coder.box.low, coder.box.high, coder.config())
    contenders = {"tiles": LinearValueFunction(coder, 0.5 / 8, ACTIONS),
                  "mlp": QNetwork(state_encoder(space), ACTIONS, args.hidden, args.lr, "cpu", threads=1),
                  "mlp-tiles": QNetwork(tile_inputs, ACTIONS, args.hidden, args.lr, "cpu", threads=1)}
    results = {name: lengths_of(value_fn, args) for name, value_fn in contenders.items()}
    for name, result in results.items():
        lengths = result["lengths"]
        blocks = [sum(lengths[i:i + args.block]) / len(lengths[i:i + args.block])
                  for i in range(0, len(lengths), args.block)]
        print(f"{name:9s} steps per episode by {args.block}s: {' '.join(f'{b:.0f}' for b in blocks)}; cut at "
              f"{args.cap}: {result['capped']}; {sum(lengths):,} steps in {result['wall_seconds']} s wall, "
              f"{result['cpu_seconds']} s CPU")
    if args.json:
        args.json.write_text(json.dumps({"results": results, "args": vars(args)}, indent=2, default=str) + "\n")


if __name__ == "__main__":
    main()
