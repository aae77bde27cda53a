"""`rltorch train --runs N`: run i is the per-step trainer fed its derived stream (time limits included), a stopped
multi-run resumes to the same numbers, `evaluate --run I` reads run I, and bad input is one line before any file."""

from __future__ import annotations

import json
import os
import signal
import time

import numpy as np
import pytest
import torch

from rltorch.checkpoints import load_checkpoint
from rltorch.engines import ALGORITHMS, time_limit_of
from rltorch.engines.replay import follow_stream
from rltorch.envs.context import EnvContext
from rltorch.run import multirun
from rltorch.run.cli import main
from rltorch.run.commands import run_config, train_parser
from rltorch.run.training import build_trainer
from rltorch.values import DoubleQ

ENV, SEED, RUNS = "FrozenLake-v1", 2, 3
SETTINGS = ["--env", ENV, "--alpha", "0.5", "--gamma", "1", "--epsilon-schedule", "linear", "--epsilon-start", "0.3",
            "--epsilon-final", "0.01", "--epsilon-decay", "100", "--n", "3", "--seed", str(SEED)]
EPISODES = {"double-qlearning": 600}  # each half learns half the time: it takes longer to steer past the holes


def train(tmp_path, *extra: str) -> int:
    """`rltorch train` in `tmp_path` with its files there."""
    return main(["train", *SETTINGS, "--log-dir", str(tmp_path / "runs"), "--no-progress", *extra])


def per_step_run(algorithm: str, run: int, episodes: int):
    """The single run of `algorithm` with run `run`'s derived stream: its dense tables, lengths and draws taken."""
    args = train_parser(None, None).parse_args([*SETTINGS, "--algo", algorithm])
    trainer = build_trainer(run_config(args, {}, ENV, algorithm))
    model = EnvContext(trainer.env, args.gamma).model
    rng = follow_stream(trainer, model, SEED, run, time_limit_of(trainer.env))
    lengths = []
    for episode in range(episodes):
        steps = trainer.steps_done
        trainer.run_episode(trainer.schedule(episode))
        lengths.append(trainer.steps_done - steps)
    parts = trainer.value_fn.parts if isinstance(trainer.value_fn, DoubleQ) else (trainer.value_fn,)
    tables = np.zeros((len(parts), len(model.states), 4))
    for index, part in enumerate(parts):
        for (state, action), value in part.table.items():
            tables[index, model.index[state], action] = value
    return tables, lengths, rng.position


@pytest.mark.parametrize("algorithm", list(ALGORITHMS))
def test_run_i_equals_the_single_run_with_its_derived_seed(tmp_path, algorithm):
    # Mutants that fail here (each tried): every episode played with the schedule's first epsilon; the streams
    # keyed by the lane's position in a piece; the lanes restarted from zero tables at each block.
    episodes = EPISODES.get(algorithm, 300)
    checkpoint = tmp_path / "runs.pt"
    assert train(tmp_path, "--algo", algorithm, "--runs", str(RUNS), "--episodes", str(episodes), "--log-every", "64",
                 "--checkpoint", str(checkpoint)) == 0
    saved = torch.load(checkpoint, weights_only=True)
    truncated = False
    for run in range(RUNS):
        tables, lengths, drawn = per_step_run(algorithm, run, episodes)
        assert torch.equal(saved["tables"][run], torch.from_numpy(tables)), f"run {run}: tables differ"
        assert int(saved["streams"][run, 2]) == drawn, f"run {run}: numbers drawn differ"
        truncated = truncated or 100 in lengths
    assert truncated, "no episode reached FrozenLake's 100-step limit"


