"""Scripts on top of rltorch: the tic-tac-toe trainers, and one package per study (run one as a file or with -m)."""
