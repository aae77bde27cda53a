import json
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

import rltorch
from rltorch.envs.tictactoe.evaluation import exact_report
from rltorch.envs.tictactoe.opponents import build_opponent, parse_opponent
from rltorch.envs.tictactoe.play import parse_cell
from rltorch.errors import RLTorchError

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = ROOT / "checkpoints" / "play_tictactoe.pt"


def rltorch_cli(*args, stdin=""):
    return subprocess.run([sys.executable, "-m", "rltorch", *map(str, args)], input=stdin,
                          capture_output=True, text=True, timeout=120)


def test_the_shipped_checkpoint_never_loses_to_perfect_play_and_beats_random():
    report = exact_report(rltorch.load(SHIPPED), "both")
    assert report["X"]["never_loses_vs_perfect"] and report["O"]["never_loses_vs_perfect"]
    assert report["X"]["win"] >= 0.98 and report["O"]["win"] >= 0.88
    assert report["X"]["loss"] == 0 and report["O"]["loss"] == 0


def test_evaluate_prints_exact_fractions_as_json():
    result = rltorch_cli("evaluate", SHIPPED, "--env-option", "seat=X", "--json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert Fraction(report["X"]["fractions"]["win"]) == Fraction(report["X"]["win"]).limit_denominator(10**6)
    assert rltorch_cli("evaluate", ROOT / "missing.pt").stderr.strip().startswith("error: checkpoint")


def test_play_handles_invalid_input_a_full_game_and_quitting():
    # Human is X. The agent's replies are deterministic, so play whatever is legal: the first empty
    # cell each time, after trying a taken cell, an out-of-range number and garbage.
    moves = "\n".join(["X", "5", "5", "10", "banana", "\u00b2", "0,9"] + [str(c) for c in range(1, 10)] * 1)
    result = rltorch_cli("play", "--checkpoint", SHIPPED, stdin=moves + "\nn\n")
    out = result.stdout
    assert result.returncode == 0, result.stderr
    assert "cell 5 is taken" in out and "10 is out of range" in out and "'banana' is not a cell" in out
    assert "rows and columns run from 1 to 3" in out and "'\u00b2' is not a cell" in out
    assert any(verdict in out for verdict in ("the agent wins", "draw", "you win!"))
    assert out.rstrip().endswith("bye") and "Traceback" not in result.stderr


def test_play_quits_on_q_and_on_end_of_input():
    assert rltorch_cli("play", "--checkpoint", SHIPPED, "--seat", "O", stdin="q\n").stdout.rstrip().endswith("bye")
    assert rltorch_cli("play", "--checkpoint", SHIPPED, stdin="").stdout.rstrip().endswith("bye")


def test_parse_cell():
    board = (1, 0, 0, 0, 0, 0, 0, 0, 0)
    assert parse_cell("9", board) == 8 and parse_cell("2,3", board) == 5
    assert parse_cell("1", board) == "cell 1 is taken"
    assert "out of range" in parse_cell("0", board)


def test_opponent_specs():
    assert parse_opponent("random:0.5,perfect:0.5") == [("random", 0.5), ("perfect", 0.5)]
    with pytest.raises(RLTorchError, match="unknown opponent 'genius'"):
        parse_opponent("genius")
    for bad in ("random:0", "random:inf,perfect:1", "random:nan", "random:-1"):
        with pytest.raises(RLTorchError, match="must be finite and positive"):
            parse_opponent(bad)
    opponent, self_play = build_opponent("self:1,random:1", 0.8)
    assert len(self_play) == 1 and self_play[0] in opponent.opponents


@pytest.fixture(scope="module")
def x_only(tmp_path_factory):
    """An agent that learned to play X only (a short run), as a checkpoint."""
    from rltorch.run.cli import train

    folder = tmp_path_factory.mktemp("x_only")
    assert train(["--episodes", "300", "--eval-every", "0", "--test-games", "5", "--no-progress", "--seat", "X",
                  "--log-dir", str(folder / "runs"), "--checkpoint", str(folder / "x.pt")],
                 "rltorch/TicTacToe-v0", "sarsa", "d") == 0
    return folder / "x.pt"


def test_play_gives_the_person_the_seat_the_agent_did_not_learn(x_only, monkeypatch, capsys):
    from rltorch.run import cli

    played = []
    monkeypatch.setattr("rltorch.envs.tictactoe.env.TicTacToeEnv.play_in_terminal",
                        lambda self, agent, seat=None: played.append(seat))
    assert cli.main(["play", "--checkpoint", str(x_only)]) == 0
    assert played == ["O"] and "the agent learned to play X; you play O" in capsys.readouterr().out
    assert cli.main(["play", "--checkpoint", str(x_only), "--seat", "X"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "learned to play X only" in err and played == ["O"]


def test_the_trusted_whole_module_path_works_end_to_end(x_only, tmp_path, monkeypatch, capsys):
    from rltorch.checkpoints import save_module
    from rltorch.run import cli

    monkeypatch.chdir(tmp_path)
    whole_agent = save_module(tmp_path / "agent.pt", rltorch.load(x_only))
    alone = save_module(tmp_path / "values.pt", rltorch.load(x_only).value_fn)
    for path in (whole_agent, alone):
        assert cli.main(["evaluate", str(path)]) == 1 and "trusted" in capsys.readouterr().err
        assert cli.main(["evaluate", str(path), "--trust"]) == 1
        assert "names no env: pass --env" in capsys.readouterr().err
        assert cli.main(["evaluate", str(path), "--trust", "--env", "rltorch/TicTacToe-v0", "--json"]) == 0
        assert json.loads(capsys.readouterr().out) == exact_report(rltorch.load(x_only), "X")
    played = []
    monkeypatch.setattr("rltorch.envs.tictactoe.env.TicTacToeEnv.play_in_terminal",
                        lambda self, agent, seat=None: played.append(agent.act((0,) * 9, list(range(9)))))
    assert cli.main(["play", "--checkpoint", str(whole_agent), "--trust", "--env", "rltorch/TicTacToe-v0"]) == 0
    assert played == [rltorch.load(x_only).act((0,) * 9, list(range(9)))]


def test_figure_opens_a_trusted_whole_module_value_table(tmp_path, monkeypatch, capsys):
    from rltorch.checkpoints import save_module
    from rltorch.run import cli

    monkeypatch.chdir(tmp_path)
    assert cli.main(["train", "--env", "FrozenLake-v1", "--algo", "qlearning", "--episodes", "200", "--eval-every", "0",
                     "--test-games", "5", "--no-progress", "--checkpoint", "lake.pt"]) == 0
    path = save_module(tmp_path / "lake_values.pt", rltorch.load("lake.pt").value_fn)
    assert cli.main(["figure", str(path), "--trust", "--env", "FrozenLake-v1", "--out", "pictures"]) == 0
    assert sorted(p.suffix for p in (tmp_path / "pictures").iterdir()) == [".png", ".png"]
    first = {p.name: p.read_bytes() for p in (tmp_path / "pictures").iterdir()}
    assert cli.main(["figure", str(path), "--trust", "--env", "FrozenLake-v1", "--out", "pictures"]) == 1
    assert "exist: choose another --out, or pass --overwrite" in capsys.readouterr().err
    assert {p.name: p.read_bytes() for p in (tmp_path / "pictures").iterdir()} == first
    assert cli.main(["figure", "lake.pt"]) == 0  # by default, a folder named after the checkpoint
    assert len(list((tmp_path / "runs" / "figures" / "lake").glob("*.png"))) == 2
