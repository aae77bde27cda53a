"""The run config: built once at the command line, frozen, restored on resume; options declared by classes."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from rltorch.options import Option
from rltorch.run.cli import train_parser
from rltorch.run.commands import run_config
from rltorch.run.config import RunConfig
from rltorch.run.training import build_trainer
from rltorch.trainers import TRAINERS, DQNTrainer, NStepSARSATrainer

ROOT = Path(__file__).resolve().parents[1]


def config_of(*argv: str, saved: dict | None = None) -> RunConfig:
    args = train_parser(None, None).parse_args(list(argv))
    return run_config(args, saved or {}, args.env, None)


def test_the_config_is_frozen_and_gathers_the_declared_options():
    config = config_of("--env", "FrozenLake-v1", "--algo", "nstep-sarsa", "--n", "3", "--alpha", "0.2")
    assert (config.env, config.algo, config.alpha, config.algo_options) == ("FrozenLake-v1", "nstep-sarsa", 0.2,
                                                                            {"n": 3})
    with pytest.raises(dataclasses.FrozenInstanceError):
        config.alpha = 0.5
    assert build_trainer(config).n == 3


def test_env_options_come_from_declared_flags_and_env_option_pairs():
    args = train_parser("rltorch/TicTacToe-v0", None).parse_args(["--seat", "O", "--smart-p", "0.5"])
    config = run_config(args, {}, "rltorch/TicTacToe-v0", None)
    assert config.env_options == {"opponent": "random", "seat": "O", "smart_p": 0.5, "self_play_every": 1000}
    plain = config_of("--env", "FrozenLake-v1", "--env-option", "is_slippery=False")
    assert plain.env_options == {"is_slippery": False}


def test_resume_restores_the_saved_settings_over_the_command_line():
    config = config_of("--env", "FrozenLake-v1", "--algo", "dyna-q", "--planning-steps", "2")
    restored = config.restored({"planning_steps": 7, "gamma": 0.5},
                               algo_options=TRAINERS["dyna-q"].options)
    assert (restored.algo_options, restored.gamma, config.gamma) == ({"planning_steps": 7}, 0.5, 0.9)


def test_each_algorithm_declares_its_options_and_train_offers_them_bounded():
    assert [o.name for o in NStepSARSATrainer.options] == ["n"]
    assert [o.name for o in DQNTrainer.options] == ["replay_size", "batch_size", "target_update_every"]
    actions = {a.dest: a for a in train_parser(None, None)._actions}
    for cls in TRAINERS.values():
        for option in cls.options:
            action = actions[option.name]
            assert action.default == option.default
            if option.type is int:
                assert action.type.maximum == option.maximum


def test_a_clash_between_declared_options_is_one_error_before_any_file():
    config = config_of("--env", "FrozenLake-v1", "--algo", "dqn", "--replay-size", "10", "--batch-size", "20")
    with pytest.raises(Exception, match="larger than --replay-size"):
        build_trainer(config)


def test_the_run_layer_has_no_string_switches_on_algorithm_names():
    """What an algorithm needs is declared on its class, not guessed from its name."""
    pattern = re.compile(r"""startswith\("(nstep|mc)|== "(mc|mc-es|mc-offpolicy|dqn|dyna-q)"|in \("mc""")
    for path in (ROOT / "rltorch" / "run").glob("*.py"):
        assert not [line for line in path.read_text().splitlines() if pattern.search(line)], path


def test_an_option_spells_its_flag():
    assert Option("planning_steps", int, 5, "h").flag == "--planning-steps"
