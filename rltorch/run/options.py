"""Argument types and parsers every script shares: checked numbers, no abbreviations, honest help text."""

from __future__ import annotations

import argparse
import ast
import math
import os
from collections.abc import Callable, Collection
from pathlib import Path
from typing import Any, NoReturn

MAX_EPISODES = 10**10  # a run's episodes (a day or more at 100,000 episodes a second); also its decay and intervals
MAX_GAMES = 10**8  # greedy episodes of one evaluation or of the final test


class HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Shows a default once, and only where there is one (no "(default: None)")."""

    def _get_help_string(self, action: argparse.Action) -> str:
        """The option's help with its default appended when it has a real one."""
        text = action.help or ""
        default = action.default
        if "%(default)" in text or default in (None, False, argparse.SUPPRESS) or action.required:
            return text
        shown = " ".join(map(str, default)) if isinstance(default, (list, tuple)) else default
        return f"{text} (default: {shown})"


class ArgumentParser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are one line on stderr (and exit status 2), never a usage dump."""

    def error(self, message: str) -> NoReturn:
        """Print `prog: error: message (see --help)` and exit with status 2."""
        self.exit(2, f"{self.prog}: error: {message} (see --help)\n")


def make_parser(description: str | None, **kwargs: Any) -> ArgumentParser:
    """An ArgumentParser with the shared formatter, one-line errors and no prefix abbreviations of option names."""
    kwargs.setdefault("formatter_class", HelpFormatter)
    return ArgumentParser(description=description, allow_abbrev=False, **kwargs)


def _number(text: str) -> float:
    """Parse a finite number (underscores allowed: 2_000_000)."""
    try:
        value = float(text.replace("_", ""))
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number, got {text!r}") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"must be a finite number, got {text!r}")
    return value


def _whole(text: str, minimum: int) -> int:
    """Parse a whole number >= `minimum`; scientific notation such as 1e5 is accepted."""
    value = _number(text)
    if value != int(value) or value < minimum:
        raise argparse.ArgumentTypeError(f"must be a whole number >= {minimum}, got {text!r}")
    return int(value)


def integer(text: str) -> int:
    """Parse a whole number (1e3 accepted)."""
    value = _number(text)
    if value != int(value):
        raise argparse.ArgumentTypeError(f"must be a whole number, got {text!r}")
    return int(value)


def positive_int(text: str) -> int:
    """Parse an integer >= 1 (1e5 accepted)."""
    return _whole(text, 1)


def non_negative_int(text: str) -> int:
    """Parse an integer >= 0 (1e5 accepted); seeds are non-negative integers."""
    return _whole(text, 0)


def finite_float(text: str) -> float:
    """Parse a finite float."""
    return _number(text)


def positive_float(text: str) -> float:
    """Parse a finite float > 0."""
    value = _number(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be > 0, got {text!r}")
    return value


def unit_float(text: str) -> float:
    """Parse a float in [0, 1]."""
    value = _number(text)
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"must be in [0, 1], got {text!r}")
    return value


def step_size(text: str) -> float:
    """Parse a step size in (0, 1]."""
    value = _number(text)
    if not 0.0 < value <= 1.0:
        raise argparse.ArgumentTypeError(f"must be in (0, 1], got {text!r}")
    return value


def at_most(parse: Callable[[str], Any], maximum: float) -> Callable[[str], Any]:
    """`parse`, then refuse values above `maximum` (every numeric option has a sane upper bound)."""

    shown = f"{int(maximum):,}" if float(maximum).is_integer() else f"{maximum:g}"

    def bounded(text: str) -> Any:
        value = parse(text)
        if value > maximum:
            raise argparse.ArgumentTypeError(f"must be at most {shown}, got {text!r}")
        return value

    bounded.__name__ = bounded.__qualname__ = f"{parse.__name__}_at_most_{maximum:g}"
    bounded.__doc__ = f"{parse.__doc__} At most {maximum:g}."
    bounded.base, bounded.maximum = parse, maximum  # what tests and help read back
    return bounded


def key_value(text: str) -> tuple[str, Any]:
    """Parse KEY=VALUE; the value as a Python literal (1, 0.5, True, 'x') or else as plain text."""
    key, sep, value = text.partition("=")
    if not sep or not key.isidentifier():
        raise argparse.ArgumentTypeError(f"must be KEY=VALUE with KEY a Python name, got {text!r}")
    try:
        return key, ast.literal_eval(value)
    except (ValueError, SyntaxError):
        return key, value


def name_or_module_class(names: Collection[str]) -> Callable[[str], str]:
    """A parser of one of `names` (a registry, read when parsing), or `module:Class` (imported later, if typed)."""

    def name(text: str) -> str:
        module, sep, attribute = text.rpartition(":")
        if text in names or (sep and module and attribute.isidentifier()
                             and all(part.isidentifier() for part in module.split("."))):
            return text
        raise argparse.ArgumentTypeError(f"must be one of {', '.join(names)}, or module:Class, got {text!r}")

    return name


def writable_file(text: str) -> Path:
    """A file path whose folder exists or can be made and takes a new file (probed, then cleaned up)."""
    path = Path(text)
    if path.is_dir() or text.endswith(("/", os.sep)):
        raise argparse.ArgumentTypeError(f"{text} is a directory, not a file")
    check_writable_folder(path.parent)
    return path


def writable_folder(text: str) -> Path:
    """A folder that exists or can be made, and takes a new file (probed, then cleaned up)."""
    path = Path(text)
    check_writable_folder(path)
    return path


def check_writable_folder(folder: Path) -> None:
    """Fail with a message naming the real problem unless a file can be created in `folder` (nothing is left)."""
    existing = folder
    while not existing.exists():
        existing = existing.parent
    if not existing.is_dir():
        raise argparse.ArgumentTypeError(f"{existing} is not a directory")
    if not os.access(existing, os.W_OK | os.X_OK):
        raise argparse.ArgumentTypeError(f"{existing} is not writable")
    if folder.exists():
        probe = folder / f".rltorch-probe-{os.getpid()}"
        try:
            probe.touch()
            probe.unlink()
        except OSError as error:
            raise argparse.ArgumentTypeError(f"cannot write in {folder}: {error.strerror}") from None


def add_output_options(
    parser: argparse.ArgumentParser, log_every: int, eval_every: int, eval_games: int, test_games: int | None = None
) -> None:
    """The run-folder, logging, evaluation, checkpoint and JSON options every trainer script shares."""
    output = parser.add_argument_group("output")
    output.add_argument("--run-name", help="run folder name (default: env__algo__seed__time__tag, unique)")
    output.add_argument("--log-dir", type=writable_folder, default=Path("runs"), help="TensorBoard root folder")
    output.add_argument("--log-every", type=at_most(positive_int, MAX_EPISODES), default=log_every,
                        help="episodes per logged block")
    output.add_argument("--eval-every", type=at_most(non_negative_int, MAX_EPISODES), default=eval_every,
                        help="episodes between evaluations (0: none; a run also evaluates at its end)")
    output.add_argument("--eval-games", type=at_most(positive_int, MAX_GAMES), default=eval_games,
                        help="greedy episodes per evaluation")
    if test_games is not None:
        output.add_argument("--test-games", type=at_most(positive_int, MAX_GAMES), default=test_games,
                            help="greedy episodes of the final test")
    output.add_argument("--checkpoint", type=writable_file, help="checkpoint path (default: checkpoints/<run>.pt)")
    output.add_argument("--json", type=writable_file, help="write the final metrics to this JSON file")
    output.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    output.add_argument("--resume", type=existing_file, metavar="CKPT",
                        help="continue this checkpoint's run (its settings, run folder and checkpoint) up to "
                             "--episodes in all")
    output.add_argument("--overwrite", action="store_true",
                        help="allow writing into an existing run folder or over an existing checkpoint")


def existing_file(text: str) -> Path:
    """A path to an existing file."""
    path = Path(text)
    if path.is_dir():
        raise argparse.ArgumentTypeError(f"{path} is a directory, not a file")
    if not path.exists():
        raise argparse.ArgumentTypeError(f"{path} does not exist")
    return path


def parse(parser: argparse.ArgumentParser, argv: list[str] | None, check: Callable[[Any], None] | None = None) -> Any:
    """Parse `argv`; `check(args)` may raise ValueError for a combination of options, reported like argparse's."""
    args = parser.parse_args(argv)
    if check is not None:
        try:
            check(args)
        except ValueError as error:
            parser.error(str(error))
    return args
