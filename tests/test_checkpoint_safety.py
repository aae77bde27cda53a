"""Loading a checkpoint never runs code from it: hostile files are refused before anything in them executes.

Every hostile object here touches a marker file when unpickled. The tests check the objects are live (plain
unpickling does touch the marker), then that `rltorch.load` and `load_checkpoint` refuse each file with one
RLTorchError line and the marker never appears. A mutant that reads with `weights_only=False` (or falls back
to it) fails every one of them.
"""

from __future__ import annotations

import os
import pathlib
import pickle
import re
import shlex
import sys

import pytest
import torch

import rltorch
from rltorch import QTable, RLTorchError, SARSATrainer, VTable
from rltorch.checkpoints import FORMAT, load_checkpoint, save_checkpoint, save_module
from rltorch.envs.tictactoe.encoder import BoardEncoder
from rltorch.envs.tictactoe.env import TicTacToeEnv, afterstate, legal_moves
from rltorch.keys import AfterstateKeys
from rltorch.values import VNetwork

BOARD = (1, -1, 0, 0, 1, 0, 0, 0, -1)
REFUSAL = "holds pickled code or objects; it loads only with trusted=True"


class Touch:
    """Unpickling this touches `marker` (through pathlib, no shell)."""

    def __init__(self, marker: pathlib.Path) -> None:
        self.marker = marker

    def __reduce__(self):
        return (pathlib.Path.touch, (pathlib.Path(self.marker),))


class Shell:
    """Unpickling this runs a shell command that touches `marker`."""

    def __init__(self, marker: pathlib.Path) -> None:
        self.marker = marker

    def __reduce__(self):
        return (os.system, (f"touch {shlex.quote(str(self.marker))}",))


@pytest.fixture(scope="module")
def trainer():
    return SARSATrainer(TicTacToeEnv(), QTable(alpha=0.2), seed=0).train(200, progress=False, eval_every=0)


def hostile_files(folder: pathlib.Path, marker: pathlib.Path, trainer) -> dict[str, pathlib.Path]:
    """The hostile files, each armed with `marker`."""
    files = {name: folder / f"{name}.pt" for name in ("config", "bare", "pickle2", "pickle5", "shell", "inserted")}
    torch.save({"format": FORMAT, "version": 2, "config": {"algorithm": Touch(marker)}, "value_fn_config":
                {"class": "QTable"}, "value_fn_state": {}}, files["config"])  # (a) an object in the config
    torch.save({"x": Touch(marker)}, files["bare"])  # (b)
    for protocol in (2, 5):  # (c) a plain pickle, old and new protocol
        files[f"pickle{protocol}"].write_bytes(pickle.dumps(Touch(marker), protocol=protocol))
    torch.save({"format": FORMAT, "version": 2, "config": {"note": Shell(marker)}}, files["shell"])
    valid = trainer.checkpoint()  # (d) a real trainer's checkpoint with one hostile entry deep inside
    valid["value_fn_state"]["_extra_state"]["table"][((0,) * 9, 4)] = Touch(marker)
    torch.save({"format": FORMAT, "version": 2, **valid}, files["inserted"])
    return files


def test_the_hostile_objects_are_live(tmp_path):
    # without this, a refusal test could pass because the payload never worked
    for cls, name in ((Touch, "touched"), (Shell, "shelled")):
        marker = tmp_path / name
        pickle.loads(pickle.dumps(cls(marker)))
        assert marker.exists()
    marker = tmp_path / "torch"
    torch.save({"x": Touch(marker)}, tmp_path / "bare.pt")
    torch.load(tmp_path / "bare.pt", weights_only=False)
    assert marker.exists()


def test_hostile_files_are_refused_and_nothing_in_them_runs(trainer, tmp_path):
    marker = tmp_path / "MARKER"
    for name, path in hostile_files(tmp_path, marker, trainer).items():
        for read in (rltorch.load, load_checkpoint, lambda p: trainer.restore(load_checkpoint(p))):
            with pytest.raises(RLTorchError, match=f"^{re.escape(str(path))} {REFUSAL}") as refused:
                read(path)
            assert "\n" not in str(refused.value), name
        assert not marker.exists(), f"loading {name} ran its code"


def test_the_shipped_kind_of_old_checkpoint_is_refused_without_trust(trainer, tmp_path):
    # version-1 checkpoints pickled the agent; they load only when trusted (mutant: reading them by default)
    old = tmp_path / "v1.pt"
    torch.save({"format": FORMAT, "version": 1, "agent": trainer.agent(), "config": trainer.config()}, old)
    with pytest.raises(RLTorchError, match=REFUSAL):
        rltorch.load(old)
    assert rltorch.load(old, trusted=True).act(BOARD, legal_moves(BOARD)) == trainer.agent().act(BOARD,
                                                                                                 legal_moves(BOARD))


