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
