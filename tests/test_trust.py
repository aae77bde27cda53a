"""Trust: every bad option refused up front in one line, signals that save, exact resume, runs that never collide."""

import argparse
import math
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import torch

from rltorch.errors import RLTorchError
from rltorch.run import options
from rltorch.run.algorithms import algorithm_name
from rltorch.run.cli import main as cli_main
from rltorch.run.cli import train, train_parser
from rltorch.run.output import run_name
from rltorch.run.session import check_new_run, checkpoint_lock
from rltorch.run.sweep import sweep_axis
from rltorch.run.value_functions import value_function_name
from rltorch.values.ntuple import tuples_option
from trainers.chapter5 import blackjack_figures, blackjack_mc
from trainers.compare_tables import compare_tables
from trainers.networks import generalization
from trainers.thorp import study

ROOT = Path(__file__).resolve().parents[1]
BAD = {  # bad values for each argument type, each with a reason it is bad
    options.positive_int: ["0", "-1", "1.5", "inf", "x"],
    options.non_negative_int: ["-1", "nan", "2.5", "x"],
    options.unit_float: ["-0.1", "1.5", "nan", "x"],
    options.step_size: ["0", "1.5", "inf"],
    options.positive_float: ["0", "-2", "inf", "nan"],
    options.finite_float: ["inf", "nan", "x"],
    options.integer: ["1.5", "inf", "x"],
    options.writable_file: ["/etc/hostname/out.json", "/proc/nope.json", "ck/"],
    options.writable_folder: ["/etc/hostname/runs"],
    options.existing_file: ["missing.pt", "."],
    options.key_value: ["=1", "no-equals"],
    blackjack_mc.threshold: ["11", "23", "x"],
    blackjack_mc.start_state: ["13,2", "22,2,1", "13,0,1", "x"],
    blackjack_figures.episode_counts: ["0", "x", "10,-5"],
    algorithm_name: ["zzz", "3d:x", "mod:", ":Class"],
    value_function_name: ["zzz", "3d:x", "mod:", ":Class"],
    sweep_axis: ["alpha=1:0:0.1", "beta=1", "algo=mc", "alpha=2"],
    tuples_option: ["x", "0,1;a", "16", "0,-1", ";"],
}
PARSERS = {  # (script, parser, arguments it needs in any case)
    "sarsa_trainer.py": (lambda: train_parser("rltorch/TicTacToe-v0", "sarsa", "d"), []),
    "qlearning_trainer.py": (lambda: train_parser("rltorch/TicTacToe-v0", "qlearning", "d"), []),
    "mc_trainer.py": (lambda: train_parser("rltorch/TicTacToe-v0", "mc", "d"), []),
    "rltorch train": (lambda: train_parser(None, None), []),
    "network_blackjack.py": (lambda: train_parser("rltorch/Blackjack-v0", None, "d"), []),
    "blackjack_mc.py": (blackjack_mc.build_parser, []),
    "blackjack_figures.py": (blackjack_figures.build_parser, ["--figure", "5.1"]),
    "thorp/study.py": (study.build_parser, []),
    "compare_tables.py": (compare_tables.build_parser, []),
    "generalization.py": (generalization.build_parser, []),
}


def bad_values(kind):
    """A type's bad values: its own from BAD; a bounded one (`options.at_most`) its base's and one above its maximum."""
    if hasattr(kind, "base") and hasattr(kind, "maximum"):
        return [*bad_values(kind.base), f"{kind.maximum * 10:g}"]
    return list(BAD.get(kind, []))


def bad_cases():
    for script, (make, needed) in PARSERS.items():
        for action in make()._actions:
            if not action.option_strings or action.help == argparse.SUPPRESS:
                continue
            option = action.option_strings[-1]
            values = bad_values(action.type) + (["zzz"] if action.choices else [])
            for value in values:
                yield pytest.param(make, [*needed, option, value], id=f"{script} {option} {value}")


