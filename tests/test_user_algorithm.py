"""The README's "add your own algorithm" recipe, from the command line: train, resume, and the trust rule.

The module is the README's own code block (so the recipe is what is tested), written beside the run with a
marker line that shows whether it was imported.
"""

from __future__ import annotations

import sys
from pathlib import Path

import gymnasium as gym
import pytest
import torch

from rltorch.run.cli import main

ROOT = Path(__file__).resolve().parents[1]
COMMON = ["--env", "FrozenLake-v1", "--episodes", "300", "--eval-every", "0", "--test-games", "5", "--no-progress"]


@pytest.fixture
def my_algos(readme_module):
    """The README's `my_algos.py` in the current folder; the marker file it touches when imported."""
    return readme_module("my_algos")


def test_the_recipe_trains_and_resumes_from_the_command_line_and_equals_q_learning(my_algos, tmp_path, capsys):
    assert main(["train", *COMMON, "--algo", "my_algos:MyQLearning", "--run-name", "mine"]) == 0
    assert my_algos.exists() and "my_algos" in sys.modules
    saved = torch.load(tmp_path / "checkpoints" / "mine.pt", weights_only=True)
    assert saved["config"]["algorithm"] == "my-qlearning" and saved["run"]["args"]["algo"] == "my_algos:MyQLearning"
    # the six lines are Q-learning: the same seed gives the same table as rltorch's own
    assert main(["train", *COMMON, "--algo", "qlearning", "--run-name", "theirs"]) == 0
    theirs = torch.load(tmp_path / "checkpoints" / "theirs.pt", weights_only=True)
    assert saved["value_fn_state"] == theirs["value_fn_state"]
    assert main(["train", "--resume", "checkpoints/mine.pt", "--algo", "my_algos:MyQLearning", "--episodes", "400",
                 "--no-progress"]) == 0
    assert torch.load(tmp_path / "checkpoints" / "mine.pt", weights_only=True)["episodes"] == 400


def test_a_checkpoint_never_imports_the_algorithm_module_it_names(my_algos, tmp_path, capsys):
    assert main(["train", *COMMON, "--algo", "my_algos:MyQLearning", "--run-name", "mine"]) == 0
    sys.modules.pop("my_algos")
    my_algos.unlink()
    capsys.readouterr()
    status = main(["train", "--resume", "checkpoints/mine.pt", "--episodes", "400", "--no-progress"])
    err = capsys.readouterr().err
    assert status == 1 and err.count("\n") == 1 and "Traceback" not in err
    assert "asks for algorithm 'my_algos:MyQLearning' from module 'my_algos'" in err and "--algo" in err
    assert not my_algos.exists() and "my_algos" not in sys.modules
    assert torch.load(tmp_path / "checkpoints" / "mine.pt", weights_only=True)["episodes"] == 300


def test_trainer_load_continues_training_from_python(my_algos, tmp_path):
    assert main(["train", *COMMON, "--algo", "my_algos:MyQLearning", "--run-name", "mine"]) == 0
    from my_algos import MyQLearning

    trainer = MyQLearning.load(tmp_path / "checkpoints" / "mine.pt", gym.make("FrozenLake-v1"))
    assert trainer.episodes_done == 300 and trainer.gamma == 0.99
    trainer.train(100, eval_every=0, progress=False)
    assert trainer.episodes_done == 400


@pytest.mark.parametrize("spec, message", [("no_such_module:Algo", "cannot import module 'no_such_module'"),
                                           ("my_algos:Nothing", "is not a subclass of rltorch.trainers"),
                                           ("3d:x", "must be one of")])
def test_a_bad_algorithm_is_one_line_before_any_file(spec, message, my_algos, tmp_path, capsys):
    before = set(tmp_path.iterdir())
    status = main(["train", *COMMON, "--algo", spec])
    err = capsys.readouterr().err
    assert status in (1, 2) and err.count("\n") == 1 and message in err
    assert set(tmp_path.iterdir()) - before <= {tmp_path / "IMPORTED", tmp_path / "__pycache__"}
