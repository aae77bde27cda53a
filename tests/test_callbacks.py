"""Callbacks: called at their own boundaries in list order, stop training with False, and change nothing else."""

import gymnasium as gym
import torch

from rltorch import QLearningTrainer, QTable
from rltorch.callbacks import Callback, Checkpoints, SelfPlayRefresh
from rltorch.logger import TensorBoardLogger
from tests.test_resume_exact import events


class Recorder(Callback):
    """Writes down every call it gets."""

    def __init__(self, every=0, stop_at=None, stop_on_eval_at=None):
        self.every, self.stop_at, self.stop_on_eval_at, self.calls = every, stop_at, stop_on_eval_at, []

    def on_start(self, trainer, end):
        self.calls.append(("start", trainer.episodes_done, end))

    def on_block(self, trainer):
        self.calls.append(("block", trainer.episodes_done))
        return False if trainer.episodes_done == self.stop_at else None

    def on_eval(self, trainer, scalars):
        self.calls.append(("eval", trainer.episodes_done, "eval/mean_return" in scalars))
        return False if trainer.episodes_done == self.stop_on_eval_at else None

    def on_end(self, trainer):
        self.calls.append(("end", trainer.episodes_done))


def lake(seed=0):
    return QLearningTrainer(gym.make("FrozenLake-v1"), QTable(alpha=0.1), gamma=0.99, seed=seed)


def test_each_callback_is_called_at_its_own_boundaries():
    logged, sevens = Recorder(), Recorder(every=7)
    lake().train(20, log_every=5, eval_every=10, eval_games=3, progress=False, callbacks=[logged, sevens])
    assert logged.calls == [("start", 0, 20), ("block", 5), ("eval", 10, True), ("block", 10), ("block", 15),
                            ("eval", 20, True), ("block", 20), ("end", 20)]
    assert sevens.calls == [("start", 0, 20), ("block", 7), ("eval", 10, True), ("block", 14), ("eval", 20, True),
                            ("end", 20)]


def test_false_from_a_block_or_an_evaluation_stops_training_there():
    trainer = lake().train(50, log_every=5, eval_every=0, progress=False, callbacks=[Recorder(stop_at=15)])
    assert trainer.episodes_done == 15
    trainer = lake().train(50, log_every=5, eval_every=10, eval_games=2, progress=False,
                           callbacks=[Recorder(stop_on_eval_at=20)])
    assert trainer.episodes_done == 20
    resumed = trainer.train(10, log_every=5, eval_every=0, progress=False)  # a new call starts afresh
    assert resumed.episodes_done == 30


def test_extra_boundaries_change_nothing_that_is_learned_or_logged(tmp_path):
    plain, busy = lake(3), lake(3)
    for trainer, folder, extra in ((plain, "plain", []), (busy, "busy", [Recorder(every=3), Recorder(every=11)])):
        trainer.logger = TensorBoardLogger(tmp_path / folder)
        trainer.train(60, log_every=10, eval_every=20, eval_games=5, progress=False, callbacks=extra)
        trainer.logger.close()
    assert plain.value_fn.state_dict()["_extra_state"] == busy.value_fn.state_dict()["_extra_state"]
    assert events(tmp_path / "plain") == events(tmp_path / "busy")


def test_periodic_checkpoints_and_self_play_refresh(tmp_path):
    refreshed = []
    trainer = lake()
    trainer.train(25, log_every=10, eval_every=0, progress=False,
                  callbacks=[Checkpoints(tmp_path / "ck.pt", every=8, extra=lambda: {"note": "periodic"}),
                             SelfPlayRefresh(lambda values, keys, episodes: refreshed.append(episodes))])
    saved = torch.load(tmp_path / "ck.pt", weights_only=True)
    assert saved["episodes"] == 24 and saved["note"] == "periodic"
    assert refreshed == [10, 20, 25]
