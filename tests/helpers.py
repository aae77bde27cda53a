"""Small fixtures shared by the tests: a scripted opponent and a blackjack env with a rigged deck."""

from __future__ import annotations

import contextlib
import importlib.util
import io
import math
import os
import random
import socket
import subprocess
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from rltorch.envs.blackjack.env import HIT, STICK, BlackjackEnv


class ScriptedOpponent:
    """Plays the given cells in order (each must be legal when its turn comes)."""

    def __init__(self, moves: Sequence[int]) -> None:
        self.moves = list(moves)

    def act(self, board: Sequence[int], legal_actions: Sequence[int], rng: random.Random | None = None) -> int:
        """Return the next scripted cell."""
        move = self.moves.pop(0)
        assert move in legal_actions, f"scripted move {move} is not legal on {board}"
        return move


class RiggedBlackjackEnv(BlackjackEnv):
    """Deals the given cards in order: player, player, dealer up, dealer hidden, then every later draw."""

    def __init__(self, cards, **rules):
        super().__init__(**rules)
        self.cards = list(cards)

    def _draw(self):
        return self.cards.pop(0)


def hit_below_15_trace(env: BlackjackEnv, seed: int, hands: int) -> list:
    """Seed `env`, play `hands` hands hitting below 15, and return each hand's last (observation, reward)."""
    env.reset(seed=seed)
    trace = []
    for _ in range(hands):
        obs, _ = env.reset()
        done = False
        while not done:
            obs, reward, done, _, _ = env.step(HIT if obs[0] < 15 else STICK)
        trace.append((obs, reward))
    return trace


ROOT = Path(__file__).resolve().parents[1]


def load_script(relative: str, name: str | None = None):
    """Import a script of the repository (e.g. trainers/chapter5/blackjack_mc.py) as a module, for its main()."""
    spec = importlib.util.spec_from_file_location(name or Path(relative).stem + "_under_test", ROOT / relative)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def without_mask(result: tuple) -> tuple:
    """A reset or step result with `action_mask` left out of its info (the masks are tested in test_ecosystem.py)."""
    *head, info = result
    return (*head, {key: value for key, value in info.items() if key != "action_mask"})


def free_port() -> int:
    """A TCP port on 127.0.0.1 that is free now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def launch(command: list[str], world: int, cwd: Path, name: str) -> list[subprocess.Popen]:
    """Start `world` ranks as torchrun would (RANK, WORLD_SIZE, ... on 127.0.0.1), stderr to cwd/name.R.err."""
    port, ranks = free_port(), []
    for rank in range(world):
        env = {**os.environ, "RANK": str(rank), "WORLD_SIZE": str(world), "LOCAL_RANK": str(rank),
               "LOCAL_WORLD_SIZE": str(world), "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(port),
               "OMP_NUM_THREADS": "1"}
        with open(cwd / f"{name}.{rank}.err", "w") as err:
            ranks.append(subprocess.Popen(command, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=err))
    return ranks


def stop_all(processes: list[subprocess.Popen]) -> None:
    """Kill the ranks still running and reap them all."""
    for process in processes:
        if process.poll() is None:
            process.kill()
        process.wait(timeout=10)


def run_main(main, *args, cwd: Path) -> subprocess.CompletedProcess:
    """`main(args)` in this process as a subprocess would run it: exit status, stdout and stderr (in `cwd`)."""
    out, err, here = io.StringIO(), io.StringIO(), os.getcwd()
    try:
        os.chdir(cwd)
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                status = main([str(arg) for arg in args])
            except SystemExit as stop:
                status = stop.code if isinstance(stop.code, int) else int(stop.code is not None)
    finally:
        os.chdir(here)
    return subprocess.CompletedProcess(list(args), status, out.getvalue(), err.getvalue())


def readme_block(first_line: str) -> str:
    """The README's Python code block that starts with `first_line` (e.g. "# my_algos.py"), without that line."""
    import re

    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    return re.search(rf"```python\n{re.escape(first_line)}\n(.*?)```", readme, re.S).group(1)


def module_in_current_folder(folder: Path, name: str, code: str) -> Path:
    """Write `name`.py holding `code` in `folder` (the current folder), with a first line that touches a marker
    file when the module is imported; return the marker's path."""
    marker = folder / "IMPORTED"
    (folder / f"{name}.py").write_text(f"import pathlib\npathlib.Path({str(marker)!r}).touch()\n" + code)
    return marker


class Stream:
    """A list of numbers read in order."""

    def __init__(self, values: Sequence[float] | np.ndarray) -> None:
        self.values, self.position = np.asarray(values, dtype=float).tolist(), 0

    def next(self) -> float:
        self.position += 1
        return self.values[self.position - 1]


class RecordedRandom(random.Random):
    """`random.Random` whose draws come from a `Stream`."""

    def __init__(self, stream: Stream) -> None:
        super().__init__(0)
        self.stream = stream

    def random(self) -> float:
        return self.stream.next()

    def randrange(self, n: int) -> int:  # type: ignore[override]
        return math.floor(self.stream.next() * n)
