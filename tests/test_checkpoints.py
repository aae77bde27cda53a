import pytest
import torch

import rltorch
from rltorch import QTable, RLTorchError, SARSATrainer
from rltorch.checkpoints import load_checkpoint, save_checkpoint
from rltorch.envs.tictactoe.env import TicTacToeEnv, legal_moves


@pytest.fixture(scope="module")
def trainer():
    trainer = SARSATrainer(TicTacToeEnv(), QTable(alpha=0.1), seed=1)
    trainer.train(3000, progress=False, eval_every=0)
    return trainer


def test_load_gives_the_same_greedy_action_on_every_state(trainer, tmp_path):
    path = trainer.save(tmp_path / "run.pt")
    agent = rltorch.load(path)
    original = trainer.agent()
    states = {state for state, _ in trainer.value_fn.table}
    assert len(states) > 500
    for state in states:
        legal = legal_moves(state)
        assert agent.act(state, legal) == original.act(state, legal)
    assert agent.value_fn.table == trainer.value_fn.table


def test_checkpoint_carries_config_episodes_schedule_and_rng(trainer, tmp_path):
    payload = load_checkpoint(trainer.save(tmp_path / "run.pt"))
    assert payload["episodes"] == 3000
    assert payload["config"]["algorithm"] == "sarsa"
    assert payload["schedule"] == trainer.schedule
    assert payload["rng_state"] == trainer.rng.getstate()


def test_a_saved_state_dict_loads_with_weights_only(trainer, tmp_path):
    torch.save(trainer.value_fn.state_dict(), tmp_path / "table.pt")
    restored = QTable()
    restored.load_state_dict(torch.load(tmp_path / "table.pt", weights_only=True))
    assert restored.table == trainer.value_fn.table


def test_missing_truncated_and_foreign_files_give_one_clear_error(trainer, tmp_path):
    with pytest.raises(RLTorchError, match="does not exist"):
        rltorch.load(tmp_path / "nothing.pt")
    good = trainer.save(tmp_path / "good.pt").read_bytes()
    truncated = tmp_path / "truncated.pt"
    truncated.write_bytes(good[: len(good) // 2])
    with pytest.raises(RLTorchError, match=f"{truncated}.*truncated or not a torch file"):
        rltorch.load(truncated)
    text = tmp_path / "notes.pt"
    text.write_text("not a checkpoint")
    with pytest.raises(RLTorchError, match="truncated or not a torch file"):
        rltorch.load(text)
    foreign = tmp_path / "foreign.pt"
    torch.save({"weights": torch.zeros(3)}, foreign)
    with pytest.raises(RLTorchError, match=f"{foreign} is not an rltorch checkpoint"):
        rltorch.load(foreign)


def test_a_crash_mid_save_keeps_the_previous_checkpoint(trainer, tmp_path, monkeypatch):
    path = trainer.save(tmp_path / "run.pt")
    before = path.read_bytes()

    def broken_save(obj, file):
        file.write(b"partial")
        raise KeyboardInterrupt

    monkeypatch.setattr(torch, "save", broken_save)
    with pytest.raises(KeyboardInterrupt):
        save_checkpoint(path, {"agent": None})
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["run.pt"]
