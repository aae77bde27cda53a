"""A run stopped at any episode and resumed is the straight run: the same checkpoint data and the same
TensorBoard scalars and histograms (tags, steps and values), read back from the event files.

Each case trains N episodes straight with log_every 7 and eval_every 11, and the same run stopped (as a
signal stops it: the trainer's stop flag, raised during episode K) at K, saved, restored into a fresh trainer
built the way `rltorch train` builds it, and trained on to N. K = 17 is a multiple of neither schedule, so the
stop falls inside a logging block and between evaluations: the block's sums, the evaluation env's generator,
a network's recent keys and loss sums must all survive the checkpoint.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

from rltorch.checkpoints import load_checkpoint
from rltorch.errors import RLTorchError
from rltorch.logger import TensorBoardLogger
from rltorch.run.cli import train_parser
from rltorch.run.commands import run_config
from rltorch.run.envs import hook
from rltorch.run.training import build_trainer
from rltorch.trainers import TRAINERS, Trainer
from tests.test_resume import same

N, K = 40, 17
SCHEDULE = {"log_every": 7, "eval_every": 11, "eval_games": 3, "progress": False}
ENVS = ["rltorch/TicTacToe-v0", "rltorch/Blackjack-v0", "FrozenLake-v1"]

pytestmark = pytest.mark.usefixtures("one_thread")


def make(env_id: str, algorithm: str, *options: str) -> Trainer:
    """A trainer built as `rltorch train --env ENV --algo ALGO` builds it (a fast epsilon decay, seed 3)."""
    args = train_parser(None, None).parse_args(
        ["--env", env_id, "--algo", algorithm, "--seed", "3", "--epsilon-decay", "20", *options])
    return build_trainer(run_config(args, {}, env_id, algorithm))


def train_logged(trainer: Trainer, log_dir: Path, episodes: int, stop_after: int | None = None) -> Trainer:
    """Train `episodes` more into `log_dir` (with the run layer's opponent refresh); stop after `stop_after` in all."""
    if stop_after is not None:
        run_episode = trainer.run_episode

        def stopping(epsilon: float) -> float:
            episode_return = run_episode(epsilon)
            if trainer.episodes_done + 1 == stop_after:  # the signal arrives during this episode
                trainer.stop_requested = True
            return episode_return

        trainer.run_episode = stopping
    refresh = hook(trainer.env, "refresh_opponent")
    callback = (lambda t: refresh(t.value_fn, t.keys, t.episodes_done)) if refresh is not None else None
    trainer.logger = TensorBoardLogger(log_dir)
    try:
        trainer.train(episodes, callback=callback, **SCHEDULE)
    finally:
        trainer.logger.close()
    return trainer


def events(*log_dirs: Path) -> dict[str, list[tuple]]:
    """Every scalar and histogram of the runs in `log_dirs`, in order, per tag: (step, value) or (step, fields)."""
    found: dict[str, list[tuple]] = {}
    for log_dir in log_dirs:
        accumulator = EventAccumulator(str(log_dir), size_guidance={"scalars": 0, "histograms": 0})
        accumulator.Reload()
        for tag in accumulator.Tags()["scalars"]:
            found.setdefault(tag, []).extend((e.step, e.value) for e in accumulator.Scalars(tag))
        for tag in accumulator.Tags()["histograms"]:
            found.setdefault(tag, []).extend(
                (e.step, h.min, h.max, h.num, h.sum, h.sum_squares, tuple(h.bucket_limit), tuple(h.bucket))
                for e in accumulator.Histograms(tag) for h in [e.histogram_value])
    return found


def assert_stopped_run_resumes_exactly(builder, tmp_path: Path, k: int = K) -> dict[str, list[tuple]]:
    """Straight N against stopped at k, saved, restored into a fresh trainer, on to N; returns the straight events."""
    torch.manual_seed(0)
    straight = train_logged(builder(), tmp_path / "straight", N)
    first = train_logged(builder(), tmp_path / "first", N, stop_after=k)
    assert first.episodes_done == k
    path = first.save(tmp_path / "stopped.pt")
    torch.manual_seed(1)  # a fresh process: nothing but the checkpoint carries over
    resumed = builder().restore(load_checkpoint(path))
    train_logged(resumed, tmp_path / "resumed", N - k)
    assert resumed.episodes_done == straight.episodes_done == N
    want, have = events(tmp_path / "straight"), events(tmp_path / "first", tmp_path / "resumed")
    assert have.keys() == want.keys()
    for tag in want:
        assert have[tag] == want[tag], f"{tag} differs after the resume"
    expected, got = straight.checkpoint(), resumed.checkpoint()
    for name in expected:
        assert same(got[name], expected[name]), f"checkpoint[{name!r}] differs after the resume"
    return want


def cases() -> list:
    """Every algorithm the run layer offers on tic-tac-toe, blackjack and FrozenLake."""
    return [pytest.param(env_id, algorithm, id=f"{env_id.split('/')[-1]}-{algorithm}")
            for env_id in ENVS for algorithm in TRAINERS]


@pytest.mark.parametrize(("env_id", "algorithm"), cases())
def test_a_stopped_run_resumes_to_the_straight_run(env_id, algorithm, tmp_path):
    # catches: a block schedule counted from the resume (curves shift, evaluations stop), the unfinished block's
    # sums lost (the first mean after the resume covers fewer episodes), or the evaluation env's generator saved
    # at another moment than where the straight run stands
    try:
        make(env_id, algorithm)
    except RLTorchError as error:  # exploring starts need an env that names its start states
        assert algorithm == "mc-es" and "start_states" in str(error)
        pytest.skip(str(error))
    want = assert_stopped_run_resumes_exactly(lambda: make(env_id, algorithm), tmp_path)
    assert [step for step, _ in want["train/return"]] == [7, 14, 21, 28, 35, 40]
    if TRAINERS[algorithm].predicts_state_values:  # no greedy policy to test; FrozenLake's model values v̂ exactly
        assert "eval/mean_return" not in want and ("exact/ve" in want) == (env_id == "FrozenLake-v1")
    evaluated = "exact/ve" if TRAINERS[algorithm].predicts_state_values else "eval/mean_return"
    if evaluated == "eval/mean_return" or env_id == "FrozenLake-v1":
        assert [step for step, _ in want[evaluated]] == [11, 22, 33]
    assert [step for step, *_ in want["value/histogram"]] == [11, 22, 33]


@pytest.mark.parametrize("k", [14, 22, 17])
def test_a_q_network_resumes_with_its_histogram_and_losses(k, tmp_path):
    # catches: a network's recent keys (the value histogram) or its loss sums lost at the stop; k = 14 and 22 stop
    # on a logged block and on an evaluation: the boundary's log and evaluation still happen before the stop
    want = assert_stopped_run_resumes_exactly(
        lambda: make("rltorch/TicTacToe-v0", "qlearning", "--value-fn", "mlp", "--hidden", "8", "--lr", "0.01"),
        tmp_path, k)
    assert len(want["value/histogram"]) == 3 and len(want["loss/value"]) == 6


def test_a_dqn_on_frozenlake_resumes_with_its_replay_and_target(tmp_path):
    # the replay buffer, target copy and fit count with a network's logging sums, on a Gymnasium env
    assert_stopped_run_resumes_exactly(
        lambda: make("FrozenLake-v1", "dqn", "--value-fn", "mlp", "--hidden", "8", "--replay-size", "30",
                     "--batch-size", "4", "--target-update-every", "13"),
        tmp_path)


def test_a_stop_leaves_the_unfinished_block_unlogged_and_in_the_checkpoint(tmp_path):
    trainer = train_logged(make("rltorch/Blackjack-v0", "mc"), tmp_path / "run", N, stop_after=K)
    block = trainer.checkpoint()["block"]
    assert block["episodes"] == K - 14 and block["outcomes"] is not None and sum(block["outcomes"]) == K - 14
    assert [step for step, _ in events(tmp_path / "run")["train/return"]] == [7, 14]
