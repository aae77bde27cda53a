"""Summaries of one score per run: mean and standard error, the interquartile mean with a bootstrap interval.

The interquartile mean (IQM) is the mean of the middle half of the scores: sorted, floor(n / 4) cut from
each end (`scipy.stats.trim_mean(scores, 0.25)`), so a few runs that failed or got lucky move it little.
Its 95% interval is a percentile bootstrap, stratified: each resample draws, within every stratum (a task,
a setting), as many runs as that stratum has, with replacement, and the IQM of the pooled resample is
taken; the interval is the 2.5th and 97.5th percentile of `resamples` such IQMs. With one stratum this is
the ordinary bootstrap over runs. The resamples come from `numpy.random.default_rng(seed)`, so the
interval is the same number on every machine.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from rltorch.errors import RLTorchError

RESAMPLES = 2000  # bootstrap resamples of an interval (the "statistical precipice" paper's default)
CONFIDENCE = 0.95


def mean_and_se(scores: Sequence[float] | np.ndarray) -> dict[str, float]:
    """The mean and its standard error (sample standard deviation over sqrt(n); 0 for one score)."""
    values = _scores(scores)
    se = float(values.std(ddof=1) / math.sqrt(values.size)) if values.size > 1 else 0.0
    return {"mean": float(values.mean()), "se": se}


def interquartile_mean(scores: Sequence[float] | np.ndarray) -> float:
    """The mean of the scores left when floor(n / 4) are cut from each end of the sorted list."""
    values = np.sort(_scores(scores))
    cut = values.size // 4
    return float(values[cut:values.size - cut].mean())


def bootstrap_iqm_interval(strata: Sequence[Sequence[float] | np.ndarray], *, resamples: int = RESAMPLES,
                           seed: int = 0) -> tuple[float, float]:
    """The 95% stratified percentile-bootstrap interval of the IQM of the pooled strata (see module)."""
    groups = [_scores(stratum) for stratum in strata]
    if not groups or resamples < 1:
        raise RLTorchError("a bootstrap interval needs at least one stratum and one resample")
    rng = np.random.default_rng(seed)
    pooled = np.concatenate([group[rng.integers(0, group.size, size=(resamples, group.size))] for group in groups],
                            axis=1)
    pooled.sort(axis=1)
    cut = pooled.shape[1] // 4
    iqms = pooled[:, cut:pooled.shape[1] - cut].mean(axis=1)
    tail = (1 - CONFIDENCE) / 2 * 100
    low, high = np.percentile(iqms, [tail, 100 - tail])
    return float(low), float(high)


def summarize(scores: Sequence[float] | np.ndarray, *, seed: int = 0, resamples: int = RESAMPLES) -> dict[str, float]:
    """Mean, standard error, IQM and its 95% bootstrap interval (`iqm_low`, `iqm_high`) of one score per run."""
    values = _scores(scores)
    low, high = bootstrap_iqm_interval([values], resamples=resamples, seed=seed)
    return {**mean_and_se(values), "iqm": interquartile_mean(values), "iqm_low": low, "iqm_high": high,
            "runs": int(values.size)}


def share(flags: Sequence[bool] | np.ndarray) -> dict[str, float]:
    """The share of runs where `flags` holds, and its standard error sqrt(p (1 - p) / n)."""
    values = np.asarray(flags, dtype=bool).reshape(-1)
    if values.size == 0:
        raise RLTorchError("a share needs at least one run")
    p = float(values.mean())
    return {"share": p, "se": math.sqrt(p * (1 - p) / values.size), "runs": int(values.size)}


def _scores(scores: Sequence[float] | np.ndarray) -> np.ndarray:
    """The scores as a flat float64 array: at least one, every one finite."""
    values = np.asarray(scores, dtype=np.float64).reshape(-1)
    if values.size == 0 or not bool(np.isfinite(values).all()):
        raise RLTorchError("a summary needs at least one score, every one a finite number")
    return values
