"""The chapter 12 control figure scripts (Figures 12.10, 12.11) at small sizes: both play the same runs."""

from __future__ import annotations

from tests.test_chapter10_figures import SMALL, numbers
from trainers.chapter12 import figure_12_10, figure_12_11


def test_figures_12_10_and_12_11_share_the_replacing_traces_runs(tmp_path):
    lam = ["--alphas", "0.6", "--episodes", "2"]
    replacing = numbers(figure_12_10, figure_12_10.STEM, [*SMALL, *lam, "--lambdas", "0.9"], tmp_path / "a")
    summary = numbers(figure_12_11, figure_12_11.STEM, [*SMALL, *lam, "--lambda", "0.9"], tmp_path / "b")
    assert summary["lines"]["SARSA(lambda), replacing traces"]["mean"] == replacing["lines"]["lambda = 0.9"]["mean"]
    assert set(summary["lines"]) == set(figure_12_11.LINES)
