"""`rltorch train` on Mountain Car with feature value functions: the book's run, time limits, resume, refusals."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

from rltorch.run.cli import main
from rltorch.run.envs import make_env
from tests.test_resume import same

BOOK = ["--env", "MountainCar-v0", "--value-fn", "tiles", "--tilings", "8", "--alpha", "0.5",
        "--epsilon-schedule", "constant", "--epsilon-start", "0", "--gamma", "1"]
QUIET = ["--eval-every", "0", "--test-games", "1", "--no-progress"]


def data(path: Path) -> dict:
    """A checkpoint's learned state, read as data only."""
    saved = torch.load(path, weights_only=True)
    return {key: saved[key] for key in ("episodes", "steps", "value_fn_state", "rng_state", "env_rng", "block")}


def test_the_books_run_logs_lengths_and_saves_alpha_over_tilings(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    argv = ["train", *BOOK, "--algo", "sarsa", "--max-episode-steps", "400", "--episodes", "3", "--log-every", "1",
            *QUIET, "--run-name", "book"]
    assert main(argv) == 0
    saved = torch.load(tmp_path / "checkpoints" / "book.pt", weights_only=True)
    config = saved["value_fn_config"]
    assert config["alpha"] == 0.5 / 8 and config["features"]["kind"] == "tiles" and config["actions"] == 3
    assert saved["value_fn_state"]["weights"].shape == (3, 8 * 9 * 11)
    events = EventAccumulator(str(tmp_path / "runs" / "book")).Reload()
    lengths = [event.value for event in events.Scalars("train/length")]
    assert len(lengths) == 3 and all(1 <= length <= 400 for length in lengths)
    assert saved["steps"] == sum(lengths)


def test_max_episode_steps_sets_or_removes_the_limit():
    assert make_env("MountainCar-v0").spec.max_episode_steps == 200
    assert make_env("MountainCar-v0", {"max_episode_steps": 0}).spec.max_episode_steps is None
    env = make_env("MountainCar-v0", {"max_episode_steps": 5})
    env.reset(seed=0)
    ends = [env.step(1)[3] for _ in range(5)]
    assert ends == [False] * 4 + [True]
    observation, _ = env.reset(seed=0)
    assert isinstance(observation, tuple) and len(observation) == 2


@pytest.mark.parametrize("algo", [["--algo", "sarsa"], ["--algo", "nstep-sarsa", "--n", "3"],
                                  ["--algo", "sarsa-lambda", "--trace", "replacing", "--lambda", "0.8"],
                                  ["--algo", "sarsa-lambda", "--trace", "clearing"],
                                  ["--algo", "true-online-sarsa-lambda"]])
def test_every_control_algorithm_resumes_bit_for_bit(algo, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    common = [*BOOK, *algo, "--max-episode-steps", "120", "--epsilon-start", "0.1", *QUIET]
    assert main(["train", *common, "--episodes", "2", "--run-name", "cut"]) == 0
    assert main(["train", "--resume", "checkpoints/cut.pt", "--episodes", "4", *QUIET]) == 0
    assert main(["train", *common, "--episodes", "4", "--run-name", "whole"]) == 0
    resumed, straight = data(tmp_path / "checkpoints" / "cut.pt"), data(tmp_path / "checkpoints" / "whole.pt")
    assert resumed["episodes"] == 4 and same(resumed, straight)
    assert resumed["value_fn_state"]["weights"].abs().sum() > 0


@pytest.mark.parametrize(("argv", "says"), [
    (["--env", "MountainCar-v0", "--value-fn", "tiles", "--tilings", "0"], "--tilings"),
    (["--env", "MountainCar-v0", "--value-fn", "polynomial", "--order", "-1"], "--order"),
    (["--env", "rltorch/TicTacToe-v0", "--value-fn", "tiles"], "no"),
    (["--env", "rltorch/Blackjack-v0", "--value-fn", "fourier"], "bounds"),
    (["--env", "MountainCar-v0", "--algo", "sarsa-lambda", "--value-fn", "mlp"], "linear value function"),
    (["--env", "MountainCar-v0", "--value-fn", "tiles", "--values", "afterstate"], "--values q"),
    (["--env", "rltorch/Blackjack-v0", "--value-fn", "mlp", "--inputs", "tiles"], "--inputs state"),
])
def test_bad_feature_options_are_one_line_and_no_files(argv, says, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    try:
        status = main(["train", *argv, "--episodes", "1", *QUIET])
    except SystemExit as stop:  # argparse's own refusal
        status = stop.code
    err = capsys.readouterr().err
    assert status != 0 and err.count("\n") == 1 and "Traceback" not in err and says in err, err
    assert list(tmp_path.iterdir()) == []


def test_an_mlp_on_tile_features_saves_them_as_data_and_resumes(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    common = ["--env", "MountainCar-v0", "--algo", "sarsa", "--value-fn", "mlp", "--inputs", "tiles", "--tilings", "4",
              "--hidden", "8", "--max-episode-steps", "60", "--epsilon-start", "0.1", *QUIET]
    assert main(["train", *common, "--episodes", "1", "--run-name", "cut"]) == 0
    assert main(["train", "--resume", "checkpoints/cut.pt", "--episodes", "2", *QUIET]) == 0
    assert main(["train", *common, "--episodes", "2", "--run-name", "whole"]) == 0
    saved = torch.load(tmp_path / "checkpoints" / "whole.pt", weights_only=True)
    features = saved["value_fn_config"]["encoder"]["args"]["features"]
    assert features["kind"] == "tiles" and features["tilings"] == 4
    first_layer = next(value for name, value in saved["value_fn_state"].items() if name.endswith("weight"))
    assert first_layer.shape[1] == 4 * 9 * 11  # one input per tile of a state (4 tilings of 9 x 11 tiles)
    assert same(data(tmp_path / "checkpoints" / "cut.pt"), data(tmp_path / "checkpoints" / "whole.pt"))
