"""Sutton & Barto's Figure 10.1: the cost-to-go function −max_a q̂(s, a) learned during one run of Mountain Car.

Semi-gradient SARSA with 8 tilings of 8 x 8 tiles, alpha = 0.5/8 (our choice: the book names the coding but
not this run's step size; it is Figure 10.2's best), epsilon 0, gamma 1, weights starting at 0, no time limit.
The panels: after step 428 of the first episode, and after episodes 12, 104, 1,000 and 9,000, as the book's,
each on a 50 x 50 grid of positions and velocities. Like the book, one run (the run's own randomness is its
start positions and tie-breaks): a point has no standard error. Episodes are cut at --episode-cap steps
(`trainers.chapter10.runs`).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

import numpy as np
import torch
from matplotlib.figure import Figure

from rltorch.run.options import at_most, positive_int
from rltorch.run.studies import MAX_EPISODES, StudyResult, run_study, timing
from trainers.chapter10.engine import ACTIONS, BOOK_HIGH, BOOK_LOW, Lanes, book_coder
from trainers.chapter10.runs import MAX_CAP, capped, mountain_car_parser, option, settings_of

STEM = "figure_10_1_mountain_car_cost_to_go"
FIRST_STEPS = 428
EPISODES = (12, 104, 1000, 9000)
GRID = 50


def episode_list(text: str) -> tuple[int, ...]:
    """Parse comma-separated episode counts such as 12,104,1000 (ascending, each at least 1)."""
    try:
        counts = tuple(positive_int(part) for part in text.split(","))
    except (argparse.ArgumentTypeError, ValueError):
        raise argparse.ArgumentTypeError(f"must be episode counts such as 12,104,1000, got {text!r}") from None
    if list(counts) != sorted(set(counts)) or counts[-1] > MAX_EPISODES:
        raise argparse.ArgumentTypeError(f"must be ascending counts up to {MAX_EPISODES:,}, got {text!r}")
    return counts


def cost_to_go(weights: np.ndarray, tilings: int) -> np.ndarray:
    """−max_a q̂(s, a) on the grid, [velocities, positions]."""
    coder = book_coder(tilings)
    positions, velocities = np.linspace(BOOK_LOW[0], BOOK_HIGH[0], GRID), np.linspace(BOOK_LOW[1], BOOK_HIGH[1], GRID)
    states = torch.tensor([(p, v) for v in velocities for p in positions], dtype=torch.float64)
    tiles = coder.active(states).numpy()
    values = weights.reshape(ACTIONS, coder.size)[:, tiles].sum(axis=2)  # [actions, grid points]
    return -values.max(axis=0).reshape(GRID, GRID)


def compute(args: argparse.Namespace) -> StudyResult:
    """One run: the weights after the first --first-steps steps, then after each of --checkpoints episodes."""
    first = Lanes(args.seed, [0], book_coder(args.tilings), settings_of("sarsa", args.alpha * 8, args)._replace(
        limit=args.first_steps))
    panels = {f"step {args.first_steps}": (first.play(1)[0, 0], cost_to_go(first.weights[0], args.tilings))}
    run = Lanes(args.seed, [0], book_coder(args.tilings), settings_of("sarsa", args.alpha * 8, args))
    done, lengths = 0, []
    for episode in args.checkpoints:
        lengths.append(run.play(episode - done)[0])
        done = episode
        panels[f"episode {episode}"] = (int(lengths[-1][-1]), cost_to_go(run.weights[0], args.tilings))
    all_lengths = np.concatenate(lengths)
    numbers = {"runs": 1, "seed": args.seed, "alpha": args.alpha, "tilings": args.tilings, "epsilon": 0.0,
               "gamma": 1.0, "episode_cap": args.episode_cap, "capped_episodes": capped(all_lengths, args),
               "grid_positions": np.linspace(BOOK_LOW[0], BOOK_HIGH[0], GRID).tolist(),
               "grid_velocities": np.linspace(BOOK_LOW[1], BOOK_HIGH[1], GRID).tolist(),
               "panels": {name: {"last_episode_steps": int(steps), "max_cost_to_go": float(grid.max()),
                                 "cost_to_go": grid.tolist()} for name, (steps, grid) in panels.items()}}
    return StudyResult(draw(numbers), numbers, markdown)


def draw(numbers: dict[str, Any]) -> Figure:
    """One 3-D surface per panel, as the book draws them."""
    figure = Figure(figsize=(13, 8), layout="constrained")
    positions, velocities = np.meshgrid(numbers["grid_positions"], numbers["grid_velocities"])
    for index, (name, panel) in enumerate(numbers["panels"].items()):
        axis = figure.add_subplot(2, 3, index + 1, projection="3d")
        axis.plot_surface(positions, velocities, np.array(panel["cost_to_go"]), cmap="viridis", linewidth=0)
        axis.set_title(f"{name} (max {panel['max_cost_to_go']:.0f})", fontsize=10)
        axis.set_xlabel("position")
        axis.set_ylabel("velocity")
    figure.suptitle(f"Figure 10.1: Mountain Car cost-to-go, −max_a q̂(s, a), one run, alpha = {numbers['alpha']:g}")
    return figure


def markdown(numbers: dict, command: str, png: str) -> str:
    """The README snippet: the command, and the heights beside the book's panels."""
    heights = ", ".join(f"{name}: {panel['max_cost_to_go']:.0f}" for name, panel in numbers["panels"].items())
    return f"""### Figure 10.1: the cost-to-go of one run

```bash
{command}
```

![Figure 10.1]({png})

One run ({timing(numbers)}); {numbers['capped_episodes']} episodes cut at {numbers['episode_cap']:,} steps.
The largest cost-to-go of each panel: {heights}. The book's panels rise from a few units after 428 steps (the
optimistic zero weights pushed down only where the car has been) to about 100-120 after 9,000 episodes, a
spiral ridge around the valley's floor.
"""


def build_parser() -> argparse.ArgumentParser:
    """The script's options."""
    first = option("--first-steps", type=at_most(positive_int, MAX_CAP), default=FIRST_STEPS,
                   help="steps of the first panel")
    checkpoints = option("--checkpoints", type=episode_list, default=EPISODES,
                         help="episodes after which the other panels are drawn")
    return mountain_car_parser(__doc__, first, checkpoints, runs=None, episodes=None, alpha=0.5 / 8)


def main(argv: list[str] | None = None) -> int:
    """Parse `argv`, run the study, write its figure, numbers and snippet."""
    return run_study(STEM, __file__, argv, build_parser(), compute)


if __name__ == "__main__":
    sys.exit(main())
