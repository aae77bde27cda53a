"""`rltorch train --sweep`: the axes it parses, its numbers against the engine run directly, a setting's numbers
independent of the rest of the grid (so of how the ranks share it), the PNG and JSON, and bad input."""

from __future__ import annotations

import argparse
import json

import gymnasium as gym
import numpy as np
import pytest

from rltorch.engines import BatchedEngine
from rltorch.mdp import from_gymnasium
from rltorch.policies import ExponentialSchedule
from rltorch.run.cli import main
from rltorch.run.sweep import sweep_axis

COMMON = ["--env", "CliffWalking-v1", "--algo", "sarsa", "--runs", "6", "--episodes", "12", "--gamma", "1",
          "--epsilon-schedule", "exponential", "--epsilon-start", "0.5", "--epsilon-final", "0.05",
          "--epsilon-decay", "5", "--seed", "4", "--no-progress"]


def sweep(tmp_path, name: str, *axes: str) -> dict:
    """Run a sweep into tmp_path/name and return its JSON."""
    out = tmp_path / name
    assert main(["train", *COMMON, *axes, "--out", str(out), "--log-dir", str(tmp_path / "runs"),
                 "--measure-episodes", "8", "--sweep-measure", "exact-final"]) == 0
    assert (out / "sweep.png").stat().st_size > 0
    return json.loads((out / "sweep.json").read_text())


def test_sweep_axes():
    assert sweep_axis("alpha=0.1:0.5:0.2") == ("alpha", [0.1, 0.3, 0.5])
    assert sweep_axis("alpha=0.1:1.0:0.1")[1] == [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0]
    assert sweep_axis("n=1,2,4") == ("n", [1, 2, 4])
    assert sweep_axis("algo=sarsa,qlearning") == ("algo", ["sarsa", "qlearning"])
    for bad in ("alpha=1:0:0.1", "alpha=0:1:0.5", "beta=1:2:1", "alpha", "algo=mc", "gamma=0.5:1.5:0.5", "n=0,1"):
        with pytest.raises(argparse.ArgumentTypeError):
            sweep_axis(bad)


def test_a_sweep_is_the_engine_per_setting_and_a_setting_does_not_depend_on_the_grid(tmp_path):
    # Mutants: lanes of a setting drawing from streams offset by the setting's place in the grid; the measure
    # taken over every episode instead of the first --measure-episodes.
    grid = sweep(tmp_path, "grid", "--sweep", "alpha=0.5:1.0:0.5", "--sweep", "algo=sarsa,qlearning")
    assert [(row["alpha"], row["algo"]) for row in grid["settings"]] == [
        (0.5, "sarsa"), (0.5, "qlearning"), (1.0, "sarsa"), (1.0, "qlearning")]
    alone = sweep(tmp_path, "alone", "--sweep", "alpha=1.0", "--sweep", "algo=qlearning")
    assert alone["settings"][0] == grid["settings"][3]
    engine = BatchedEngine(from_gymnasium(gym.make("CliffWalking-v1")))
    epsilons = [ExponentialSchedule(0.5, 0.05, 5)(k) for k in range(12)]
    result = engine.run("qlearning", [1.0] * 6, 12, epsilon=epsilons, gamma=1.0, seed=4)
    per_run = result.returns[:, :8].mean(dim=1).numpy()
    row = grid["settings"][3]["first_episodes"]
    assert row["mean"] == pytest.approx(per_run.mean(), abs=1e-12)
    assert row["se"] == pytest.approx(per_run.std(ddof=1) / np.sqrt(6), abs=1e-12)
    assert 0 <= grid["settings"][3]["share_optimal"]["share"] <= 1


def test_bad_sweeps_are_one_line_before_any_file(tmp_path, capsys):
    for axes, status in ((["--sweep", "alpha=0.5:0.1:0.1"], 2), (["--sweep", "algo=mc"], 2),
                         (["--sweep", "algo=sarsa,qlearning"], 1),
                         (["--sweep", "alpha=0.5", "--sweep", "alpha=0.6"], 1),
                         (["--sweep", "alpha=0.5", "--device", "cuda"], 1)):
        try:
            code = main(["train", *COMMON, *axes, "--out", str(tmp_path / "out"), "--log-dir", str(tmp_path / "runs")])
        except SystemExit as stopped:
            code = stopped.code
        assert code == status, axes
        assert len(capsys.readouterr().err.strip().splitlines()) == 1
    assert not (tmp_path / "out").exists() and not (tmp_path / "runs").exists()