def test_a_stopped_multi_run_resumes_to_the_numbers_of_a_straight_one(tmp_path, monkeypatch):
    # The straight run is one engine batch of 60 episodes; the stopped one takes batches of 20 (100 cells over 5
    # runs) and stops after its first. Mutants: the streams not saved (a resumed run restarts its draws); the
    # window's sums restarted at a resume.
    common = ("--algo", "qlearning", "--runs", "5", "--episodes", "60", "--log-every", "20")
    straight, stopped = tmp_path / "straight.pt", tmp_path / "stopped.pt"
    assert train(tmp_path, *common, "--checkpoint", str(straight), "--json", str(tmp_path / "straight.json")) == 0
    end_block = multirun._end_block

    def stop_after_the_first_block(state, logger, episode):
        end_block(state, logger, episode)
        os.kill(os.getpid(), signal.SIGINT)

    monkeypatch.setattr(multirun, "_end_block", stop_after_the_first_block)
    monkeypatch.setattr(multirun, "CELLS_PER_BATCH", 100)
    assert train(tmp_path, *common, "--checkpoint", str(stopped)) == 130
    assert torch.load(stopped, weights_only=True)["episodes"] == 20
    monkeypatch.setattr(multirun, "_end_block", end_block)
    assert main(["train", "--resume", str(stopped), "--episodes", "60", "--no-progress", "--log-dir",
                 str(tmp_path / "runs"), "--json", str(tmp_path / "resumed.json")]) == 0
    first, second = (torch.load(path, weights_only=True) for path in (straight, stopped))
    for key in ("tables", "streams", "window_sums", "exact_returns"):
        assert torch.equal(torch.as_tensor(first[key]), torch.as_tensor(second[key])), key
    numbers = [json.loads((tmp_path / f"{name}.json").read_text()) for name in ("straight", "resumed")]
    for key in ("mean_return_episodes_1_60", "exact_final_return", "share_optimal"):
        assert numbers[0][key] == numbers[1][key]


@pytest.mark.parametrize("env_id", [ENV, "rltorch/Blackjack-v0"])
def test_the_summary_is_each_runs_exact_value_and_evaluate_reads_run_i(tmp_path, capsys, env_id):
    # Blackjack's `evaluate --run I` is its own DP oracle, not the model the runs were valued on: two computations.
    checkpoint = tmp_path / "runs.pt"
    assert train(tmp_path, "--env", env_id, "--algo", "qlearning", "--runs", "4", "--episodes", "200", "--json",
                 str(tmp_path / "m.json"), "--checkpoint", str(checkpoint)) == 0
    metrics = json.loads((tmp_path / "m.json").read_text())
    saved = load_checkpoint(checkpoint)
    returns = saved["exact_returns"]
    assert metrics["exact_final_return"]["mean"] == pytest.approx(float(np.mean(returns)), abs=1e-12)
    assert metrics["share_optimal"]["share"] == np.mean(np.array(returns) >= metrics["optimum"] - 1e-9)
    assert metrics["mean_return_episodes_101_200"]["runs"] == 4
    capsys.readouterr()
    for run in (0, 3):
        assert main(["evaluate", str(checkpoint), "--run", str(run), "--json"]) == 0
        assert json.loads(capsys.readouterr().out)["expected_return"] == pytest.approx(returns[run], abs=1e-12)
    assert main(["evaluate", str(checkpoint), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["exact_returns"] == returns
    assert main(["evaluate", str(checkpoint), "--run", "4"]) == 1
    assert "holds runs 0..3" in capsys.readouterr().err


@pytest.mark.parametrize(("extra", "status", "message"), [
    (("--algo", "mc", "--runs", "3"), 1, "need an algorithm with a fast form"),
    (("--algo", "qlearning", "--runs", "3", "--device", "cuda"), 1, "no GPU form"),
    (("--algo", "qlearning", "--runs", "3", "--value-fn", "mlp"), 1, "drop --value-fn mlp"),
    (("--algo", "qlearning", "--runs", "0"), 2, "must be a whole number >= 1"),
    (("--algo", "qlearning", "--runs", "2", "--env", "rltorch/TicTacToe-v0", "--values", "afterstate"), 1,
     "--values afterstate"),
])
def test_bad_input_is_one_line_before_any_file(tmp_path, capsys, extra, status, message):
    try:
        code = train(tmp_path, *extra, "--checkpoint", str(tmp_path / "x.pt"))
    except SystemExit as stopped:  # argparse's refusals
        code = stopped.code
    assert code == status
    err = capsys.readouterr().err.strip()
    assert message in err and len(err.splitlines()) == 1
    assert not (tmp_path / "x.pt").exists() and not (tmp_path / "runs").exists()


def test_a_signal_during_the_exact_evaluation_keeps_the_runs(tmp_path, monkeypatch, capsys):
    # Mutant: the checkpoint saved only after the exact evaluation fails (no file).
    def signalled(*args):
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(5)
        raise AssertionError("the signal did not end the evaluation")

    monkeypatch.setattr(multirun, "exact_returns", signalled)
    checkpoint = tmp_path / "runs.pt"
    assert train(tmp_path, "--algo", "qlearning", "--runs", "3", "--episodes", "20",
                 "--checkpoint", str(checkpoint)) == 143
    saved = torch.load(checkpoint, weights_only=True)
    assert saved["episodes"] == 20 and "summary" not in saved
    assert "no exact evaluation: a signal stopped it" in capsys.readouterr().out
