"""A checkpoint never makes rltorch import a module or write a path it names, through any entry point.

Each hostile file is a real checkpoint with one string changed: the env id's module (a planted module beside
the file, or a standard-library module whose import has side effects), the env of its saved run options, or
its run name (an absolute path, a parent folder). Every command that opens a checkpoint refuses it in one
line, imports nothing and writes nothing; a module the user names on the command line is imported, and
`--trust` allows the file's module.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from rltorch.checkpoints import save_checkpoint
from rltorch.run.cli import main

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = ROOT / "checkpoints" / "play_tictactoe.pt"
PLANTED = "planted_mod"
COMMANDS = {
    "evaluate": ["evaluate", "{path}"],
    "play": ["play", "--checkpoint", "{path}", "--seat", "X"],
    "figure": ["figure", "{path}", "--out", "pictures"],
    "train --resume": ["train", "--resume", "{path}", "--episodes", "5000", "--no-progress"],
}


def edited(source: Path, target: Path, env_id: str | None = None, run_env: str | None = None,
           run_name: str | None = None) -> Path:
    """`source` (a real checkpoint) saved to `target` with its env id, its run's env or its run name changed."""
    data = torch.load(source, weights_only=True)
    if env_id is not None:
        data["config"]["env_id"] = env_id
    if run_env is not None or run_name is not None:
        data.setdefault("run", {"name": "run", "args": {}})
        if run_env is not None:
            data["run"]["args"]["env"] = run_env
        if run_name is not None:
            data["run"]["name"] = run_name
    for key in ("format", "version"):
        data.pop(key)
    return save_checkpoint(target, data)


@pytest.fixture(scope="module")
def frozen_lake(tmp_path_factory) -> Path:
    """A short FrozenLake run's checkpoint, made through the command line (so it holds its run options)."""
    folder = tmp_path_factory.mktemp("frozen")
    status = main(["train", "--env", "FrozenLake-v1", "--algo", "qlearning", "--episodes", "300", "--eval-every", "0",
                   "--test-games", "10", "--no-progress", "--run-name", "lake", "--log-dir", str(folder / "runs"),
                   "--checkpoint", str(folder / "lake.pt")])
    assert status == 0
    return folder / "lake.pt"


