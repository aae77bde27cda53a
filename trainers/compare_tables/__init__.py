"""A table of state-action values against a table of afterstate values on tic-tac-toe."""
