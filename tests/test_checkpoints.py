import os

import pytest
import torch

import rltorch
from rltorch import QTable, RLTorchError, SARSATrainer
from rltorch.checkpoint_data import schedule_from_data, schedule_to_data
from rltorch.checkpoints import (
    FORMAT,
    load_checkpoint,
    remove_stale_temp_files,
    save_checkpoint,
    save_module,
)
from rltorch.envs.tictactoe.env import TicTacToeEnv, legal_moves
from rltorch.policies import ConstantSchedule, ExponentialSchedule, LinearSchedule


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
    assert schedule_from_data(payload["schedule"]) == trainer.schedule
    assert payload["rng_state"] == trainer.rng.getstate()
    # the whole file is data: plain torch.load with weights_only=True reads it (mutant: an object in the dict)
    raw = torch.load(tmp_path / "run.pt", weights_only=True)
    assert raw["format"] == FORMAT and raw["version"] == 2 and "agent" not in raw
    assert raw["value_fn_state"]["_extra_state"]["table"] == trainer.value_fn.table


SCHEDULES = [ConstantSchedule(0.2), LinearSchedule(0.9, 0.1, 50), ExponentialSchedule(1, 0, 9)]


@pytest.mark.parametrize("schedule", SCHEDULES)
def test_schedules_round_trip_as_data(schedule):
    data = schedule_to_data(schedule)
    assert all(isinstance(value, (str, int, float)) for value in data.values())
    assert schedule_from_data(data) == schedule
    with pytest.raises(RLTorchError, match="cannot|not one rltorch"):
        schedule_from_data(schedule_to_data(lambda episode: 0.1))


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


def test_save_checkpoint_refuses_objects_before_writing(trainer, tmp_path):
    # mutant: save_checkpoint pickling whatever it is given (a file that then needs trusted=True to load)
    with pytest.raises(RLTorchError, match=r"checkpoint\['agent'\] is a rltorch.agents.GreedyAgent, not data"):
        save_checkpoint(tmp_path / "run.pt", {"agent": trainer.agent()})
    assert list(tmp_path.iterdir()) == []


def test_a_save_removes_temp_files_of_killed_saves_of_the_same_checkpoint_only(trainer, tmp_path):
    # mutant: no clean-up (orphans pile up), or a clean-up that also takes other checkpoints' or live saves' files
    dead = 2**22 + 12345  # above the default pid_max: no such process
    orphans = [tmp_path / f".run.pt.{dead}.abcd1234.tmp", tmp_path / ".run.pt.xyz_9876.tmp"]
    kept = [tmp_path / f".run.pt.{os.getpid()}.live0000.tmp", tmp_path / f".other.pt.{dead}.abcd1234.tmp",
            tmp_path / f".run.pt.5.{dead}.abcd1234.tmp", tmp_path / "notes.tmp"]
    for file in orphans + kept:
        file.write_bytes(b"partial")
    trainer.save(tmp_path / "run.pt")
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["run.pt", *(p.name for p in kept)])
    assert remove_stale_temp_files(tmp_path / "run.pt") == []


def test_old_pickled_checkpoints_and_whole_modules_load_only_when_trusted(trainer, tmp_path):
    old = tmp_path / "v1.pt"  # the version-1 layout: the greedy agent pickled whole
    torch.save({"format": FORMAT, "version": 1, "agent": trainer.agent(), "config": trainer.config()}, old)
    module = save_module(tmp_path / "module.pt", trainer.agent())
    board = (1, -1, 0, 0, 0, 0, 0, 0, 0)
    for path in (old, module):
        refusal = f"{path} holds pickled code or objects; it loads only with trusted=True"
        with pytest.raises(RLTorchError, match=refusal):
            rltorch.load(path)
        with pytest.raises(RLTorchError, match="trusted=True"):
            load_checkpoint(path)
        agent = rltorch.load(path, trusted=True)
        assert agent.act(board, legal_moves(board)) == trainer.agent().act(board, legal_moves(board))


def test_networks_with_generic_encoders_rebuild_from_data(tmp_path):
    # mutant: an encoder saved without its constructor arguments (sizes, the state encoder, the action count)
    import gymnasium as gym

    from rltorch.values import PairEncoder, VNetwork, space_encoder

    env = gym.make("FrozenLake-v1", map_name="4x4")
    torch.manual_seed(0)
    network = VNetwork(PairEncoder(space_encoder(env.observation_space), 4), hidden=(8,))
    trainer = SARSATrainer(env, network, seed=0).train(30, progress=False, eval_every=0)
    agent = rltorch.load(trainer.save(tmp_path / "lake.pt"))
    encoder = agent.value_fn.encoder
    assert type(encoder) is PairEncoder and encoder.actions == 4 and encoder.state_encoder.sizes == [(0, 16)]
    keys = [(state, action) for state in range(16) for action in range(4)]
    assert torch.equal(agent.value_fn(keys), trainer.value_fn(keys))
    assert [agent.act(state, [0, 1, 2, 3]) for state in range(16)] == [trainer.agent().act(s, [0, 1, 2, 3])
                                                                         for s in range(16)]