def test_a_whole_module_file_loads_and_acts_when_trusted(tmp_path):
    torch.manual_seed(0)
    network = SARSATrainer(TicTacToeEnv(), VNetwork(BoardEncoder(), (8,)), keys=AfterstateKeys(afterstate), seed=0)
    network.train(20, progress=False, eval_every=0)
    path = save_module(tmp_path / "agent.pt", network.agent())
    with pytest.raises(RLTorchError, match=REFUSAL):
        rltorch.load(path)
    agent = rltorch.load(path, trusted=True)
    assert agent.act(BOARD, legal_moves(BOARD)) == network.agent().act(BOARD, legal_moves(BOARD))
    assert [p.name for p in tmp_path.iterdir()] == ["agent.pt"]
    data = rltorch.load(network.save(tmp_path / "data.pt"))  # the same learner as data, rebuilt without trust
    assert torch.equal(data.value_fn([BOARD]), network.value_fn([BOARD]))


def test_classes_named_in_a_file_come_only_from_rltorch(trainer, tmp_path, monkeypatch):
    # mutant: importing whatever module a checkpoint names (its import would run the marker module)
    marker = tmp_path / "IMPORTED"
    (tmp_path / "hostile_module.py").write_text(f"import pathlib\npathlib.Path({str(marker)!r}).touch()\n"
                                                 "class Thing:\n    afterstate = None\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    network = VNetwork(BoardEncoder(), (8,))
    base = {"config": {"keys": "q"}, "value_fn_state": network.state_dict()}
    for encoder, message in (("hostile_module:Thing", "not a class of rltorch's own modules"),
                             ("rltorch.checkpoints:os", "is not a Encoder"),
                             ("rltorch.values.encoders:Encoder.__subclasses__", "no class")):
        config = {**network.config(), "encoder": {"class": encoder, "args": {}}}
        path = save_checkpoint(tmp_path / "net.pt", {**base, "value_fn_config": config})
        with pytest.raises(RLTorchError, match=message):
            rltorch.load(path)
    table = VTable()
    table.update(afterstate(BOARD[:4] + (0,) * 5, 5), 1.0)
    data = {"config": {"keys": "afterstate", "env_class": "hostile_module:Thing"}, "value_fn_config": table.config(),
            "value_fn_state": table.state_dict()}
    path = save_checkpoint(tmp_path / "afterstates.pt", data)
    with pytest.raises(RLTorchError, match="not an rltorch env; pass keys=AfterstateKeys"):
        rltorch.load(path)
    assert rltorch.load(path, keys=AfterstateKeys(afterstate)).act(BOARD[:4] + (0,) * 5, [5, 6]) == 5
    assert not marker.exists() and "hostile_module" not in sys.modules
    path = save_checkpoint(tmp_path / "unknown.pt", {**data, "value_fn_config": {"class": "Pwn"}})
    with pytest.raises(RLTorchError, match="'Pwn', not one of QTable"):
        rltorch.load(path)


def test_unreadable_files_give_one_clear_error_naming_the_path(trainer, tmp_path):
    good = trainer.save(tmp_path / "good.pt")
    truncated = tmp_path / "truncated.pt"
    truncated.write_bytes(good.read_bytes()[:500])
    (tmp_path / "empty.pt").write_bytes(b"")
    (tmp_path / "text.pt").write_text("not a checkpoint")
    torch.save({"weights": torch.zeros(2)}, tmp_path / "foreign.pt")
    (tmp_path / "folder.pt").mkdir()
    cases = {
        tmp_path / "missing.pt": "checkpoint {} does not exist",
        tmp_path / "folder.pt": "{} is a directory, not a checkpoint",
        truncated: "checkpoint {} is truncated or not a torch file",
        tmp_path / "empty.pt": "checkpoint {} is truncated or not a torch file",
        tmp_path / "text.pt": "checkpoint {} is truncated or not a torch file",
        tmp_path / "foreign.pt": "{} is not an rltorch checkpoint",
    }
    for path, message in cases.items():
        for read in (rltorch.load, load_checkpoint):
            with pytest.raises(RLTorchError, match="^" + re.escape(message.format(path))):
                read(path)


@pytest.mark.parametrize("key", ["config", "value_fn_config", "value_fn_state"])
def test_a_checkpoint_missing_a_key_names_it(trainer, tmp_path, key):
    data = {name: value for name, value in trainer.checkpoint().items() if name != key}
    path = save_checkpoint(tmp_path / "partial.pt", data)
    for read in (rltorch.load, load_checkpoint):
        with pytest.raises(RLTorchError, match=re.escape(f"checkpoint {path} has no '{key}'")):
            read(path)


@pytest.mark.parametrize("command", [
    ["evaluate", "{path}"], ["play", "--checkpoint", "{path}"], ["figure", "{path}"], ["train", "--resume", "{path}"],
])
def test_the_commands_refuse_hostile_files_in_one_line_without_running_them(command, trainer, tmp_path, monkeypatch,
                                                                             capsys):
    from rltorch.run.cli import main

    monkeypatch.chdir(tmp_path)
    marker = tmp_path / "MARKER"
    for name, path in hostile_files(tmp_path, marker, trainer).items():
        status = main([part.format(path=path) for part in command])
        err = capsys.readouterr().err
        assert status == 1 and err.count("\n") == 1 and "trusted" in err, (name, err)
        assert not marker.exists(), f"{command[0]} on {name} ran its code"
