"""Train Monte Carlo control on tic-tac-toe against an opponent (the course's MC_Trainer, as rltorch).

Each game is played to the end epsilon-greedily; then every (first-)visited key moves toward
the discounted return that followed it. Run with --help for every option.
"""

import sys

from rltorch.run.cli import train


def main(argv: list[str] | None = None) -> int:
    """Run Monte Carlo control with the given command-line arguments."""
    return train(argv, "rltorch/TicTacToe-v0", "mc", __doc__)


if __name__ == "__main__":
    sys.exit(main())
