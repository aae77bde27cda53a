"""The interval arithmetic of `rltorch.run.intervals` against numbers worked out by hand."""

from __future__ import annotations

import math

import pytest

from rltorch.errors import RLTorchError
from rltorch.run.intervals import bootstrap_iqm_interval, interquartile_mean, mean_and_se, share, summarize


def test_mean_and_standard_error():
    # 1..8: mean 4.5; sample variance sum((x - 4.5)^2) / 7 = 42 / 7 = 6; se = sqrt(6 / 8) = sqrt(0.75)
    stats = mean_and_se(range(1, 9))
    assert stats["mean"] == 4.5 and stats["se"] == pytest.approx(math.sqrt(0.75), abs=1e-15)
    assert mean_and_se([3.0]) == {"mean": 3.0, "se": 0.0}


@pytest.mark.parametrize(("scores", "iqm"), [
    (range(1, 9), 4.5),  # 8 scores: 2 cut each end, mean of 3, 4, 5, 6
    ([0, 0, 0, 10], 0.0),  # 4 scores: 1 cut each end, mean of 0, 0
    ([1, 2, 3, 4, 100], 3.0),  # 5 scores: 1 cut each end (floor(5 / 4)), mean of 2, 3, 4
    ([100, 1, 4, 3, 2, -50, 7], 3.4),  # 7 scores, unsorted: 1 cut each end, mean of 1, 2, 3, 4, 7
    ([2.5], 2.5),
])
def test_interquartile_mean(scores, iqm):
    # Mutant: cutting round(n / 4) instead of floor(n / 4) fails the 7-score case (2 cut: mean of 2, 3, 4).
    assert interquartile_mean(scores) == pytest.approx(iqm, abs=1e-15)


def test_the_bootstrap_is_stratified_and_repeatable():
    # Two strata of four 0s and four 10s: every stratified resample holds four of each, IQM of 0,0,0,0,10,10,10,10
    # = mean of 0, 0, 10, 10 = 5, so the interval is [5, 5]. A pooled (unstratified) bootstrap varies.
    # Mutant: resampling the pooled runs fails the first assertion.
    assert bootstrap_iqm_interval([[0.0] * 4, [10.0] * 4]) == (5.0, 5.0)
    assert bootstrap_iqm_interval([[7.0, 7.0, 7.0]]) == (7.0, 7.0)
    spread = bootstrap_iqm_interval([range(20)], seed=3)
    assert spread == bootstrap_iqm_interval([range(20)], seed=3)
    assert 0 < spread[0] < 9.5 < spread[1] < 19


def test_summary_and_share():
    summary = summarize([1, 2, 3, 4, 100], seed=0)
    assert (summary["mean"], summary["iqm"], summary["runs"]) == (22.0, 3.0, 5)
    assert summary["iqm_low"] <= summary["iqm"] <= summary["iqm_high"]
    # 3 of 4: p = 0.75, se = sqrt(0.75 * 0.25 / 4) = sqrt(3) / 8
    assert share([True, False, True, True]) == {"share": 0.75, "se": pytest.approx(math.sqrt(3) / 8), "runs": 4}


def test_bad_scores_are_refused():
    for bad in ([], [1.0, float("nan")], [float("inf")]):
        with pytest.raises(RLTorchError, match="finite"):
            summarize(bad)
    with pytest.raises(RLTorchError):
        share([])