def test_every_numeric_option_of_train_has_an_upper_bound():
    unbounded = (options.positive_int, options.non_negative_int, options.positive_float, options.finite_float,
                 options.integer)  # unit_float and step_size end at 1 by themselves
    loose = [action.option_strings[-1] for action in train_parser(None, None)._actions
             if action.type in unbounded and not action.dest.startswith("env__")]
    assert not loose


@pytest.mark.parametrize("make, argv", list(bad_cases()))
def test_every_bad_option_is_one_line_and_exit_2_before_any_file(make, argv, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as exit_info:
        make().parse_args(argv)
    err = capsys.readouterr().err
    assert exit_info.value.code == 2 and err.count("\n") == 1 and "error: argument" in err
    assert not list(tmp_path.iterdir())


def test_the_bad_option_table_covers_every_typed_option_of_every_script():
    typed = [(script, action.option_strings[-1]) for script, (make, _) in PARSERS.items()
             for action in make()._actions if action.option_strings and action.type not in (None, str)]
    uncovered = [item for item in typed if not [p for p in bad_cases() if p.id.startswith(" ".join(item) + " ")]]
    assert typed and not uncovered


def run(script, *args, cwd, **kwargs):
    command = [sys.executable, "-m", "rltorch", *script.split()[1:]] if script.startswith("rltorch") else \
        [sys.executable, str(next(ROOT.glob(f"trainers/**/{script}")))]
    return subprocess.run([*command, *map(str, args)], cwd=cwd, capture_output=True, text=True, timeout=300,
                          **kwargs)


MAINS = {"sarsa_trainer.py": lambda argv: train(argv, "rltorch/TicTacToe-v0", "sarsa", "d"), "rltorch": cli_main,
         "blackjack_mc.py": blackjack_mc.main, "thorp/study.py": study.main}


@pytest.mark.parametrize("script, argv", [
    ("sarsa_trainer.py", ["--opponent", "genius"]),
    ("sarsa_trainer.py", ["--smart-p", "2", "--opponent", "smart"]),
    ("rltorch", ["train", "--env", "FrozenLake-v1", "--values", "afterstate"]),
    ("rltorch", ["train", "--env", "NoSuchEnv-v9"]),
    ("rltorch", ["train", "--env", "FrozenLake-v1", "--env-option", "map_name='9x9'"]),
    ("rltorch", ["evaluate", "."]),
    ("rltorch", ["evaluate", "missing.pt"]),
    ("blackjack_mc.py", ["--env", "gymnasium", "--method", "es"]),
    ("thorp/study.py", ["--device", "cuda"] if not torch.cuda.is_available() else ["--threads", "0"]),
    # item 5: env ids that are not one, modules that fail, dependencies that are missing
    ("rltorch", ["train", "--env", ":"]),
    ("rltorch", ["train", "--env", ".rel"]),
    ("rltorch", ["train", "--env", "broken_mod:Chain-v0"]),
    ("rltorch", ["train", "--env", "syntax_mod:Chain-v0"]),
    ("rltorch", ["train", "--env", "no_such_module:Chain-v0"]),
    ("rltorch", ["train", "--env", "LunarLander-v3"]),
    # item 6: envs rltorch cannot learn on, refused before any file
    ("rltorch", ["train", "--env", "tests.odd_envs:BoxAction-v0"]),
    ("rltorch", ["train", "--env", "tests.odd_envs:NoLegal-v0"]),
    # item 9: a hostile file given to --resume is refused before any file is made (Thorp's study too)
    ("thorp/study.py", ["--resume", "{modules}/hostile.pt"]),
    ("rltorch", ["train", "--resume", "{modules}/hostile.pt"]),
    ("blackjack_mc.py", ["--resume", "{modules}/hostile.pt"]),
])
def test_errors_found_when_building_are_one_line_before_any_file(script, argv, tmp_path, monkeypatch, capsys,
                                                                  user_modules):
    monkeypatch.chdir(tmp_path)
    argv = [part.format(modules=user_modules) for part in argv]
    try:
        status = MAINS[script](argv)
    except SystemExit as error:
        status = error.code
    err = capsys.readouterr().err
    assert status in (1, 2) and err.count("\n") == 1 and "Traceback" not in err
    assert not list(tmp_path.iterdir()) and not (user_modules / "RAN").exists()


class HostileMarker:
    """Unpickling this touches a marker file: proof that a file's code ran."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):
        return (Path.touch, (Path(self.marker),))


@pytest.fixture
def user_modules(tmp_path_factory, monkeypatch):
    """A folder on the path with a module that raises when imported and one with a syntax error."""
    folder = tmp_path_factory.mktemp("user_modules")
    (folder / "broken_mod.py").write_text("raise RuntimeError('my env module is broken')\n")
    (folder / "syntax_mod.py").write_text("def oops(:\n")
    torch.save({"format": "rltorch-checkpoint", "version": 2, "config": {"note": HostileMarker(folder / "RAN")}},
               folder / "hostile.pt")
    monkeypatch.syspath_prepend(str(folder))
    yield folder
    for name in ("broken_mod", "syntax_mod"):
        sys.modules.pop(name, None)


@pytest.mark.parametrize("env_id, message", [
    ("tests.odd_envs:LaterList-v0", "returned an unhashable observation (list) at step 1 of episode 1"),
    ("tests.odd_envs:NanReward-v0", "returned the reward nan at step 3 of episode 1; rewards must be finite numbers"),
])
def test_an_env_that_breaks_its_contract_mid_run_stops_in_one_line_with_the_run_saved(env_id, message, tmp_path,
                                                                                       monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    status = cli_main(["train", "--env", env_id, "--algo", "qlearning", "--episodes", "20", "--no-progress",
                       "--run-name", "bad"])
    err = capsys.readouterr().err
    assert status == 1 and err.count("\n") == 1 and message in err
    assert "what was learned before it is saved to checkpoints/bad.pt" in err
    saved = torch.load(tmp_path / "checkpoints" / "bad.pt", weights_only=True)
    table = saved["value_fn_state"]["_extra_state"]["table"]
    assert saved["episodes"] == 0 and not any(map(math.isnan, table.values()))


def test_default_run_names_never_collide_even_when_started_together(tmp_path):
    common = ["--episodes", 300, "--eval-every", 0, "--test-games", 10, "--no-progress"]
    together = [subprocess.Popen([sys.executable, str(ROOT / "trainers" / "sarsa_trainer.py"), *map(str, common)],
                                 cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE) for _ in range(2)]
    assert [p.wait(timeout=120) for p in together] == [0, 0]
    assert len(list((tmp_path / "checkpoints").glob("*.pt"))) == 2 and len(list((tmp_path / "runs").iterdir())) == 2
    assert len({run_name("E", "a", 0) for _ in range(100)}) == 100


def test_an_existing_run_folder_or_checkpoint_is_not_overwritten_without_asking(tmp_path):
    args = argparse.Namespace(resume=None, overwrite=False)
    check_new_run(tmp_path / "new", tmp_path / "new.pt", args)
    (tmp_path / "run").mkdir()
    (tmp_path / "old.pt").write_bytes(b"x")
    with pytest.raises(RLTorchError, match="run folder .* exists"):
        check_new_run(tmp_path / "run", tmp_path / "new.pt", args)
    with pytest.raises(RLTorchError, match="checkpoint .* exists"):
        check_new_run(tmp_path / "new", tmp_path / "old.pt", args)
    check_new_run(tmp_path / "run", tmp_path / "old.pt", argparse.Namespace(resume=None, overwrite=True))


HOLD = ("import sys, time, pathlib\nfrom rltorch.run.session import checkpoint_lock\n"
        "with checkpoint_lock(pathlib.Path(sys.argv[1])):\n    print('held', flush=True)\n    time.sleep(60)\n")


def test_a_checkpoint_held_by_a_live_run_is_refused_and_a_dead_runs_lock_is_taken_over(tmp_path):
    checkpoint = tmp_path / "held.pt"
    holder = subprocess.Popen([sys.executable, "-c", HOLD, str(checkpoint)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        with pytest.raises(RLTorchError, match=f"held by a live run \\(pid {holder.pid}\\)"):
            with checkpoint_lock(checkpoint):
                pass
    finally:
        holder.kill()  # a holder killed outright: the operating system drops its lock, its file stays
        holder.wait()
    assert (tmp_path / ".held.pt.lock").exists()
    with checkpoint_lock(checkpoint):
        assert (tmp_path / ".held.pt.lock").read_text() == str(os.getpid())
        with pytest.raises(RLTorchError, match="held by a live run"):  # this process, a second time
            with checkpoint_lock(checkpoint):
                pass
    assert not (tmp_path / ".held.pt.lock").exists()


def test_a_lock_file_naming_a_live_pid_or_left_empty_holds_nothing(tmp_path):
    for stale in (str(os.getpid()), "1", ""):  # pid reuse, pid 1, a holder killed before it wrote its pid
        (tmp_path / ".run.pt.lock").write_text(stale)
        with checkpoint_lock(tmp_path / "run.pt"):
            assert (tmp_path / ".run.pt.lock").read_text() == str(os.getpid())


RACE = """
import os, sys, pathlib
from rltorch.errors import RLTorchError
from rltorch.run.session import checkpoint_lock
path, inside, rounds = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2]), int(sys.argv[3])
held = 0
for _ in range(rounds):
    try:
        with checkpoint_lock(path):
            fd = os.open(inside, os.O_CREAT | os.O_EXCL | os.O_WRONLY)  # fails if another holder is inside
            os.close(fd)
            held += 1
            os.unlink(inside)
    except RLTorchError:
        pass
