"""A full disk loses nothing: the checkpoint's disk full keeps the last good checkpoint and says so in one line.

The disks are small tmpfs mounts (this needs root, as CI and the development machines have; elsewhere the
tests skip).
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
import torch

from rltorch.run.cli import main


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
    assert main(["train", *common, "--episodes", "50", "--checkpoint", str(checkpoint), "--run-name", "r"]) == 0
    before = checkpoint.read_bytes()
    capsys.readouterr()
    fill(small_disk, leave=2048)
    status = main(["train", "--resume", str(checkpoint), "--episodes", "100", "--no-progress"])
    err = capsys.readouterr().err
    assert status == 1 and err.count("\n") == 1 and "Traceback" not in err
    assert f"cannot save {checkpoint}: the disk is full; the last good checkpoint {checkpoint} is intact" in err
    assert checkpoint.read_bytes() == before and torch.load(checkpoint, weights_only=True)["episodes"] == 50
    assert sorted(p.name for p in small_disk.iterdir()) == ["filler", "run.pt"]  # no temporary file left


def test_a_full_tensorboard_disk_stops_the_logging_not_the_run(small_disk, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    status = main(["train", "--env", "FrozenLake-v1", "--algo", "qlearning", "--episodes", "3000", "--log-every", "1",
                   "--eval-every", "0", "--test-games", "5", "--no-progress", "--log-dir", str(small_disk),
                   "--run-name", "r"])
    captured = capsys.readouterr()
    assert status == 0 and "Traceback" not in captured.err and "Exception in thread" not in captured.err
    assert captured.err.count("warning: TensorBoard cannot write to") == 1 and "No space left" in captured.err
    assert torch.load(tmp_path / "checkpoints" / "r.pt", weights_only=True)["episodes"] == 3000
