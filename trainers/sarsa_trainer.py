"""Train SARSA on tic-tac-toe against an opponent (the course's SARSA_Trainer, as rltorch).

On-policy TD control: the next action A' is chosen epsilon-greedily in S' before Q(S, A) moves
toward R + gamma * Q(S', A'). Run with --help for every option.
"""

import sys

from rltorch.run.cli import train


def main(argv: list[str] | None = None) -> int:
    """Run SARSA with the given command-line arguments."""
    return train(argv, "rltorch/TicTacToe-v0", "sarsa", __doc__)


if __name__ == "__main__":
    sys.exit(main())
