"""The Mountain Car figure scripts of chapter 10 (Figures 10.1-10.4) at small sizes: their numbers are the engine's.

Every study plays run i on run i's stream, so the same (method, alpha) gives the same episodes in every
script: each check sets two scripts' numbers side by side, or a script's beside the engine's own lanes.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from trainers.chapter10 import figure_10_1, figure_10_2, figure_10_3, figure_10_4
from trainers.chapter10.engine import CODES, Lanes, Settings, book_coder

SMALL = ["--runs", "3", "--episodes", "2", "--no-progress", "--seed", "7"]


def numbers(module, stem: str, argv: list[str], folder: Path) -> dict:
    """Run a study script in-process with its outputs in `folder`; its JSON."""
    assert module.main([*argv, "--out", str(folder), "--log-dir", str(folder / "runs"), "--dpi", "30"]) == 0
    assert (folder / f"{stem}.png").stat().st_size > 0 and (folder / f"{stem}.md").exists()
    return json.loads((folder / f"{stem}.json").read_text())


def test_figure_10_2_is_the_engines_lanes_with_standard_errors(tmp_path):
    result = numbers(figure_10_2, figure_10_2.STEM, [*SMALL, "--alphas", "0.5"], tmp_path)
    line = result["lines"]["alpha = 0.5/8"]
    lengths = Lanes(7, range(3), book_coder(), Settings(CODES["sarsa"], 0.5 / 8, 0.0, 1.0, 0.0, 1, 10_000)).play(2)
    assert line["mean"] == lengths.mean(axis=0).tolist()
    assert line["standard_error"] == pytest.approx((lengths.std(axis=0, ddof=1) / np.sqrt(3)).tolist())
    assert result["runs"] == 3 and result["episode_cap"] == 10_000


def test_figures_10_3_and_10_4_play_the_same_runs(tmp_path):
    curves = numbers(figure_10_3, figure_10_3.STEM, SMALL, tmp_path / "a")
    sweep = numbers(figure_10_4, figure_10_4.STEM, [*SMALL, "--ns", "1,8", "--alphas", "0.3,0.5"], tmp_path / "b")
    one, eight = curves["lines"].values()
    assert sweep["lines"]["n = 1"]["mean"][1] == pytest.approx(np.mean(one["mean"]), rel=1e-12)  # 0.5/8
    assert sweep["lines"]["n = 8"]["mean"][0] == pytest.approx(np.mean(eight["mean"]), rel=1e-12)  # n = 8 at 0.3/8
    assert sweep["best"]["best_line"] in ("n = 1", "n = 8")


def test_figure_10_1_panels_are_cost_to_go_grids(tmp_path):
    result = numbers(figure_10_1, figure_10_1.STEM, ["--first-steps", "30", "--checkpoints", "1,2", "--no-progress"],
                     tmp_path)
    first = result["panels"]["step 30"]
    assert first["last_episode_steps"] == 30  # the first panel stops the first episode after 30 steps
    grid = np.array(first["cost_to_go"])
    assert grid.shape == (50, 50) and grid.min() >= 0.0  # rewards are -1: q̂ only falls below its zero start
    assert list(result["panels"]) == ["step 30", "episode 1", "episode 2"]


def test_bad_study_options_are_one_line(capsys):
    with pytest.raises(SystemExit) as stop:
        figure_10_4.main(["--alphas", "0,0.5"])
    assert stop.value.code == 2 and capsys.readouterr().err.count("\n") == 1
