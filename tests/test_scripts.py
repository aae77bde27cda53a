import json
import subprocess
import sys
from pathlib import Path

import pytest

import rltorch
from rltorch.run import cli
from tests.helpers import load_script, run_main

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = ["sarsa_trainer.py", "qlearning_trainer.py", "mc_trainer.py"]


def run_script(script, *args, cwd):
    return subprocess.run(
        [sys.executable, str(ROOT / "trainers" / script), *map(str, args)],
        capture_output=True, text=True, cwd=cwd, timeout=300,
    )


@pytest.mark.parametrize("script", SCRIPTS)
def test_script_trains_and_writes_json(script, tmp_path):
    result = run_script(
        script, "--episodes", 300, "--eval-every", 100, "--eval-games", 20, "--test-games", 50,
        "--log-dir", tmp_path / "runs", "--run-name", "smoke", "--json", tmp_path / "out.json", "--no-progress",
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr
    metrics = json.loads((tmp_path / "out.json").read_text())
    assert metrics["episodes"] == 300 and metrics["test_episodes"] == 50 and metrics["env"] == "rltorch/TicTacToe-v0"
    assert metrics["test_wins"] + metrics["test_losses"] + metrics["test_draws"] == 50
    assert metrics["test_mean_return"] == (metrics["test_wins"] - metrics["test_losses"]) / 50
    assert metrics["table_size"] > 100 and metrics["episodes_per_second"] > 0
    assert Path(metrics["checkpoint"]) == Path("checkpoints/smoke.pt")
    agent = rltorch.load(tmp_path / metrics["checkpoint"])
    assert agent.act((0,) * 9, list(range(9))) in range(9)
    assert list((tmp_path / "runs" / "smoke").glob("events.out.tfevents.*"))
    assert "losses" in result.stdout and "checkpoint:" in result.stdout


@pytest.mark.parametrize("script", SCRIPTS)
def test_help(script, tmp_path):
    result = run_main(load_script(f"trainers/{script}").main, "--help", cwd=tmp_path)
    assert result.returncode == 0 and "--episodes" in result.stdout and "--epsilon-schedule" in result.stdout


@pytest.mark.parametrize(
    "args, message",
    [
        (["--episodes", "-5"], "must be a whole number >= 1"),
        (["--alpha", "2"], "must be in (0, 1]"),
        (["--alpha", "0"], "must be in (0, 1]"),
        (["--epsilon-decay", "0"], "must be > 0"),
        (["--epsilon-decay", "nan"], "must be a finite number"),
        (["--lr", "inf"], "must be a finite number"),
        (["--seed", "-1"], "must be a whole number >= 0"),
        (["--opponent", "random:inf,perfect:1"], "must be finite and positive"),
        (["--seat", "Z"], "invalid choice"),
    ],
)
def test_bad_input_gives_one_message_and_a_non_zero_exit(args, message, tmp_path):
    # In this process (a traceback would fail the test); test_unwritable_log_dir_... runs one in a subprocess.
    result = run_main(load_script("trainers/sarsa_trainer.py").main, *args,
                      "--episodes" if "--episodes" not in args else "--seed", 10, "--log-dir", tmp_path,
                      "--no-progress", cwd=tmp_path)
    assert result.returncode != 0 and not list(tmp_path.iterdir())  # refused before any file or folder is made
    assert message in result.stderr and "Traceback" not in result.stderr


def test_unwritable_checkpoint_is_a_clear_error(tmp_path):
    (tmp_path / "file").write_text("x")
    result = run_script("sarsa_trainer.py", "--episodes", 100, "--checkpoint", tmp_path / "file" / "run.pt",
                        "--log-dir", tmp_path / "runs", "--test-games", 10, "--no-progress", cwd=tmp_path)
    assert result.returncode == 2 and not (tmp_path / "runs").exists()  # refused before training
    assert f"{tmp_path / 'file'} is not a directory" in result.stderr and "Traceback" not in result.stderr


def test_self_play_and_afterstate_options(tmp_path):
    result = run_script(
        "qlearning_trainer.py", "--episodes", 1500, "--values", "afterstate", "--seat", "both",
        "--opponent", "self:0.5,smart:0.5", "--self-play-every", 500, "--eval-every", 500, "--eval-games", 20,
        "--test-games", 20, "--log-dir", tmp_path / "runs", "--run-name", "sp", "--json", tmp_path / "sp.json",
        "--no-progress", cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr
    metrics = json.loads((tmp_path / "sp.json").read_text())
    assert set(metrics["exact"]) == {"X", "O"}
    assert metrics["reachable_keys"] == 2739 + 2738
    assert 0 < metrics["table_size"] <= metrics["reachable_keys"]


def test_the_self_play_opponent_copies_the_values_every_k_episodes():
    from rltorch import QTable, SARSATrainer
    from rltorch.envs.tictactoe.env import TicTacToeEnv

    env = TicTacToeEnv("self", seat="both", self_play_every=300)
    opponent = env.self_play[0]
    trainer = SARSATrainer(env, QTable(), seed=0)

    def refresh(t):
        env.refresh_opponent(t.value_fn, t.keys, t.episodes_done)

    trainer.train(200, log_every=100, eval_every=0, progress=False, callback=refresh)
    assert opponent.value_fn is None
    trainer.train(100, log_every=100, eval_every=0, progress=False, callback=refresh)
    assert opponent.value_fn is not trainer.value_fn and opponent.value_fn.table == trainer.value_fn.table


def run_study(script, *args, cwd):
    return subprocess.run([sys.executable, str(ROOT / "trainers" / script), *map(str, args)],
                          capture_output=True, text=True, cwd=cwd, timeout=300)


def test_compare_tables_small(tmp_path):
    result = run_study("compare_tables/compare_tables.py", "--episodes", 400, "--seeds", 1, "--check-every", 200,
                       "--json", tmp_path / "c.json", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    runs = json.loads((tmp_path / "c.json").read_text())
    sizes = {run["kind"]: run["table_size"] for run in runs}
    assert sizes["afterstate"] < sizes["q"]
    assert "| afterstate |" in result.stdout


def test_generalization_small(tmp_path):
    result = run_study("networks/generalization.py", "--episodes", 60, "--hidden", 8, "--json", tmp_path / "g.json",
                       cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    report = json.loads((tmp_path / "g.json").read_text())
    assert 0 < report["afterstates_fitted"] < report["afterstates_reachable"] == 2739
    assert 0 <= report["network_optimal_on_unseen"] <= report["unseen_positions"]
    assert 0 < report["random_move_expected_share"] < 1


def test_network_blackjack_small(tmp_path):
    result = run_study("networks/network_blackjack.py", "--episodes", 300, "--eval-every", 300, "--hidden", 8,
                       "--log-dir", tmp_path / "runs", "--json", tmp_path / "b.json", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    figures = json.loads((tmp_path / "b.json").read_text())
    exact = figures["exact"]
    assert -1 < exact["expected_return"] < 0 and exact["return_gap"] == exact["optimum"] - exact["expected_return"]


def test_plot_command_draws_runs_side_by_side(tmp_path):
    sarsa = load_script("trainers/sarsa_trainer.py")
    for name in ("a", "b"):
        trained = run_main(sarsa.main, "--episodes", 200, "--eval-every", 100, "--eval-games", 10, "--test-games", 10,
                           "--log-dir", tmp_path / "runs", "--run-name", name, "--no-progress", cwd=tmp_path)
        assert trained.returncode == 0, trained.stderr
    result = run_main(cli.main, "plot", tmp_path / "runs" / "a", tmp_path / "runs" / "b",
                      "--tags", "eval/exact_loss", "train/return", "--out", tmp_path / "curves.png", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "curves.png").read_bytes()[:4] == b"\x89PNG"
    missing = run_main(cli.main, "plot", tmp_path / "runs" / "a", "--tags", "nope", cwd=tmp_path)
    assert missing.returncode == 1 and "has no scalar 'nope'" in missing.stderr


def test_unwritable_log_dir_and_a_foreign_checkpoint_are_clear_errors(tmp_path):
    (tmp_path / "file").write_text("x")
    result = run_script("sarsa_trainer.py", "--episodes", 10, "--log-dir", tmp_path / "file" / "runs",
                        "--no-progress", cwd=tmp_path)
    assert result.returncode == 2 and "is not a directory" in result.stderr and "Traceback" not in result.stderr
    blackjack = run_study("chapter5/blackjack_mc.py", "--episodes", 200, "--eval-every", 0, "--checkpoint",
                          tmp_path / "bj.pt",
                          "--log-dir", tmp_path / "runs", "--no-progress", cwd=tmp_path)
    assert blackjack.returncode == 0, blackjack.stderr
    evaluate = run_main(cli.main, "evaluate", tmp_path / "bj.pt", cwd=tmp_path)
    assert evaluate.returncode == 0 and "exact expected return" in evaluate.stdout


def test_compare_tables_refuses_a_zero_step_size_in_one_line(tmp_path):
    # Mutant: --alpha 0 (a unit_float) passed the parser and ended in a traceback.
    compare = load_script("trainers/compare_tables/compare_tables.py")
    result = run_main(compare.main, "--alpha", "0", "--episodes", 10, cwd=tmp_path)
    assert result.returncode == 2 and result.stderr.count("\n") == 1 and "must be in (0, 1]" in result.stderr


def test_sb3_comparison_writes_a_new_folder_and_refuses_to_overwrite_before_any_work(tmp_path):
    # Mutant: the fixed default folder runs/sb3_comparison was rewritten by every run without asking.
    comparison = load_script("trainers/ecosystem/sb3_comparison.py")
    (tmp_path / "taken").mkdir()
    (tmp_path / "taken" / "sb3_comparison.md").write_text("earlier\n")
    result = run_main(comparison.main, "--out", "taken", "--ppo-steps", 64, "--ppo-n-steps", 64, cwd=tmp_path)
    assert result.returncode == 1
    assert result.stderr == "error: taken/sb3_comparison.md exists: choose another --out, or pass --overwrite\n"
    assert [path.name for path in tmp_path.rglob("*")] == ["taken", "sb3_comparison.md"]
    args = comparison.build_parser().parse_args(["--seed", "3"])
    comparison.choose_out(args)
    assert args.out.parent == Path("runs") and args.out.name.startswith("TicTacToe-v0__sb3_comparison__3__")
