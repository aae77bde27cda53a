"""Sutton & Barto's Figure 8.2: Dyna-Q on the Dyna maze, steps per episode for 0, 5 and 50 planning steps.

rltorch's DynaQTrainer (alpha 0.1, epsilon 0.1, gamma 0.95, Q starting at 0, ties broken at random)
learns for --episodes episodes in each of --runs runs per number of planning steps (run i has the same
seed for every number). The figure: the mean steps per episode from episode 2 on, as in the book (the
first episode is a random walk for every agent: nothing is learned before the goal is first reached).
The floor is exact: the expected length of an epsilon-greedy episode on the optimal policy.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

import gymnasium as gym
import numpy as np
from matplotlib.figure import Figure

from rltorch.envs.dyna_maze import ENV_ID
from rltorch.mdp import FiniteModel, Transition, epsilon_greedy_policy, expected_return, model_of, value_iteration
from rltorch.policies import ConstantSchedule
from rltorch.run.many_runs import map_runs, progress, run_seeds
from rltorch.run.options import unit_float
from rltorch.run.studies import StudyResult, run_study, study_parser, table, timing
from rltorch.trainers import DynaQTrainer
from rltorch.values import QTable

STEM = "figure_8_2_dyna_maze"
PLANNING = (0, 5, 50)
SHORTEST = 14  # steps from S to G
SETTLED_MARGIN = 1.5  # an agent has settled once its mean episode stays within this factor of the floor
TIGHT_MARGIN = 1.25  # the same, stricter
MAX_PLANNING = 10_000  # planning steps per real step, at most


def planning_list(text: str) -> tuple[int, ...]:
    """Parse a comma-separated list of planning-step counts such as 0,5,50."""
    try:
        counts = tuple(int(part) for part in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be counts such as 0,5,50, got {text!r}") from None
    if not all(0 <= count <= MAX_PLANNING for count in counts):
        raise argparse.ArgumentTypeError(f"planning steps must be from 0 to {MAX_PLANNING:,}, got {text!r}")
    return counts


def make_env() -> gym.Env:
    """A fresh Dyna maze."""
    return gym.make(ENV_ID, disable_env_checker=True)


def episode_lengths(planning: int, seed: int, args: argparse.Namespace) -> np.ndarray:
    """One run of Dyna-Q with `planning` planning steps: the number of steps of every episode."""
    trainer = DynaQTrainer(make_env(), QTable(alpha=args.alpha), gamma=args.gamma,
                           schedule=ConstantSchedule(args.epsilon), seed=seed, planning_steps=planning)
    lengths = np.empty(args.episodes, dtype=np.int64)
    for episode in range(args.episodes):
        steps = trainer.steps_done
        trainer.run_episode(args.epsilon)
        lengths[episode] = trainer.steps_done - steps
    return lengths


def run_lengths(seed: int, args: argparse.Namespace) -> list[np.ndarray]:
    """One run of every planning setting on `seed`: the steps of every episode, per setting in --planning order."""
    return [episode_lengths(planning, seed, args) for planning in args.planning]


def epsilon_greedy_floor(gamma: float, epsilon: float) -> float:
    """The exact expected steps of an episode epsilon-greedy on q* (what a settled agent averages)."""
    model = model_of(make_env())
    optimal = value_iteration(model, gamma)
    one_per_step = {pair: [Transition(t.probability, t.next_state, 1.0, t.terminal) for t in outcomes]
                    for pair, outcomes in model.transitions.items()}
    steps = FiniteModel(model.states, model.actions, one_per_step, model.start, "Dyna maze, reward 1 per step")
    return expected_return(steps, epsilon_greedy_policy(optimal.q, model, epsilon, tie_tol=1e-9), 1.0)


def settled_from(mean: np.ndarray, level: float) -> int | None:
    """The first episode (1-based) from which `mean` stays at or below `level` to the end, None if it never does."""
    above = np.flatnonzero(mean > level)
    if above.size == 0:
        return 1
    return int(above[-1]) + 2 if above[-1] + 1 < len(mean) else None


def compute(args: argparse.Namespace) -> StudyResult:
    """Run every planning setting over the same seeds and draw the book's curves."""
    seeds = run_seeds(args.seed, args.runs)
    with progress(len(args.planning) * args.runs, "runs", args) as bar:
        runs = map_runs(lambda seed: run_lengths(seed, args), seeds, bar, len(args.planning))
    lengths = {planning: np.array([run[index] for run in runs]).mean(axis=0)
               for index, planning in enumerate(args.planning)}
    floor = epsilon_greedy_floor(args.gamma, args.epsilon)
    episodes = range(1, args.episodes + 1)
    curves = {f"steps_per_episode/planning_{planning}": (episodes, mean.tolist()) for planning, mean in lengths.items()}
    return StudyResult(draw(lengths, floor, args), summary(lengths, floor, args), markdown, curves)


def summary(lengths: dict[int, np.ndarray], floor: float, args: argparse.Namespace) -> dict[str, Any]:
    """Per planning setting: the first episodes' means, the last ten's, and the episode it settles from."""
    last = min(10, args.episodes)
    agents = {str(planning): {"first_episode": float(mean[0]),
                              "second_episode": float(mean[1]) if args.episodes > 1 else None,
                              "mean_last_episodes": float(mean[-last:].mean()),
                              "settled_from_episode": settled_from(mean, SETTLED_MARGIN * floor),
                              "settled_tightly_from_episode": settled_from(mean, TIGHT_MARGIN * floor),
                              "steps_per_episode": mean.tolist()}
              for planning, mean in lengths.items()}
    return {"runs": args.runs, "episodes": args.episodes, "alpha": args.alpha, "epsilon": args.epsilon,
            "gamma": args.gamma, "seed": args.seed, "shortest_path": SHORTEST, "epsilon_greedy_floor": floor,
            "settled_level": SETTLED_MARGIN * floor, "tight_level": TIGHT_MARGIN * floor, "last_episodes": last,
            "agents": agents}


