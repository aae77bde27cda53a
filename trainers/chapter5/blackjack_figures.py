"""Draw Sutton & Barto's Figure 5.1, 5.2 or 5.3 with rltorch's Monte Carlo trainers.

5.1: first-visit MC prediction of stick-on-20 after 10,000 and 500,000 episodes, beside the exact v_pi
(3-D surfaces and heatmaps). 5.2: the policy and values MC ES finds, beside pi* and v*. 5.3: the
mean squared error of ordinary and weighted importance sampling over 100 runs of 10,000 episodes,
beside its exact expectation.
The PNGs go into the run folder under --log-dir (also logged to TensorBoard as images) and into --out
(`--out docs --overwrite` regenerates the README's); an existing --run-name folder or PNG in --out is refused
unless --overwrite.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import time
from pathlib import Path
from typing import Any

from rltorch.logger import TensorBoardLogger
from rltorch.run.options import at_most, make_parser, non_negative_int, positive_int
from rltorch.run.output import run_cli, run_name
from rltorch.run.plots import save_png
from rltorch.run.studies import add_study_outputs, refuse_overwrite
from trainers.chapter5.figures import figure_5_1, figure_5_2, figure_5_3

FIGURES = ("5.1", "5.2", "5.3")
PNGS = {"5.1": ("figure_5_1", "figure_5_1_heatmaps"), "5.2": ("figure_5_2",), "5.3": ("figure_5_3",)}  # file stems
# Upper bounds of the options (far past the book's settings, below anything that overflows).
MAX_EPISODES, MAX_RUNS, MAX_SEED = 10**9, 100_000, 2**32 - 1


def episode_counts(text: str) -> tuple[int, ...]:
    """Parse a comma-separated list of positive episode counts such as 10000,500000 (each at most MAX_EPISODES)."""
    try:
        counts = tuple(int(part) for part in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be episode counts such as 10000,500000, got {text!r}") from None
    if not counts or min(counts) < 1:
        raise argparse.ArgumentTypeError(f"episode counts must be positive, got {text!r}")
    if max(counts) > MAX_EPISODES:
        raise argparse.ArgumentTypeError(f"episode counts must be at most {MAX_EPISODES:,}, got {text!r}")
    return counts


def build_parser() -> argparse.ArgumentParser:
    """The script's options."""
    parser = make_parser(__doc__)
    parser.add_argument("--figure", choices=FIGURES, required=True, help="which figure of chapter 5")
    parser.add_argument("--seed", type=at_most(non_negative_int, MAX_SEED), default=0,
                        help="base seed (5.3: each run's seed is drawn from it)")
    parser.add_argument("--snapshots", type=episode_counts, default=(10_000, 500_000),
                        help="5.1: episode counts to draw V at")
    parser.add_argument("--episodes", type=at_most(positive_int, MAX_EPISODES),
                        help="5.2: MC ES episodes (default 2,000,000); 5.3: episodes per run (default 10,000)")
    parser.add_argument("--runs", type=at_most(positive_int, MAX_RUNS), default=100,
                        help="5.3: independent runs averaged")
    add_study_outputs(parser, "also copy the PNGs into this folder (e.g. docs)", "Blackjack-v0__figure-5.x__seed__time",
                      overwrite_help="allow writing into an existing --run-name folder or over the PNGs in --out",
                      ranks=False)
    return parser


def make_figure(args: argparse.Namespace) -> tuple[dict[str, Any], dict]:
    """Run the figure's experiment; return its figures by file stem and its numbers."""
    if args.figure == "5.1":
        return figure_5_1(args.snapshots, args.seed, not args.no_progress)
    if args.figure == "5.2":
        return figure_5_2(args.episodes or 2_000_000, args.seed, not args.no_progress)
    return figure_5_3(args.runs, args.episodes or 10_000, args.seed, not args.no_progress)


def save_figures(figures: dict[str, Any], folder: Path, dpi: int, logger: TensorBoardLogger) -> list[Path]:
    """Write each figure as a small PNG into `folder` and log it to TensorBoard as an image."""
    paths = []
    for stem, figure in figures.items():
        path = folder / f"{stem}.png"
        save_png(figure, path, dpi)
        logger.figure(f"figures/{stem}", figure)
        paths.append(path)
    return paths


def draw(args: argparse.Namespace) -> int:
    """Draw the figure, save and log it; refuse to overwrite first (before any work)."""
    refuse_overwrite(args, [f"{stem}.png" for stem in PNGS[args.figure]])
    folder = args.log_dir / (args.run_name or run_name("Blackjack-v0", f"figure-{args.figure}", args.seed))
    folder.mkdir(parents=True, exist_ok=True)
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    figures, numbers = make_figure(args)
    numbers["seconds"] = round(time.perf_counter() - start, 1)
    logger = TensorBoardLogger(folder)
    paths = save_figures(figures, folder, args.dpi, logger)
    logger.text("figure", f"```\n{json.dumps(numbers, indent=2, default=str)}\n```")
    logger.close()
    if args.out:
        paths += [Path(shutil.copy(path, args.out / path.name)) for path in list(paths)]
    print(json.dumps(numbers, indent=2, default=str))
    print("wrote " + ", ".join(map(str, paths)))
    if args.json:
        args.json.write_text(json.dumps(numbers, indent=2, default=str) + "\n")
    return 0


def main(argv: list[str] | None = None) -> int:
    """Parse `argv`, draw the figure, save and log it; errors are one line and exit status 1."""
    args = build_parser().parse_args(argv)
    return run_cli(lambda: draw(args))


if __name__ == "__main__":
    sys.exit(main())
