"""2048 on 3 x 3, solved exactly, and two afterstate learners measured against the optimum.

The full 3 x 3 game does not fit here (its reachable boards passed 73 million by tile sum 448 of about
3,000, with 10 minutes gone), so the solved variant ends the game when a tile of --goal appears (128 by
default). The exact solver (`rltorch.envs.game2048.solver`) lists every reachable board and computes the
optimal expected score from the start and the optimal probability of reaching the goal (and half of it),
then plays --simulations games with the optimal policy as a cross-check. Then rltorch's per-step
QLearningTrainer learns afterstate values over (afterstate, reward) keys with a `VTable` and with an
`NTupleNetwork` (greedy moves, --episodes games each), and each greedy agent's expected score is computed
exactly over the boards it reaches.
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

import gymnasium as gym
import numpy as np
from matplotlib.figure import Figure

import rltorch.envs  # noqa: F401  (registers rltorch/2048-v0)
from rltorch.envs.game2048 import solver
from rltorch.envs.game2048.env import goal_exponent
from rltorch.errors import RLTorchError
from rltorch.keys import AfterstateKeys
from rltorch.policies import ConstantSchedule
from rltorch.run.options import at_most, make_parser, positive_int, step_size
from rltorch.run.studies import SEED, StudyResult, run_study, table, timing
from rltorch.trainers import QLearningTrainer
from rltorch.values import NTupleNetwork, VTable
from trainers.game2048.training import add_outputs

STEM = "game2048_exact_3x3"
SIZE = 3


def optimum(goal: int, simulations: int, seed: int) -> dict[str, Any]:
    """The reachable boards, the optimal expected score and reach probabilities, and the simulation check."""
    start = time.perf_counter()
    layers, afterstates = solver.reachable_layers(SIZE, goal)
    listed = time.perf_counter() - start
    best = solver.solve(SIZE, layers, solver.SCORE, goal=goal)
    score = solver.start_value(SIZE, layers, best)
    reach = {str(1 << target): solver.start_value(SIZE, layers, solver.solve(SIZE, layers, solver.REACH, target, goal))
             for target in (goal - 1, goal)}
    seconds = time.perf_counter() - start
    boards, actions = solver.flatten(layers, best)
    scores = solver.simulated_scores(SIZE, boards, actions, simulations, seed)
    error = float(scores.std(ddof=1) / np.sqrt(len(scores)))
    return {"boards": int(boards.size), "afterstates": afterstates, "layers": len(layers),
            "listing_seconds": round(listed, 1), "solving_seconds": round(seconds, 1),
            "memory_mb": round((boards.nbytes * 3 + actions.nbytes) / 2**20), "expected_score": score,
            "reach_probability": reach, "simulation": {"games": simulations, "seed": seed,
                                                       "mean": float(scores.mean()), "standard_error": error,
                                                       "within_3_standard_errors": bool(abs(scores.mean() - score)
                                                                                    <= 3 * error)}}


def learner(value_fn: Any, args: argparse.Namespace, best: float) -> dict[str, Any]:
    """Train with the per-step Q-learning trainer over (afterstate, reward) keys; evaluate the greedy agent exactly."""
    env = gym.make("rltorch/2048-v0", size=SIZE, goal=args.goal, disable_env_checker=True)
    trainer = QLearningTrainer(env, value_fn, keys=AfterstateKeys(env.unwrapped.afterstate), gamma=1.0,
                               schedule=ConstantSchedule(0.0), seed=args.seed)
    start = time.perf_counter()
    trainer.train(args.episodes, log_every=args.episodes, eval_every=0, progress=not args.no_progress)
    seconds = time.perf_counter() - start
    agent = trainer.agent()
    layers, actions = solver.policy_layers(SIZE, goal_exponent(args.goal), agent.act)
    solved = solver.solve(SIZE, layers, solver.POLICY, goal=goal_exponent(args.goal), policy=actions)
    score = solver.start_value(SIZE, layers, solved)
    return {"value_fn": repr(value_fn), "episodes": args.episodes, "training_seconds": round(seconds, 1),
            "boards_reached": int(sum(layer.size for layer in layers.values())), "expected_score": score,
            "gap": best - score}


def draw(numbers: dict[str, Any]) -> Figure:
    """The exact expected scores: the optimum and each learner's greedy agent."""
    figure = Figure(figsize=(7, 4), layout="constrained")
    axis = figure.subplots()
    names = ["optimum", *numbers["learners"]]
    values = [numbers["optimum"]["expected_score"], *(m["expected_score"] for m in numbers["learners"].values())]
    axis.bar(names, values, color=["black", "tab:blue", "tab:orange"][:len(names)])
    for index, value in enumerate(values):
        axis.text(index, value, f"{value:.1f}", ha="center", va="bottom")
    axis.set_ylabel("exact expected score from the start")
    figure.suptitle(f"2048, 3x3, the game ending at a {numbers['goal']} tile: greedy agents against the optimum")
    return figure


