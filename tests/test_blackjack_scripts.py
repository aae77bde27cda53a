import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

import rltorch
from rltorch.agents import PolicyAgent
from rltorch.envs.blackjack.evaluation import StickAtLeast
from rltorch.envs.blackjack.solver import policy_value, q_star
from tests.helpers import load_script, run_main
from trainers.chapter5.figures import figure_5_1, figure_5_2

ROOT = Path(__file__).resolve().parents[1]



script = load_script("trainers/chapter5/blackjack_mc.py")
plain = load_script("bench/plain_blackjack.py")


@pytest.mark.parametrize("method", ["prediction", "es", "on-policy", "off-policy-prediction", "off-policy-control"])
def test_each_method_trains_logs_saves_and_reports(method, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code = script.main(["--method", method, "--episodes", "600", "--eval-every", "300", "--eval-games", "20",
                        "--run-name", "smoke", "--json", "out.json", "--no-progress"])
    assert code == 0
    metrics = json.loads((tmp_path / "out.json").read_text())
    assert metrics["episodes"] == 600 and math.isfinite(metrics["rms_error"])
    assert ("expected_return" in metrics) == (method not in ("prediction", "off-policy-prediction"))
    assert list((tmp_path / "runs" / "smoke").glob("events.out.tfevents.*"))
    policy = StickAtLeast(20) if method.endswith("prediction") else None
    agent = rltorch.load(tmp_path / "checkpoints" / "smoke.pt", policy=policy)
    assert isinstance(agent, PolicyAgent) == method.endswith("prediction")
    assert agent.act((20, 3, 0), [0, 1]) in (0, 1)


def test_es_history_reports_when_the_policy_agreed(tmp_path, monkeypatch):
    # Catches the mutant of EvaluationHistory.agreement_milestones that reports None for both milestones: the
    # exact evaluator's clear disagreements with pi* are scripted per evaluation (a real run this short never
    # agrees), so the greedy policy first agrees at 1000 episodes, disagrees again at 1500 and agrees from 2000 on.
    disagreements = {500: 3, 1000: 0, 1500: 2, 2000: 0, 2500: 0}
    build, evaluated = script.build, []

    def build_with_scripted_disagreements(args):
        trainer = build(args)
        exact = trainer.exact_eval

        class Scripted:
            policy = exact.policy  # None: control, whose milestones the script reports

            def __call__(self, agent):
                evaluated.append(trainer.episodes_done)
                return {**exact(agent), "exact/clear_disagreements": float(disagreements[trainer.episodes_done])}

        trainer.exact_eval = Scripted()
        return trainer

    monkeypatch.setattr(script, "build", build_with_scripted_disagreements)
    monkeypatch.chdir(tmp_path)
    assert script.main(["--method", "es", "--episodes", "2500", "--log-every", "500", "--eval-every", "500",
                        "--eval-games", "10", "--json", "es.json", "--no-progress"]) == 0
    assert sorted(set(evaluated)) == sorted(disagreements)
    metrics = json.loads((tmp_path / "es.json").read_text())
    assert (metrics["first_agreement_at"], metrics["agreement_held_from"]) == (1000, 2000)
    assert metrics["clear_disagreements"] == 0 and math.isfinite(metrics["rms_error"])


@pytest.mark.parametrize(
    "args, message",
    [
        (["--episodes", "0"], "must be a whole number >= 1"),
        (["--threshold", "30"], "must be a sum from 12 to 22"),
        (["--start-state", "13,2"], "must be SUM,DEALER,USABLE"),
        (["--epsilon", "1.5"], "must be in [0, 1]"),
        (["--method", "sarsa"], "invalid choice"),
    ],
)
def test_bad_input_gives_one_message_and_a_non_zero_exit(args, message, capsys):
    with pytest.raises(SystemExit) as exit_info:
        script.main(args)
    assert exit_info.value.code != 0 and message in capsys.readouterr().err


def test_exploring_starts_on_gymnasium_is_a_clear_error(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert script.main(["--method", "es", "--env", "gymnasium", "--episodes", "10", "--no-progress"]) == 1
    assert "error: Gymnasium's Blackjack-v1 cannot start from a chosen state" in capsys.readouterr().err


def test_figure_script_writes_pngs_and_tensorboard_images(tmp_path):
    result = subprocess.run(
        [sys.executable, str(ROOT / "trainers" / "chapter5" / "blackjack_figures.py"), "--figure", "5.3", "--runs", "3",
         "--episodes", "50", "--run-name", "fig", "--out", "docs", "--json", "fig.json"],
        capture_output=True, text=True, cwd=tmp_path, timeout=300,
    )
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "runs" / "fig" / "figure_5_3.png").stat().st_size > 1000
    assert (tmp_path / "docs" / "figure_5_3.png").is_file()
    events = next((tmp_path / "runs" / "fig").glob("events.out.tfevents.*"))
    assert b"figures/figure_5_3" in events.read_bytes()
    assert set(json.loads((tmp_path / "fig.json").read_text())["mse"]) == {"ordinary", "weighted"}


def test_figure_script_refuses_to_overwrite_before_any_work(tmp_path):
    # Mutant: a second run with the same --run-name or --out rewrote the first one's PNGs without asking.
    figures = load_script("trainers/chapter5/blackjack_figures.py")
    (tmp_path / "runs" / "fig").mkdir(parents=True)
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "figure_5_3.png").write_bytes(b"tracked")
    common = ["--figure", "5.3", "--runs", "2", "--episodes", "20", "--no-progress", "--dpi", "20"]
    for argv, taken in ((["--run-name", "fig"], "runs/fig"), (["--out", "docs"], "docs/figure_5_3.png")):
        result = run_main(figures.main, *common, *argv, cwd=tmp_path)
        assert result.returncode == 1 and result.stderr == f"error: {taken} exists: choose another --run-name or " \
            "--out, or pass --overwrite\n"
    assert {path.name for path in tmp_path.rglob("*")} == {"runs", "fig", "docs", "figure_5_3.png"}
    result = run_main(figures.main, *common, "--run-name", "fig", "--out", "docs", "--overwrite", cwd=tmp_path)
    assert result.returncode == 0 and (tmp_path / "docs" / "figure_5_3.png").read_bytes()[:4] == b"\x89PNG"


