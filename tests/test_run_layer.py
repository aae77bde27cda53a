import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

import rltorch
from rltorch.run import cli
from tests.helpers import run_main

ROOT = Path(__file__).resolve().parents[1]
GAME_AND_STUDY_WORDS = ("tictactoe", "blackjack", "thorp", "figure", "study", "play", "evaluation", "cli")


@pytest.fixture(autouse=True)
def repository_on_path(monkeypatch):
    """`--env tests.chain_env:Chain-v0` imports from the repository root, as `python -m rltorch` run there does."""
    monkeypatch.syspath_prepend(str(ROOT))


def rltorch_cmd(*args, cwd=ROOT):
    """The `rltorch` command, run in this process (the console script itself is tested in a subprocess)."""
    return run_main(cli.main, *args, cwd=cwd)


def imports_of(path):
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            yield node.module
        elif isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)


def test_the_package_root_holds_only_library_modules():
    names = [path.stem for path in (ROOT / "rltorch").glob("*.py")]
    assert names and not [name for name in names if any(word in name for word in GAME_AND_STUDY_WORDS)]


def test_the_library_imports_no_study_and_envs_import_no_trainer_or_agent():
    for path in (ROOT / "rltorch").rglob("*.py"):
        modules = list(imports_of(path))
        assert not [m for m in modules if m.startswith("trainers") or m.startswith("thorp_")], path
        if "envs" in path.parts:
            assert not [m for m in modules if m.startswith(("rltorch.trainers", "rltorch.agents"))], path
        if "run" not in path.parts and path.name != "__main__.py":
            assert not [m for m in modules if m.startswith("rltorch.run")], path


def test_models_import_no_env_no_value_function_and_no_plotting():
    """`rltorch/mdp/` is pure: envs build models from it, pictures of models live in the run layer."""
    paths = list((ROOT / "rltorch" / "mdp").rglob("*.py"))
    assert len(paths) > 5
    for path in paths:
        forbidden = [m for m in imports_of(path) if m.startswith(("rltorch.envs", "rltorch.values", "matplotlib",
                                                                   "rltorch.run", "torch.utils.tensorboard"))]
        assert not forbidden, (path, forbidden)


def test_envs_import_no_run_layer_and_capabilities_import_no_env():
    for path in (ROOT / "rltorch" / "envs").rglob("*.py"):
        assert not [m for m in imports_of(path) if m.startswith(("rltorch.run", "matplotlib"))], path
    protocols = list(imports_of(ROOT / "rltorch" / "envs" / "capabilities.py"))
    assert not [m for m in protocols if m.startswith("rltorch.envs.") and m != "rltorch.envs.grid"], protocols


def test_a_users_own_env_trains_through_the_one_command(tmp_path):
    result = rltorch_cmd("train", "--env", "tests.chain_env:Chain-v0", "--algo", "sarsa", "--episodes", 400,
                         "--gamma", 1, "--eval-every", 200, "--eval-games", 10, "--test-games", 20, "--no-progress",
                         "--log-dir", tmp_path / "runs", "--checkpoint", tmp_path / "chain.pt",
                         "--json", tmp_path / "m.json")
    assert result.returncode == 0, result.stderr
    assert "mean return -2.000" in result.stdout  # the two-step exit, worked out by hand
    assert "wins" not in result.stdout and "losses" not in result.stdout
    metrics = json.loads((tmp_path / "m.json").read_text())
    assert metrics["env"] == "tests.chain_env:Chain-v0" and metrics["test_mean_return"] == -2.0
    assert "test_wins" not in metrics
    agent = rltorch.load(tmp_path / "chain.pt")
    assert agent.act(2, [0, 1]) in (0, 1) and agent.act(1, [0, 1]) == 0 and agent.act(3, [0, 1]) == 1


def test_the_console_script_is_python_dash_m_rltorch():
    script = Path(sys.executable).parent / "rltorch"
    assert script.exists()
    help_text = subprocess.run([script, "train", "--help"], capture_output=True, text=True, timeout=120).stdout
    module_help = subprocess.run([sys.executable, "-m", "rltorch", "train", "--help"], capture_output=True, text=True,
                                 timeout=120).stdout
    assert help_text == module_help and "--algo" in help_text


@pytest.mark.parametrize("argv", [["train", "--help"], ["evaluate", "--help"], ["plot", "--help"]])
def test_help_shows_each_default_once_and_never_none(argv):
    text = rltorch_cmd(*argv).stdout
    assert "(default: None)" not in text and "Run with --help" not in text
    assert not [line for line in text.splitlines() if line.count("(default:") > 1]


def test_abbreviated_options_are_refused():
    result = rltorch_cmd("train", "--episode", 10)
    assert result.returncode == 2 and "unrecognized arguments: --episode" in result.stderr


def test_scientific_episode_counts_are_accepted_everywhere(tmp_path):
    result = rltorch_cmd("train", "--env", "tests.chain_env:Chain-v0", "--episodes", "2e2", "--eval-every", 0,
                         "--test-games", 5, "--no-progress", "--log-dir", tmp_path, "--checkpoint", tmp_path / "c.pt")
    assert result.returncode == 0, result.stderr and result.stdout.startswith("200 episodes")