def compute(args: argparse.Namespace) -> StudyResult:
    """Solve, cross-check, train both learners and evaluate them exactly."""
    try:
        goal = goal_exponent(args.goal)
    except ValueError as error:
        raise RLTorchError(str(error)) from None
    best = optimum(goal, args.simulations, args.seed)
    learners = {"VTable": learner(VTable(alpha=args.alpha), args, best["expected_score"]),
                "NTupleNetwork": learner(NTupleNetwork(SIZE, alpha=args.alpha), args, best["expected_score"])}
    numbers = {"size": SIZE, "goal": args.goal, "alpha": args.alpha, "seed": args.seed, "optimum": best,
               "learners": learners}
    return StudyResult(draw(numbers), numbers, markdown)


def markdown(numbers: dict[str, Any], command: str, png: str) -> str:
    """The README snippet."""
    best, sim = numbers["optimum"], numbers["optimum"]["simulation"]
    reach = ", ".join(f"{tile}: {p:.4f}" for tile, p in best["reach_probability"].items())
    rows = [["optimum", f"{best['expected_score']:.3f}", "0", f"{best['boards']:,} (all reachable)"]]
    rows += [[name, f"{m['expected_score']:.3f}", f"{m['gap']:.3f}", f"{m['boards_reached']:,}"]
             for name, m in numbers["learners"].items()]
    return f"""```bash
{command}
```

![3x3 exact]({png})

{best['boards']:,} reachable boards and {best['afterstates']:,} afterstates in {best['layers']} layers by tile sum
(listed in {best['listing_seconds']:.0f} s, solved in {best['solving_seconds']:.0f} s, about {best['memory_mb']:,} MB).
Optimal probability of reaching each tile: {reach}. {sim['games']:,} games of the optimal policy score
{sim['mean']:.2f} ± {sim['standard_error']:.2f} (exact {best['expected_score']:.3f}:
{'within' if sim['within_3_standard_errors'] else 'NOT within'} 3 standard errors). Learners: per-step
Q-learning over (afterstate, reward) keys, {numbers['learners']['VTable']['episodes']:,} greedy games each,
alpha {numbers['alpha']} ({timing(numbers)}).

{table(["greedy agent", "exact expected score", "gap to the optimum", "boards it reaches"], rows)}
"""


def build_parser() -> argparse.ArgumentParser:
    """The script's options."""
    parser = make_parser(__doc__)
    group = parser.add_argument_group("study")
    group.add_argument("--goal", type=at_most(positive_int, 1 << 15), default=128,
                       help="the game ends when a tile this large appears")
    group.add_argument("--episodes", type=at_most(positive_int, 10**7), default=20_000, help="games per learner")
    group.add_argument("--alpha", type=step_size, default=0.1, help="step size of both learners")
    group.add_argument("--simulations", type=at_most(positive_int, 10**7), default=10_000,
                       help="games of the optimal policy for the cross-check")
    group.add_argument("--seed", type=SEED, default=0, help="seed of the learners and the simulation")
    return add_outputs(parser, STEM)


def main(argv: list[str] | None = None) -> int:
    """Parse `argv`, solve and measure, write the figure, numbers and snippet."""
    return run_study(STEM, __file__, argv, build_parser(), compute)


if __name__ == "__main__":
    sys.exit(main())
