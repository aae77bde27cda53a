"""`python -m rltorch train | evaluate | play | plot` (the same as the `rltorch` command)."""

import sys

from rltorch.run.cli import main

if __name__ == "__main__":
    sys.exit(main())