def test_figure_5_1_and_5_2_draw_their_panels():
    figures, numbers = figure_5_1((500, 1000), seed=0)
    assert set(figures) == {"figure_5_1", "figure_5_1_heatmaps"} and len(figures["figure_5_1"].axes) == 6
    assert numbers["rms_error"][1000] < numbers["rms_error"][500]
    figures, numbers = figure_5_2(3000, seed=0)
    assert len(figures["figure_5_2"].axes) == 6 and 0 <= numbers["policy_agreement"] <= 1


def test_plain_baselines_compute_what_they_claim():
    v = policy_value(StickAtLeast(20))
    book = plain.book_prediction(20_000, seed=0)
    sums, counts = plain.lean_prediction(20_000, seed=0)
    for state in ((20, 10, 0), (13, 5, 0)):
        s, d, u = state
        value = v[state]
        assert book[u, s - 12, d - 1] == pytest.approx(value, abs=0.1)
        index = u * 100 + (s - 12) * 10 + d - 1
        assert sums[index] / counts[index] == pytest.approx(value, abs=0.1)
    q = q_star()[(20, 10, 0)]
    es_sums, es_counts = plain.lean_es(20_000, seed=0)
    index = 2 * ((20 - 12) * 10 + 10 - 1)
    assert es_sums[index] / es_counts[index] == pytest.approx(q[0], abs=0.15)
    assert plain.book_es(300, seed=0).shape == (2, 10, 10, 2)
