"""Kill checkpoint saves at random moments: the checkpoint must always be whole, and killed saves' temp files go.

A helper process (the zygote) imports rltorch once, then forks one saver at a time. Each saver resumes the
tic-tac-toe SARSA run from the checkpoint (when there is one), then trains a few episodes and saves, again
and again, so the table grows from save to save; after its first save it reports how many temporary files
of the checkpoint it still finds (orphans of killed saves that the save should have removed). This process
SIGKILLs each saver after a seeded random delay, then checks that the checkpoint is absent (no save yet) or
loads with `load_checkpoint`, with at least as many episodes as before.
Usage: python bench/save_kills.py [--kills 200] [--seed 0] [--max-delay 0.05] [--json PATH]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import selectors
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rltorch.run.options import at_most, make_parser, non_negative_int, positive_int, unit_float, writable_file

EPISODES_PER_SAVE = 5
REPLY_TIMEOUT = 20.0


def temp_files(path: Path, pid: int | None = None) -> list[Path]:
    """The temporary files of saves of `path` (of process `pid` only, when given)."""
    prefix = f".{path.name}." + ("" if pid is None else f"{pid}.")
    return [entry for entry in path.parent.iterdir() if entry.name.startswith(prefix) and entry.name.endswith(".tmp")]


def saver(path: Path, seed: int) -> None:
    """Resume the run from `path` if it exists, then train and save until killed; report after the first save."""
    from rltorch import QTable, SARSATrainer
    from rltorch.checkpoints import load_checkpoint
    from rltorch.envs.tictactoe.env import TicTacToeEnv

    trainer = SARSATrainer(TicTacToeEnv(), QTable(alpha=0.2), seed=seed)
    if path.exists():
        trainer.restore(load_checkpoint(path))
    reported, zygote_pid = False, os.getppid()
    while os.getppid() == zygote_pid:  # a saver whose zygote is gone (the bench stopped) stops too
        trainer.train(EPISODES_PER_SAVE, progress=False, eval_every=0)
        trainer.save(path)
        if not reported:
            os.write(1, f"saved {trainer.episodes_done} {len(temp_files(path))}\n".encode())
            reported = True


def zygote(path: Path) -> None:
    """Serve `fork SEED`, `reap` and `quit` on stdin: fork a saver, wait for the killed one, stop."""
    from rltorch import QTable, SARSATrainer
    from rltorch.envs.tictactoe.env import TicTacToeEnv

    SARSATrainer(TicTacToeEnv(), QTable())  # import and warm up once, before forking

    child = None
    for line in sys.stdin.buffer:
        command, *rest = line.decode().split()
        if command == "fork":
            child = os.fork()
            if child == 0:
                try:
                    saver(path, int(rest[0]))
                except BaseException as error:  # a saver that fails says so, and the bench counts it
                    os.write(1, f"error {type(error).__name__}: {error}\n".replace("\n", " ").encode() + b"\n")
                os._exit(1)
            os.write(1, f"pid {child}\n".encode())
        elif command == "reap" and child is not None:
            _, status = os.waitpid(child, 0)
            os.write(1, f"reaped {child} {status}\n".encode())
            child = None
        elif command == "quit":
            return


class Replies:
    """Lines from the zygote and its savers, read with a timeout."""

    def __init__(self, process: subprocess.Popen) -> None:
        self.process, self.buffer = process, b""
        self.selector = selectors.DefaultSelector()
        self.selector.register(process.stdout, selectors.EVENT_READ)

    def next(self, timeout: float = REPLY_TIMEOUT) -> str | None:
        """The next line, or None if none comes within `timeout` seconds."""
        deadline = time.monotonic() + timeout
        while b"\n" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not self.selector.select(left):
                return None
            chunk = os.read(self.process.stdout.fileno(), 65536)
            if not chunk:
                return None
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        return line.decode()

    def until(self, prefix: str, seen: list[str], timeout: float = REPLY_TIMEOUT) -> str | None:
        """Read lines into `seen` until one starts with `prefix` (or reports a saver's error); None on a timeout."""
        while True:
            line = self.next(timeout)
            if line is None:
                return None
            seen.append(line)
            if line.startswith((prefix, "error")):
                return line


def check_file(path: Path, saved_before: bool, episodes_before: int) -> tuple[str | None, int]:
    """A problem with the checkpoint after a kill (or None), and the episodes it holds."""
    from rltorch.checkpoints import load_checkpoint
    from rltorch.errors import RLTorchError

    if not path.exists():
        return ("the checkpoint vanished after a save" if saved_before else None), episodes_before
    try:
        episodes = int(load_checkpoint(path)["episodes"])
    except RLTorchError as error:
        return f"unreadable checkpoint: {error}", episodes_before
    problem = f"episodes went back from {episodes_before} to {episodes}" if episodes < episodes_before else None
    return problem, episodes


def run_kills(kills: int = 200, seed: int = 0, folder: Path | None = None, max_delay: float = 0.05,
              enough: Callable[[dict[str, Any]], bool] | None = None, most: int | None = None) -> dict[str, Any]:
    """Kill `kills` savers after random delays in [0, max_delay] s; return what survived and what was left.

    With `enough`, kill on past `kills` (up to `most`) until `enough(result)` holds: on a slow machine the
    kills may need more tries to land inside saves, and every kill is checked the same way.
    """
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(folder or scratch) / "run.pt"
        process = subprocess.Popen([sys.executable, __file__, "--zygote", str(path)], stdin=subprocess.PIPE,
                                   stdout=subprocess.PIPE, bufsize=0)
        try:
            return _kill_loop(process, path, kills, random.Random(seed), max_delay, enough, most or kills)
        finally:
            process.kill()
            process.wait()


def _kill_loop(process: subprocess.Popen, path: Path, kills: int, rng: random.Random, delay: float,
               enough: Callable[[dict[str, Any]], bool] | None, most: int) -> dict:
    """The kills, then one last saver whose first save must find no temp files left."""
    replies, start = Replies(process), time.perf_counter()
    result: dict[str, Any] = {"kills": 0, "survived": 0, "mid_save_kills": 0, "saves_reported": 0,
                              "orphans_after_save": 0, "problems": []}
    episodes, saved = 0, False

    def send(command: str) -> None:
        process.stdin.write(f"{command}\n".encode())
        process.stdin.flush()

    def note(lines: list[str]) -> None:
        nonlocal saved
        for line in lines:
            if line.startswith("saved"):
                saved = True
                result["saves_reported"] += 1
                result["orphans_after_save"] += int(line.split()[2])
            elif line.startswith("error"):
                result["problems"].append(line)

    for index in range(max(kills, most) + 1):
        # one more saver after the kills, stopped after its first save: it reports the last kill's orphans
        last = index >= kills and (enough is None or enough({**result, "episodes": episodes}) or index >= most)
        send(f"fork {rng.randrange(2**31)}")
        seen: list[str] = []
        pid_line = replies.until("pid", seen)
        if pid_line is None or not pid_line.startswith("pid"):
            result["problems"].append("the zygote did not fork a saver")
            break
        pid = int(pid_line.split()[1])
        if last or rng.random() < 0.5:  # half the kills come after the first save, half may come before it
            replies.until("saved", seen)
        if not last:
            time.sleep(rng.uniform(0.0, delay))
        os.kill(pid, signal.SIGKILL)
        result["kills"] += not last
        send("reap")
        if replies.until("reaped", seen) is None:
            result["problems"].append(f"saver {pid} was not reaped")
            break
        note(seen)
        if last:
            break
        result["mid_save_kills"] += bool(temp_files(path, pid))
        problem, episodes = check_file(path, saved, episodes)
        if problem is not None:
            result["problems"].append(problem)
        result["survived"] += problem is None
    send("quit")
    result.update(episodes=episodes, seconds=round(time.perf_counter() - start, 2),
                  temp_files_left=len(temp_files(path)))
    return result


def build_parser() -> argparse.ArgumentParser:
    """The script's options (each number checked and bounded as it is parsed)."""
    parser = make_parser(__doc__)
    parser.add_argument("--kills", type=at_most(positive_int, 100_000), default=200, help="savers to kill")
    parser.add_argument("--seed", type=at_most(non_negative_int, 2**32 - 1), default=0,
                        help="seed of the random kill delays")
    parser.add_argument("--max-delay", type=unit_float, default=0.05, help="longest delay before a kill, s (0 to 1)")
    parser.add_argument("--json", type=writable_file, help="write the figures to this file")
    parser.add_argument("--zygote", type=Path, help=argparse.SUPPRESS)
    return parser


def main(argv: list[str] | None = None) -> dict[str, Any]:
    """Parse the options, run the kills, print the figures."""
    args = build_parser().parse_args(argv)
    if args.zygote is not None:
        zygote(args.zygote)
        return {}
    result = run_kills(args.kills, args.seed, max_delay=args.max_delay)
    print(f"kills survived: {result['survived']} / {result['kills']} ({result['mid_save_kills']} mid-save, "
          f"{result['saves_reported']} savers saved; temp files found after a save: {result['orphans_after_save']}; "
          f"{result['episodes']} episodes in the last checkpoint; {result['seconds']} s)")
    for problem in result["problems"][:10]:
        print(f"problem: {problem}")
    if args.json:
        args.json.write_text(json.dumps(result, indent=2))
    return result


if __name__ == "__main__":
    outcome = main()
    sys.exit(0 if not outcome or (outcome["survived"] == outcome["kills"] and not outcome["problems"]) else 1)