@pytest.fixture
def planted(tmp_path, monkeypatch) -> Path:
    """A folder holding a module that leaves a marker file when imported, importable, and the current folder."""
    marker = tmp_path / "IMPORTED"
    (tmp_path / f"{PLANTED}.py").write_text(f"import pathlib\npathlib.Path({str(marker)!r}).touch()\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    yield marker
    sys.modules.pop(PLANTED, None)


def refused(argv: list[str], capsys) -> str:
    """Run the command in-process; it must fail with one line on stderr; return that line."""
    status = main(argv)
    err = capsys.readouterr().err
    assert status == 1 and err.count("\n") == 1 and "Traceback" not in err, err
    return err


def files_under(folder: Path) -> set[Path]:
    """Every path under `folder`."""
    return set(folder.rglob("*"))


@pytest.mark.parametrize("command", list(COMMANDS))
@pytest.mark.parametrize("source", ["tictactoe", "frozen_lake"])
def test_a_module_named_in_a_checkpoint_is_never_imported(command, source, frozen_lake, planted, tmp_path, capsys):
    real = SHIPPED if source == "tictactoe" else frozen_lake
    plain = "rltorch/TicTacToe-v0" if source == "tictactoe" else "FrozenLake-v1"
    for name, env_id in (("planted", f"{PLANTED}:{plain}"), ("stdlib", f"venv.__main__:{plain}"),
                         ("zen", f"this:{plain}")):
        path = edited(real, tmp_path / f"{name}.pt", env_id=env_id, run_env=env_id)
        before = files_under(tmp_path)
        err = refused([part.format(path=path) for part in COMMANDS[command]], capsys)
        module = env_id.partition(":")[0]
        assert f"module {module!r}" in err and "--trust" in err
        assert not planted.exists() and module not in sys.modules
        assert files_under(tmp_path) == before  # no venv, no run folder, no picture


def test_the_env_of_a_resumed_runs_options_is_a_second_way_in_and_is_closed(frozen_lake, planted, tmp_path, capsys):
    path = edited(frozen_lake, tmp_path / "args.pt", run_env=f"{PLANTED}:FrozenLake-v1")
    err = refused(["train", "--resume", str(path), "--episodes", "5000", "--no-progress"], capsys)
    assert f"module {PLANTED!r}" in err and not planted.exists() and PLANTED not in sys.modules


@pytest.mark.parametrize("name", ["/tmp/rltorch-hostile-run", "../outside", "..", "a/../../b", ""])
def test_a_run_name_read_from_a_checkpoint_is_one_folder_name_or_refused(name, frozen_lake, tmp_path, monkeypatch,
                                                                         capsys):
    monkeypatch.chdir(tmp_path)
    shutil.rmtree("/tmp/rltorch-hostile-run", ignore_errors=True)
    path = edited(frozen_lake, tmp_path / "work" / "named.pt", run_name=name)
    before = files_under(tmp_path)
    err = refused(["train", "--resume", str(path), "--episodes", "5000", "--no-progress"], capsys)
    assert "is not a plain folder name" in err
    assert files_under(tmp_path) == before and not Path("/tmp/rltorch-hostile-run").exists()


@pytest.mark.parametrize("name", ["/tmp/rltorch-hostile-run", "../outside", "a/b", ".."])
def test_a_run_name_on_the_command_line_is_one_folder_name(name, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    err = refused(["train", "--env", "FrozenLake-v1", "--episodes", "10", "--run-name", name], capsys)
    assert "is not a plain folder name" in err and not list(tmp_path.iterdir())


def test_a_resumed_run_writes_under_the_log_dir_of_the_command_line(frozen_lake, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    data = torch.load(frozen_lake, weights_only=True)
    data["run"]["args"]["log_dir"] = "/tmp/rltorch-hostile-logs"  # an old file's log dir is not followed
    shutil.rmtree("/tmp/rltorch-hostile-logs", ignore_errors=True)
    path = save_checkpoint(tmp_path / "lake.pt", {k: v for k, v in data.items() if k not in ("format", "version")})
    assert main(["train", "--resume", str(path), "--episodes", "400", "--no-progress", "--log-dir", "mine"]) == 0
    assert (tmp_path / "mine" / "lake").is_dir() and not Path("/tmp/rltorch-hostile-logs").exists()


def test_trust_or_naming_the_module_allows_it(frozen_lake, planted, tmp_path, capsys):
    path = edited(frozen_lake, tmp_path / "mine.pt", env_id=f"{PLANTED}:FrozenLake-v1")
    assert main(["evaluate", str(path), "--trust"]) == 0 and planted.exists()
    planted.unlink()
    sys.modules.pop(PLANTED)
    assert main(["evaluate", str(path), "--env", f"{PLANTED}:FrozenLake-v1"]) == 0 and planted.exists()
    assert "optimal" in capsys.readouterr().out


@pytest.mark.parametrize("entry", [["rltorch"], [sys.executable, "-m", "rltorch"]])
def test_both_entry_points_refuse_a_planted_module(entry, tmp_path):
    marker = tmp_path / "IMPORTED"
    (tmp_path / f"{PLANTED}.py").write_text(f"import pathlib\npathlib.Path({str(marker)!r}).touch()\n")
    path = edited(SHIPPED, tmp_path / "agent.pt", env_id=f"{PLANTED}:rltorch/TicTacToe-v0")
    command = [shutil.which("rltorch") or str(Path(sys.executable).with_name("rltorch"))] if entry == ["rltorch"] \
        else entry
    result = subprocess.run([*command, "evaluate", str(path)], cwd=tmp_path, capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 1 and result.stderr.count("\n") == 1 and f"module {PLANTED!r}" in result.stderr
    assert not marker.exists()


def test_the_console_script_finds_a_module_the_user_names_in_the_current_folder(tmp_path):
    (tmp_path / "my_envs.py").write_text((ROOT / "tests" / "chain_env.py").read_text())
    rltorch = shutil.which("rltorch") or str(Path(sys.executable).with_name("rltorch"))
    result = subprocess.run([rltorch, "train", "--env", "my_envs:Chain-v0", "--algo", "qlearning", "--episodes", "200",
                             "--eval-every", "0", "--test-games", "5", "--no-progress"], cwd=tmp_path,
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert "mean return -2.000" in result.stdout
