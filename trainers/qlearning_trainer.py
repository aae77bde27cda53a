"""Train Q-learning on tic-tac-toe against an opponent (the course's first exercise).

Off-policy TD control: Q(S, A) moves toward R + gamma * max over legal a of Q(S', a), whatever
the behaviour policy does next. Run with --help for every option.
"""

import sys

from rltorch.run.cli import train


def main(argv: list[str] | None = None) -> int:
    """Run Q-learning with the given command-line arguments."""
    return train(argv, "rltorch/TicTacToe-v0", "qlearning", __doc__)


if __name__ == "__main__":
    sys.exit(main())
