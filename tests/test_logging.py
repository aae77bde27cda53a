import pytest
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

from rltorch import QTable, SARSATrainer
from rltorch.envs.tictactoe.env import TicTacToeEnv
from rltorch.logger import TensorBoardLogger

TAGS = {
    "train/return", "train/epsilon", "train/td_error", "train/win_rate", "table/size",
    "eval/win_rate", "eval/loss_rate", "eval/draw_rate",
}


def test_event_file_holds_the_tags(tmp_path):
    logger = TensorBoardLogger(tmp_path / "run")
    trainer = SARSATrainer(TicTacToeEnv(), QTable(), seed=0, logger=logger)
    logger.hyperparameters(trainer.config())
    trainer.train(400, log_every=100, eval_every=200, eval_games=20, progress=False)
    logger.close()
    events = EventAccumulator(str(tmp_path / "run"))
    events.Reload()
    assert TAGS <= set(events.Tags()["scalars"])
    assert [e.step for e in events.Scalars("train/return")] == [100, 200, 300, 400]
    assert [e.step for e in events.Scalars("eval/win_rate")] == [200, 400]
    epsilon = events.Scalars("train/epsilon")[0].value
    assert epsilon == pytest.approx(trainer.schedule(100), rel=1e-6)
    sizes = [e.value for e in events.Scalars("table/size")]
    assert sizes == sorted(sizes) and sizes[-1] == len(trainer.value_fn)
    for event in events.Scalars("eval/win_rate"):
        assert 0.0 <= event.value <= 1.0
    assert any("hyperparameters" in tag for tag in events.Tags()["tensors"])
    assert "value/histogram" in events.Tags()["histograms"]


def test_exact_figures_are_logged_at_each_evaluation(tmp_path):
    from rltorch.envs.tictactoe.evaluation import ExactScalars

    logger = TensorBoardLogger(tmp_path / "run")
    trainer = SARSATrainer(TicTacToeEnv(seat="both"), QTable(), seed=0, logger=logger, exact_eval=ExactScalars("both"))
    trainer.train(200, log_every=100, eval_every=100, eval_games=10, progress=False)
    logger.close()
    events = EventAccumulator(str(tmp_path / "run"))
    events.Reload()
    for seat in ("X", "O"):
        values = {tag: events.Scalars(f"eval/exact_{tag}_{seat}")[-1].value for tag in ("win", "draw", "loss")}
        assert sum(values.values()) == pytest.approx(1.0, abs=1e-6)
