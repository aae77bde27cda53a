"""Train SARSA on tic-tac-toe against an opponent (the course's SARSA_Trainer, as rltorch).

On-policy TD control: the next action A' is chosen epsilon-greedily in S' before Q(S, A) moves
toward R + gamma * Q(S', A'). Run with --help for every option.
"""

import sys

from rltorch.run.options import script_main


def main(argv: list[str] | None = None) -> int:
    """Run SARSA with the given command-line arguments."""
    return script_main("sarsa", __doc__, argv)


if __name__ == "__main__":
    sys.exit(main())
