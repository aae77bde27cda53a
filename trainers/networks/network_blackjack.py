"""Blackjack with a Q network: the same trainers, the table swapped for an MLP in one line.

Learns Q(s, a) with a `QNetwork` (one output per action over one-hot features of the player sum,
the dealer card and the usable ace) by on-policy Monte Carlo (or --algo qlearning), and reports
the exact expected return of its greedy policy from the DP oracle, against the optimum -0.0465560.
A preset of `rltorch train --env rltorch/Blackjack-v0`: every option of that command applies.
"""

import sys

from rltorch.run.cli import train


def main(argv: list[str] | None = None) -> int:
    """Train a network on blackjack with the study's defaults."""
    return train(argv, "rltorch/Blackjack-v0", None, __doc__, algo="mc", value_fn="mlp", episodes=30_000, gamma=1.0,
                 epsilon_schedule="constant", epsilon_start=0.1, sample_average=True, log_every=500,
                 eval_every=5000, eval_games=1000)


if __name__ == "__main__":
    sys.exit(main())