def draw(lengths: dict[int, np.ndarray], floor: float, args: argparse.Namespace) -> Figure:
    """Steps per episode from episode 2 on, one line per planning setting, with the floor and the shortest path."""
    figure = Figure(figsize=(7.5, 4.8), layout="constrained")
    axis = figure.subplots()
    episodes = np.arange(1, args.episodes + 1)
    for planning, mean in lengths.items():
        axis.plot(episodes[1:], mean[1:], label=f"{planning} planning steps" + (" (direct RL only)" if not planning
                                                                                  else ""))
    axis.axhline(floor, color="black", linestyle="--", linewidth=1,
                 label=f"epsilon-greedy on the optimal policy ({floor:.1f}, exact)")
    axis.axhline(SHORTEST, color="grey", linestyle=":", linewidth=1, label=f"shortest path ({SHORTEST})")
    axis.set_ylim(0, 800)
    axis.set_xlim(2 if args.episodes > 2 else 1, args.episodes)
    axis.set_xlabel("episodes")
    axis.set_ylabel(f"steps per episode (mean of {args.runs} runs)")
    axis.legend(fontsize=8)
    figure.suptitle(f"Figure 8.2: Dyna-Q on the Dyna maze, alpha {args.alpha:g}, epsilon {args.epsilon:g}, "
                    f"gamma {args.gamma:g}")
    return figure


def markdown(numbers: dict, command: str, png: str) -> str:
    """The README snippet: command, numbers beside the book's description, and what matches."""
    book = {"0": "about 25 episodes", "5": "about 5 episodes", "50": "about 3 episodes"}
    rows = [[planning, f"{a['first_episode']:.0f}",
             "-" if a["second_episode"] is None else f"{a['second_episode']:.0f}", f"{a['mean_last_episodes']:.1f}",
             a["settled_from_episode"] or "not within the run", book.get(planning, "-")]
            for planning, a in numbers["agents"].items()]
    return f"""### Figure 8.2: Dyna-Q on the Dyna maze

```bash
{command}
```

![Figure 8.2]({png})

{numbers['runs']} runs of {numbers['episodes']} episodes per setting, alpha {numbers['alpha']}, epsilon
{numbers['epsilon']}, gamma {numbers['gamma']}, Q initialised to 0 ({timing(numbers)}). "Settled" is the first
episode from which the mean over runs stays within {SETTLED_MARGIN:g} times the exact epsilon-greedy floor, i.e.
under {numbers['settled_level']:.1f} steps (the floor: {numbers['epsilon_greedy_floor']:.1f} steps of
epsilon-greedy play on the optimal policy; the shortest path takes {numbers['shortest_path']}). The book: the first
episode is the same for every agent; then the agent without planning takes about 25 episodes to reach
(epsilon-)optimal performance, the 5-step planner about 5, the 50-step planner about 3.

{table(["planning steps", "episode 1", "episode 2", f"last {numbers['last_episodes']} episodes",
        "settled from episode", "the book: settled after"], rows)}

{verdict(numbers)}.
"""


def verdict(numbers: dict) -> str:
    """One sentence on what matches: the order and the episodes to settle, and why episode 1 differs."""
    agents = numbers["agents"]
    settled = [agents[p]["settled_from_episode"] for p in sorted(agents, key=int)]
    ok = None not in settled and settled == sorted(settled, reverse=True)
    text = (f"{'Matches' if ok else 'Does not match'}: more planning settles sooner ("
            + ", ".join(f"{p} planning steps from episode {a['settled_from_episode']}" for p, a in agents.items())
            + "), because planning spreads the first reward back through the model during episode 2, where direct "
            "RL moves it one step back per episode")
    tight = {p: a["settled_tightly_from_episode"] for p, a in agents.items()}
    text += (f"; with a stricter margin (under {numbers['tight_level']:.1f} steps) the episodes are "
             + ", ".join(f"{t or 'never'} ({p} planning steps)" for p, t in tight.items()))
    firsts = [a["first_episode"] for a in agents.values()]
    return text + (f". Episode 1 is a random walk for every agent ({min(firsts):.0f}-{max(firsts):.0f} steps on "
                   f"average here); it differs between settings only by chance, since planning draws from the "
                   "same generator as acting, and the book's figure starts at episode 2 on a scale up to 800")


def build_parser() -> argparse.ArgumentParser:
    """The script's options."""
    parser = study_parser(__doc__, runs=30, episodes=50, alpha=0.1, epsilon=0.1)
    parser.add_argument("--planning", type=planning_list, default=PLANNING, help="numbers of planning steps")
    parser.add_argument("--gamma", type=unit_float, default=0.95, help="discount")
    return parser


def main(argv: list[str] | None = None) -> int:
    """Parse `argv`, run the study, write its figure, numbers and snippet."""
    return run_study(STEM, __file__, argv, build_parser(), compute)


if __name__ == "__main__":
    sys.exit(main())
