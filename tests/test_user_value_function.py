"""The README's "add your own value function" recipe, from the command line: train, resume, evaluate, trust.

The module is the README's own code block, written beside the run with a marker line that shows whether it
was imported.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import torch

import rltorch
from rltorch.errors import RLTorchError
from rltorch.run.cli import main

ROOT = Path(__file__).resolve().parents[1]
COMMON = ["--env", "FrozenLake-v1", "--algo", "qlearning", "--episodes", "200", "--eval-every", "0",
          "--test-games", "5", "--no-progress"]
MINE = ["--value-fn", "my_values:OptimisticTable"]


@pytest.fixture
def my_values(readme_module):
    """The README's `my_values.py` in the current folder; the marker file it touches when imported."""
    return readme_module("my_values")


def test_the_recipe_trains_with_its_option_and_resumes(my_values, tmp_path):
    assert main(["train", *COMMON, *MINE, "--initial", "0.5", "--run-name", "mine"]) == 0
    saved = torch.load(tmp_path / "checkpoints" / "mine.pt", weights_only=True)
    assert saved["value_fn_config"] == {"class": "my_values:OptimisticTable", "alpha": 0.05, "initial": 0.5,
                                        "count_visits": False}
    assert saved["run"]["args"]["initial"] == 0.5
    # an unseen entry reads 0.5: the learned table differs from a zero-initialised one
    assert main(["train", *COMMON, "--run-name", "plain"]) == 0
    plain = torch.load(tmp_path / "checkpoints" / "plain.pt", weights_only=True)
    assert saved["value_fn_state"] != plain["value_fn_state"]
    assert main(["train", "--resume", "checkpoints/mine.pt", *MINE, "--episodes", "300", "--no-progress"]) == 0
    resumed = torch.load(tmp_path / "checkpoints" / "mine.pt", weights_only=True)
    assert resumed["episodes"] == 300 and resumed["value_fn_config"]["initial"] == 0.5


def test_a_checkpoint_never_imports_the_value_function_module_it_names(my_values, tmp_path, capsys):
    assert main(["train", *COMMON, *MINE, "--run-name", "mine"]) == 0
    sys.modules.pop("my_values")
    my_values.unlink()
    capsys.readouterr()
    for command in (["train", "--resume", "checkpoints/mine.pt", "--episodes", "300", "--no-progress"],
                    ["evaluate", "checkpoints/mine.pt"]):
        assert main(command) == 1
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "Traceback" not in err, err
        assert "value function 'my_values:OptimisticTable' from module 'my_values'" in err and "--value-fn" in err
    with pytest.raises(RLTorchError, match="from module 'my_values'"):
        rltorch.load(tmp_path / "checkpoints" / "mine.pt")
    assert not my_values.exists() and "my_values" not in sys.modules
    assert main(["evaluate", "checkpoints/mine.pt", *MINE]) == 0  # named: imported, rebuilt
    assert my_values.exists()


@pytest.mark.parametrize("spec, message", [("no_such_module:Table", "cannot import module 'no_such_module'"),
                                           ("my_values:Nothing", "is not a subclass of rltorch.values"),
                                           ("3d:x", "is not module:Name")])
def test_a_bad_value_function_is_one_line_before_any_file(spec, message, my_values, tmp_path, capsys):
    before = set(tmp_path.iterdir())
    assert main(["train", *COMMON, "--value-fn", spec]) in (1, 2)
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err and "Traceback" not in err, err
    assert set(tmp_path.iterdir()) - before <= {my_values}