print(held)
"""


def test_lock_races_never_give_two_holders(tmp_path):
    # 4 processes x 500 tries = 2,000 races for one lock; a second holder inside would find the marker there
    racers = [subprocess.Popen([sys.executable, "-c", RACE, str(tmp_path / "ck.pt"), str(tmp_path / "inside"), "500"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(4)]
    results = [racer.communicate(timeout=240) for racer in racers]
    assert all(racer.returncode == 0 for racer in racers), [err for _, err in results]
    assert sum(int(out) for out, _ in results) > 0


def table_of(path):
    saved = torch.load(path, weights_only=True)
    return saved["episodes"], saved["value_fn_state"]["_extra_state"]["table"], saved["rng_state"]


@pytest.mark.parametrize("signum, status", [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_a_signal_saves_a_checkpoint_that_resumes_exactly(signum, status, tmp_path):
    total = 100_000
    argv = [sys.executable, str(ROOT / "trainers" / "sarsa_trainer.py"), "--episodes", str(total), "--no-progress",
            "--eval-every", "0", "--run-name", "cut"]
    process = subprocess.Popen(argv, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 60
    while not list((tmp_path / "runs" / "cut").glob("events.*")) and time.time() < deadline:
        time.sleep(0.05)
    time.sleep(0.5)
    process.send_signal(signum)
    out, err = process.communicate(timeout=120)
    assert process.returncode == status and "Traceback" not in err and "saved to checkpoints/cut.pt" in out
    episodes, _, _ = table_of(tmp_path / "checkpoints" / "cut.pt")
    assert 0 < episodes < total
    if signum == signal.SIGTERM:
        resumed = run("sarsa_trainer.py", "--resume", "checkpoints/cut.pt", "--episodes", total, "--no-progress",
                      cwd=tmp_path)
        straight = run("sarsa_trainer.py", "--episodes", total, "--eval-every", 0, "--run-name", "whole",
                       "--no-progress", cwd=tmp_path)
        assert resumed.returncode == 0 == straight.returncode, resumed.stderr + straight.stderr
        assert table_of(tmp_path / "checkpoints" / "cut.pt") == table_of(tmp_path / "checkpoints" / "whole.pt")
        assert len(list((tmp_path / "runs" / "cut").glob("events.*"))) == 2  # the same run folder, continued


def test_blackjack_resume_equals_a_straight_run(tmp_path):
    common = ["--method", "es", "--eval-every", 0, "--no-progress"]
    assert run("blackjack_mc.py", *common, "--episodes", 3000, "--run-name", "a", cwd=tmp_path).returncode == 0
    assert run("blackjack_mc.py", "--resume", "checkpoints/a.pt", "--episodes", 5000, "--no-progress",
               cwd=tmp_path).returncode == 0
    assert run("blackjack_mc.py", *common, "--episodes", 5000, "--run-name", "b", cwd=tmp_path).returncode == 0
    a, b = torch.load(tmp_path / "checkpoints" / "a.pt", weights_only=True), \
        torch.load(tmp_path / "checkpoints" / "b.pt", weights_only=True)
    assert a["episodes"] == b["episodes"] == 5000
    assert a["value_fn_state"]["_extra_state"] == b["value_fn_state"]["_extra_state"]
    assert a["rng_state"] == b["rng_state"] and os.path.exists(tmp_path / "runs" / "a")


# --- item 8: a full disk loses nothing (small tmpfs mounts; root, as CI and development machines have) ---
@pytest.fixture
def small_disk(tmp_path):
    """A 256 KiB tmpfs mounted at tmp_path/disk, unmounted afterwards."""
    disk = tmp_path / "disk"
    disk.mkdir()
    mounted = os.geteuid() == 0 and subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", str(disk)],
                                                   capture_output=True).returncode == 0
    if not mounted:
        pytest.skip("mounting a tmpfs needs root")
    yield disk
    subprocess.run(["umount", str(disk)], check=False)


def fill(disk: Path, leave: int) -> None:
    """Fill `disk` until about `leave` bytes are free."""
    stats = os.statvfs(disk)
    free = stats.f_bavail * stats.f_frsize
    (disk / "filler").write_bytes(b"\0" * max(0, free - leave))


def test_a_full_checkpoint_disk_keeps_the_last_good_checkpoint_and_says_so(small_disk, tmp_path, monkeypatch,
                                                                           capsys):
    monkeypatch.chdir(tmp_path)
    checkpoint = small_disk / "run.pt"
    common = ["--env", "FrozenLake-v1", "--algo", "qlearning", "--eval-every", "0", "--test-games", "5",
              "--no-progress"]
    assert cli_main(["train", *common, "--episodes", "50", "--checkpoint", str(checkpoint), "--run-name", "r"]) == 0
    before = checkpoint.read_bytes()
    capsys.readouterr()
    fill(small_disk, leave=2048)
    status = cli_main(["train", "--resume", str(checkpoint), "--episodes", "100", "--no-progress"])
    err = capsys.readouterr().err
    assert status == 1 and err.count("\n") == 1 and "Traceback" not in err
    assert f"cannot save {checkpoint}: the disk is full; the last good checkpoint {checkpoint} is intact" in err
    assert checkpoint.read_bytes() == before and torch.load(checkpoint, weights_only=True)["episodes"] == 50
    assert sorted(p.name for p in small_disk.iterdir()) == ["filler", "run.pt"]  # no temporary file left


def test_a_full_tensorboard_disk_stops_the_logging_not_the_run(small_disk, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    status = cli_main(["train", "--env", "FrozenLake-v1", "--algo", "qlearning", "--episodes", "3000",
                       "--log-every", "1", "--eval-every", "0", "--test-games", "5", "--no-progress",
                       "--log-dir", str(small_disk), "--run-name", "r"])
    captured = capsys.readouterr()
    assert status == 0 and "Traceback" not in captured.err and "Exception in thread" not in captured.err
    assert captured.err.count("warning: TensorBoard cannot write to") == 1 and "No space left" in captured.err
    assert torch.load(tmp_path / "checkpoints" / "r.pt", weights_only=True)["episodes"] == 3000
