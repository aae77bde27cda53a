"""What every study script shares: its options, its one-line refusals, and the one way it runs (`run_study`).

A study script is `compute(args)` (which draws its figure) and a parser. `compute` returns a `StudyResult`
(its figure, its numbers, its averaged curves and a Markdown snippet); `run_study` parses the options, times
the computation and writes the PNG, the JSON and the Markdown into the run folder under `--log-dir` (and into
`--out`: `--out docs --overwrite` regenerates a document's copy), and the curves, the figure and the numbers
to TensorBoard. An existing --run-name folder or output file is refused unless --overwrite. Under torchrun
the runs are sharded over the ranks (`rltorch.run.many_runs`): every rank computes its share and gets every
run's result, so the numbers are the same whatever the number of ranks; only rank 0 writes and prints.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from matplotlib.figure import Figure

from rltorch import parallel
from rltorch.errors import RLTorchError
from rltorch.logger import TensorBoardLogger
from rltorch.run.options import (
    at_most,
    make_parser,
    non_negative_int,
    positive_float,
    positive_int,
    step_size,
    unit_float,
    writable_file,
    writable_folder,
)
from rltorch.run.output import run_cli, run_name
from rltorch.run.plots import save_png
from rltorch.run.session import check_run_name

Curve = tuple[Sequence[float], Sequence[float]]  # (x values, y values)
# Upper bounds of the options (sane far past the book's settings, and below anything that overflows).
MAX_RUNS, MAX_EPISODES, MAX_SEED, MAX_DPI, MAX_TIMEOUT_S = 100_000, 100_000, 2**32 - 1, 600, 86_400.0
SEED = at_most(non_negative_int, MAX_SEED)
OVERWRITE_HELP = "allow writing into an existing --run-name folder or over the files in --out"


@dataclass
class StudyResult:
    """What a study computed: its figure, its numbers (JSON-ready), its curves by TensorBoard tag, and a writer of
    its Markdown snippet (given the numbers with the timing added, the command and the PNG's path)."""

    figure: Figure
    numbers: dict[str, Any]
    markdown: Callable[[dict[str, Any], str, str], str]
    curves: dict[str, Curve] = field(default_factory=dict)


def study_parser(description: str | None, *, runs: int | None, episodes: int | None, alpha: float | None = None,
                 epsilon: float | None = None, max_runs: int = MAX_RUNS,
                 max_episodes: int = MAX_EPISODES) -> argparse.ArgumentParser:
    """A parser with the options every study shares: --runs, --episodes, --alpha, --epsilon (those given defaults),
    the seed and the outputs."""
    parser = make_parser(description)
    if runs is not None:
        parser.add_argument("--runs", type=at_most(positive_int, max_runs), default=runs,
                            help="independent runs averaged")
    if episodes is not None:
        parser.add_argument("--episodes", type=at_most(positive_int, max_episodes), default=episodes,
                            help="episodes per run")
    if alpha is not None:
        parser.add_argument("--alpha", type=step_size, default=alpha, help="step size")
    if epsilon is not None:
        parser.add_argument("--epsilon", type=unit_float, default=epsilon, help="exploration rate")
    parser.add_argument("--seed", type=SEED, default=0, help="base seed: each run's seed is drawn from it")
    add_study_outputs(parser, "also write the PNG, the JSON and the Markdown snippet into this folder (e.g. docs)",
                      "study__seed__time__tag, unique")
    return parser


def add_study_outputs(parser: argparse.ArgumentParser, out_help: str, run_name: str,
                      overwrite_help: str = OVERWRITE_HELP, ranks: bool = True) -> argparse._ArgumentGroup:
    """A study's output options (--out, --json, --log-dir, --run-name, --dpi, --no-progress, --overwrite) and,
    with `ranks`, --dist-timeout; return the output group (a study adds its own outputs to it)."""
    output = parser.add_argument_group("output")
    output.add_argument("--out", type=writable_folder, help=out_help)
    output.add_argument("--json", type=writable_file, help="write the numbers to this JSON file")
    output.add_argument("--log-dir", type=writable_folder, default=Path("runs"), help="TensorBoard root folder")
    output.add_argument("--run-name", help=f"run folder name (default: {run_name})")
    output.add_argument("--dpi", type=at_most(positive_int, MAX_DPI), default=150, help="resolution of the PNGs")
    output.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    output.add_argument("--overwrite", action="store_true", help=overwrite_help)
    if ranks:
        group = parser.add_argument_group("ranks (under torchrun)")
        group.add_argument("--dist-timeout", type=at_most(positive_float, MAX_TIMEOUT_S),
                           default=parallel.DEFAULT_TIMEOUT_S,
                           help="seconds a rank waits for the others before it stops with one line")
    return output


def refuse_overwrite(args: argparse.Namespace, files: Sequence[str]) -> None:
    """Unless --overwrite, refuse in one line an existing --run-name folder or an existing one of `files` in --out.

    Called before any work (every rank checks; nothing is written).
    """
    if args.run_name is not None:
        check_run_name(args.run_name)
    if args.overwrite:
        return
    paths = ([args.log_dir / args.run_name] if args.run_name else []) + [args.out / name for name in files
                                                                          if args.out]
    taken = [path for path in paths if path.exists()]
    if taken:
        raise RLTorchError(f"{taken[0]} exists: choose another --run-name or --out, or pass --overwrite")


def command_line(script: str, argv: Sequence[str]) -> str:
    """The shell command that ran `script` with `argv`: its path from the folder that holds its top package
    (`package/subpackage/script.py`), as run from there."""
    path = Path(script).resolve()
    root = path.parent
    while (root / "__init__.py").exists():
        root = root.parent
    return shlex.join(["python", path.relative_to(root).as_posix(), *argv])


def run_study(stem: str, script: str, argv: Sequence[str] | None, parser: argparse.ArgumentParser,
              compute: Callable[[argparse.Namespace], StudyResult]) -> int:
    """Parse `argv`, run `compute(args)` timed, write its outputs; one-line errors, exit status 1 on a file problem.

    Under torchrun every rank computes (its share of the runs) and only rank 0 writes and prints.
    """
    argv = list(sys.argv[1:] if argv is None else argv)
    args = parser.parse_args(argv)
    return run_cli(lambda: _run(stem, command_line(script, argv), args, compute))


def _run(stem: str, command: str, args: argparse.Namespace,
         compute: Callable[[argparse.Namespace], StudyResult]) -> int:
    """Refuse to overwrite, join the ranks, make the folders, compute, and write everything (rank 0 alone writes)."""
    refuse_overwrite(args, [f"{stem}.{kind}" for kind in ("png", "json", "md")])
    with parallel.joined(timeout_s=args.dist_timeout) as ranks:
        return _run_rank(stem, command, args, compute, ranks.world)


def _run_rank(stem: str, command: str, args: argparse.Namespace,
              compute: Callable[[argparse.Namespace], StudyResult], world: int) -> int:
    """Compute on this rank; on rank 0, write the outputs and print the snippet."""
    folder = args.log_dir / (args.run_name or run_name(stem, "study", args.seed))
    if parallel.is_rank0():
        folder.mkdir(parents=True, exist_ok=True)
        if args.out:
            args.out.mkdir(parents=True, exist_ok=True)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
    start, cpu_start = time.perf_counter(), time.process_time()
    result = compute(args)
    seconds = time.perf_counter() - start
    cpu_seconds = sum(parallel.all_gather(time.process_time() - cpu_start))  # every rank's CPU time
    if not parallel.is_rank0():
        return 0
    ranks = {"ranks": world} if world > 1 else {}  # a run in one process keeps the JSON it always had
    numbers = {**result.numbers, "seconds": round(seconds, 1), "cpu_seconds": round(cpu_seconds, 1),
               "machine": {"cpus": os.cpu_count(), "load_average_at_start": load}, **ranks, "command": command}
    png = (args.out or folder) / f"{stem}.png"
    markdown = result.markdown(numbers, command, png.as_posix())
    paths = _write_files(folder, stem, result.figure, numbers, markdown, args)
    _log(folder, stem, result, numbers)
    print(markdown)
    over = f" over {world} ranks" if world > 1 else ""
    print(f"{seconds:.1f} s ({cpu_seconds:.1f} s of CPU time{over}); wrote " + ", ".join(map(str, paths)))
    return 0


def _write_files(folder: Path, stem: str, figure: Figure, numbers: dict[str, Any], markdown: str,
                 args: argparse.Namespace) -> list[Path]:
    """The PNG, JSON and Markdown in the run folder (and in --out), and the JSON at --json."""
    text = json.dumps(numbers, indent=2, default=str) + "\n"
    paths = []
    for target in (folder, args.out) if args.out else (folder,):
        paths.append(save_png(figure, target / f"{stem}.png", args.dpi))
        paths.append(target / f"{stem}.json")
        paths[-1].write_text(text)
        paths.append(target / f"{stem}.md")
        paths[-1].write_text(markdown)
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(text)
        paths.append(args.json)
    return paths


def _log(folder: Path, stem: str, result: StudyResult, numbers: dict[str, Any]) -> None:
    """The curves as TensorBoard scalars, the figure as an image and the numbers as text."""
    logger = TensorBoardLogger(folder)
    for tag, (xs, ys) in result.curves.items():
        for x, y in zip(xs, ys, strict=True):
            logger.scalar(tag, float(y), int(x))
    logger.figure(f"figures/{stem}", result.figure)
    logger.text("numbers", f"```\n{json.dumps(numbers, indent=2, default=str)}\n```")
    logger.close()


def table(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """A Markdown table."""
    lines = ["| " + " | ".join(header) + " |", "| " + " | ".join("---" for _ in header) + " |"]
    lines += ["| " + " | ".join(str(cell) for cell in row) + " |" for row in rows]
    return "\n".join(lines)


def timing(numbers: dict[str, Any]) -> str:
    """How long the run took and on what, honestly: wall and CPU time, the CPU count and the load when it started."""
    machine = numbers["machine"]
    load = machine["load_average_at_start"]
    shared = f", load average {load:.1f} at the start" if load is not None else ""
    if load is not None and load >= machine["cpus"] / 2:
        shared += ": the machine was shared with other jobs"
    ranks = f" over {numbers['ranks']} ranks" if numbers.get("ranks", 1) > 1 else ""
    return (f"{numbers['seconds']:.0f} s wall-clock, {numbers['cpu_seconds']:.0f} s of CPU time{ranks}, on "
            f"{machine['cpus']} CPU cores{shared}")
