"""2048 on 4 x 4: TD-afterstate learning with an n-tuple network, then 1,000 greedy test games.

The fast form (`rltorch.engines.afterstate2048`: the compiled game loop, equal to rltorch's per-step
Q-learning trainer over (afterstate, reward) keys) trains the network of four 6-tuples shared over the
8 symmetries (alpha 0.1 of the TD error per update, no exploration: the tiles' randomness explores) for
--games games, then plays --test-games greedy games from the fixed --test-seed. The figure: the training
curve (mean score and the share of games reaching 2048 and 4096, per block of games). Szubert & Jaśkowski
(2014) report 97% of games reaching 2048 with TD-afterstate and an n-tuple network.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

import numpy as np
from matplotlib.figure import Figure

from rltorch.run.options import make_parser
from rltorch.run.studies import StudyResult, run_study, table, timing
from trainers.game2048.training import add_outputs, add_training_options, curve, summary, test, train

STEM = "game2048_ntuple_4x4"
PUBLISHED_2048 = 0.97


def draw(points: dict[str, list[float]], numbers: dict[str, Any]) -> Figure:
    """The training curve: mean score per block (left) and the shares reaching 2048 and 4096 (right)."""
    figure = Figure(figsize=(10, 4), layout="constrained")
    left, right = figure.subplots(1, 2)
    games = np.array(points["games"])
    score, error = np.array(points["score"]), np.array(points["score_standard_error"])
    left.plot(games, score)
    left.fill_between(games, score - error, score + error, alpha=0.3)
    left.set_xlabel("training games")
    left.set_ylabel("mean score per block (± s.e.)")
    right.plot(games, 100 * np.array(points["reach_2048"]), label="reached 2048")
    right.plot(games, 100 * np.array(points["reach_4096"]), label="reached 4096")
    right.axhline(100 * PUBLISHED_2048, color="black", linestyle="--", linewidth=1, label="published 2048 share")
    right.set_ylim(0, 100)
    right.set_xlabel("training games")
    right.set_ylabel("% of the block's games")
    right.legend()
    figure.suptitle(f"2048, 4x4: TD-afterstate, n-tuple network, alpha {numbers['alpha']:g}, seed {numbers['seed']}")
    return figure


def compute(args: argparse.Namespace) -> StudyResult:
    """Train, test, and draw the curve."""
    network, results = train(args, 4)
    points = curve(results, args.block)
    numbers = {"size": 4, "games": args.games, "block": args.block, "alpha": args.alpha, "seed": args.seed,
               "tuples": [list(cells) for cells in network.tuples], "training_moves": int(results[:, 2].sum()),
               "last_block": summary(results[-args.block:]), "test": test(network, args), "curve": points}
    curves = {f"train/{name}": (points["games"], points[name])
              for name in ("score", "reach_2048", "reach_4096", "td_error")}
    return StudyResult(draw(points, numbers), numbers, markdown, curves)


def markdown(numbers: dict[str, Any], command: str, png: str) -> str:
    """The README snippet: command, timing, the test table against the published share."""
    test = numbers["test"]
    rows = [[f"{test['games']:,} greedy games, test seed {test['seed']}",
             f"{test['reach_2048']['mean']:.1%} ± {test['reach_2048']['standard_error'] or 0:.1%}",
             f"{test['reach_4096']['mean']:.1%} ± {test['reach_4096']['standard_error'] or 0:.1%}",
             f"{test['score']['mean']:,.0f} ± {test['score']['standard_error'] or 0:,.0f}"],
            ["Szubert & Jaśkowski 2014 (TD-afterstate, n-tuples)", f"{PUBLISHED_2048:.0%}", "-", "-"]]
    return f"""```bash
{command}
```

![2048 training curve]({png})

{numbers['games']:,} training games ({numbers['training_moves']:,} moves; {timing(numbers)}).

{table(["agent", "reached 2048", "reached 4096", "mean score"], rows)}
"""


def build_parser() -> argparse.ArgumentParser:
    """The script's options."""
    parser = make_parser(__doc__)
    add_training_options(parser, games=100_000, block=1000)
    return add_outputs(parser, STEM)


def main(argv: list[str] | None = None) -> int:
    """Parse `argv`, train and test, write the figure, numbers and snippet."""
    return run_study(STEM, __file__, argv, build_parser(), compute)


if __name__ == "__main__":
    sys.exit(main())