def test_evaluate_works_for_blackjack_and_refuses_an_env_without_exact_answers(tmp_path):
    trained = rltorch_cmd("train", "--env", "rltorch/Blackjack-v0", "--algo", "mc", "--episodes", 300, "--gamma", 1,
                          "--eval-every", 0, "--no-progress", "--log-dir", tmp_path, "--checkpoint", tmp_path / "bj.pt")
    assert trained.returncode == 0, trained.stderr
    report = json.loads(rltorch_cmd("evaluate", tmp_path / "bj.pt", "--json").stdout)
    assert report["optimum"] == pytest.approx(-0.0465560, abs=1e-7) and 0 <= report["policy_agreement"] <= 1
    assert report["return_gap"] == pytest.approx(report["optimum"] - report["expected_return"])
    shoe = rltorch_cmd("evaluate", tmp_path / "bj.pt", "--env-option", "decks=1")
    assert shoe.returncode == 1 and shoe.stderr.count("\n") == 1 and "no exact evaluation" in shoe.stderr


def test_plot_refuses_fewer_labels_than_runs_and_lists_the_tags_it_has(tmp_path):
    rltorch_cmd("train", "--env", "tests.chain_env:Chain-v0", "--episodes", 200, "--eval-every", 100, "--no-progress",
                "--log-dir", tmp_path, "--run-name", "a", "--checkpoint", tmp_path / "a.pt")
    two = rltorch_cmd("plot", tmp_path / "a", tmp_path / "a", "--labels", "one", "--out", tmp_path / "c.png")
    assert two.returncode == 1 and "1 labels for 2 runs" in two.stderr
    wrong = rltorch_cmd("plot", tmp_path / "a", "--tags", "eval/nothing", "--out", tmp_path / "c.png")
    assert wrong.returncode == 1 and "eval/mean_return" in wrong.stderr
    good = rltorch_cmd("plot", tmp_path / "a", "--out", tmp_path / "c.png")
    assert good.returncode == 0 and (tmp_path / "c.png").stat().st_size > 0


def scalar_tags(run_dir):
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    events = EventAccumulator(str(run_dir))
    events.Reload()
    return set(events.Tags()["scalars"]), set(events.Tags()["images"])


def test_an_env_without_a_model_trains_without_exact_curves_and_one_with_a_model_gets_them(tmp_path):
    common = ["--episodes", 200, "--eval-every", 100, "--eval-games", 5, "--test-games", 5, "--no-progress",
              "--log-dir", tmp_path]
    plain = rltorch_cmd("train", "--env", "tests.chain_env:Chain-v0", *common, "--run-name", "chain",
                        "--checkpoint", tmp_path / "chain.pt")
    grid = rltorch_cmd("train", "--env", "FrozenLake-v1", "--algo", "qlearning", "--gamma", 0.99, *common,
                       "--run-name", "lake", "--checkpoint", tmp_path / "lake.pt", "--json", tmp_path / "lake.json")
    assert plain.returncode == 0 == grid.returncode, plain.stderr + grid.stderr
    chain_scalars, chain_images = scalar_tags(tmp_path / "chain")
    lake_scalars, lake_images = scalar_tags(tmp_path / "lake")
    assert "eval/mean_return" in chain_scalars and not [t for t in chain_scalars if t.startswith("exact/")]
    assert {"exact/expected_return", "exact/return_gap", "exact/rms_error", "exact/policy_agreement"} <= lake_scalars
    assert {"grid/learned", "grid/compare"} <= lake_images and not chain_images
    exact = json.loads((tmp_path / "lake.json").read_text())["exact"]
    # FrozenLake 4x4 within its 100-step limit: the best success probability is 0.744190287829 (the solver's)
    assert exact["optimum"] == pytest.approx(0.744190287829, abs=1e-9)
    assert exact["return_gap"] == pytest.approx(exact["optimum"] - exact["expected_return"])
    figure = rltorch_cmd("figure", tmp_path / "lake.pt", "--out", tmp_path / "figures")
    assert figure.returncode == 0, figure.stderr
    assert (tmp_path / "figures" / "grid_compare.png").read_bytes()[:4] == b"\x89PNG"
    refused = rltorch_cmd("figure", tmp_path / "chain.pt")
    assert refused.returncode == 1 and "not a grid world" in refused.stderr


def test_help_and_bad_options_answer_without_loading_torch():
    probe = ("import sys\nfrom rltorch.run import cli\n"
             "for argv in (['--help'], ['evaluate', '--help'], ['figure', '--nope']):\n"
             "    try:\n        cli.main(argv)\n    except SystemExit:\n        pass\n"
             "print('torch' in sys.modules)")
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert result.stdout.strip().endswith("False"), result.stdout + result.stderr


class _CtrlCOnImport:
    """A meta-path finder that raises KeyboardInterrupt when `name` is imported (a Ctrl-C while torch loads)."""

    def __init__(self, name):
        self.name = name

    def find_spec(self, fullname, path=None, target=None):
        if fullname == self.name:
            raise KeyboardInterrupt
        return None


@pytest.mark.parametrize("argv", [["train", "--episodes", "10"], ["evaluate", "x.pt"], ["figure", "x.pt"]])
def test_ctrl_c_while_a_command_loads_is_a_clean_exit(argv, tmp_path, monkeypatch, capsys):
    import rltorch.run

    monkeypatch.chdir(tmp_path)
    monkeypatch.delitem(sys.modules, "rltorch.run.commands", raising=False)
    monkeypatch.delattr(rltorch.run, "commands", raising=False)
    monkeypatch.setattr(sys, "meta_path", [_CtrlCOnImport("rltorch.run.commands"), *sys.meta_path])
    assert cli.main(argv) == 130
    assert capsys.readouterr().err.strip() == "interrupted" and not list(tmp_path.iterdir())
