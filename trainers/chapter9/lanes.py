"""Many runs of a linear prediction method on a finite walk, sharded over ranks: the studies' one way to run lanes.

Run r of every setting draws from the stream of run index r (`rltorch.engines.draws`), so every setting sees
the same walks (the policy does not depend on the weights) and the numbers do not depend on how the runs are
cut into batches or ranks. Lane (r, k) is run r with setting k = (alpha, n or λ).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache

import numpy as np
from matplotlib.figure import Figure

from rltorch.engines.core import Model, model_arrays
from rltorch.engines.linear_prediction import Quadratic, basis_of, run_linear_prediction
from rltorch.envs.random_walk import JumpWalkEnv, RandomWalkEnv
from rltorch.features.base import Features, features_from_config
from rltorch.mdp import FiniteModel, uniform_policy
from rltorch.mdp.linear import LinearYardsticks, PolicyChain, linear_yardsticks, policy_chain
from rltorch.run.many_runs import map_run_batches, progress

Markdown = Callable[[dict, str, str], str]  # a study's snippet writer: (numbers, command, PNG path) -> Markdown
WALKS = {"1000": lambda: JumpWalkEnv(1000, 100), "19": lambda: RandomWalkEnv(19, left_reward=-1.0)}


@cache
def walk(name: str) -> tuple[FiniteModel, Model]:
    """The walk's model and its engine arrays (built once)."""
    model = WALKS[name]().model().validate()
    return model, model_arrays(model)


@cache
def _chain(name: str) -> PolicyChain:
    """The walk's chain under its one action, with v_π and the expected visits (solved once)."""
    model, _ = walk(name)
    return policy_chain(model, uniform_policy(model), 1.0)


@cache
def _yardsticks(name: str, config: str) -> LinearYardsticks:
    """The yardsticks of the features `config` (JSON) describes."""
    model, _ = walk(name)
    return linear_yardsticks(model, uniform_policy(model), 1.0, features_from_config(json.loads(config)),
                             solved=_chain(name))


def yardsticks(name: str, features: Features) -> LinearYardsticks:
    """v_π, μ, the MC asymptote and the TD fixed point of `features` on the walk (γ = 1; computed once)."""
    return _yardsticks(name, json.dumps(features.config(), sort_keys=True))


@dataclass
class Lanes:
    """Every run's error after each episode [runs, settings, episodes] and final weights [runs, settings, size]."""

    errors: np.ndarray
    weights: np.ndarray


def run_settings(name: str, features: Features, algorithm: str, settings: Sequence[tuple[float, float]],
                 episodes: int, args: argparse.Namespace, mean_square: bool = False, label: str = "runs") -> Lanes:
    """`args.runs` runs of every (alpha, param) setting; the error is VE, or with `mean_square` the mean over states."""
    model, arrays = walk(name)
    sticks = yardsticks(name, features)
    weighting = np.full(len(model.states), 1.0 / len(model.states)) if mean_square else None
    quadratic, basis = Quadratic(*sticks.quadratic(weighting)), basis_of(features, model)
    alphas, params = (np.array([setting[i] for setting in settings], dtype=np.float64) for i in (0, 1))

    def batch(runs: list[int]) -> list[tuple[np.ndarray, np.ndarray]]:
        """The lanes of these runs, split back per run."""
        lanes = len(settings)
        result = run_linear_prediction(arrays, basis, algorithm, np.tile(alphas, len(runs)),
                                       np.tile(params, len(runs)), episodes, quadratic, seed=args.seed,
                                       run_index=np.repeat(np.array(runs, dtype=np.int64), lanes))
        errors, weights = result.errors.numpy(), result.weights.numpy()
        return [(errors[i * lanes:(i + 1) * lanes], weights[i * lanes:(i + 1) * lanes]) for i in range(len(runs))]

    with progress(args.runs, label, args) as bar:
        runs = map_run_batches(batch, list(range(args.runs)), bar)
    return Lanes(np.stack([errors for errors, _ in runs]), np.stack([weights for _, weights in runs]))


def mean_and_se(values: np.ndarray, axis: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """The mean over `axis` and its standard error (0 for a single run)."""
    count = values.shape[axis]
    se = values.std(axis=axis, ddof=1) / np.sqrt(count) if count > 1 else np.zeros_like(values.mean(axis=axis))
    return values.mean(axis=axis), se


def finite(values: np.ndarray) -> list:
    """A JSON-ready list: non-finite numbers (a diverged run) as None."""
    return [float(v) if np.isfinite(v) else None for v in np.asarray(values, dtype=np.float64).reshape(-1)]


def finite_curve(xs: Sequence[float], ys: np.ndarray) -> tuple[list[float], list[float]]:
    """The points of a curve whose y is finite (TensorBoard takes numbers only)."""
    kept = [(x, float(y)) for x, y in zip(xs, ys, strict=True) if np.isfinite(y)]
    return [x for x, _ in kept], [y for _, y in kept]


def band(mean: np.ndarray, se: np.ndarray, top: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    """mean ± 2 standard errors where the mean is finite and below `top` (elsewhere a gap: a diverging curve's band
    would cover the axes)."""
    shown = np.isfinite(mean) & np.isfinite(se) & (mean < top)
    return np.where(shown, mean - 2 * se, np.nan), np.where(shown, mean + 2 * se, np.nan)

def draw_alpha_grid(mean: np.ndarray, se: np.ndarray, alphas: Sequence[float], labels: Sequence[str], ylabel: str,
                    subtitle: str, title: str) -> Figure:
    """Average RMS error against α, one line per row of `mean` (± 2 standard errors), on the book's axes."""
    figure = Figure(figsize=(7.5, 5), layout="constrained")
    axis = figure.subplots()
    for i, label in enumerate(labels):
        line = axis.plot(alphas, mean[i], marker=".", label=label)[0]
        low, high = band(mean[i], se[i])
        axis.fill_between(alphas, low, high, color=line.get_color(), alpha=0.2)
    axis.set_ylim(0.25, 0.55)
    axis.set_xlim(0, 1)
    axis.set_xlabel("α")
    axis.set_ylabel(ylabel)
    axis.set_title(subtitle, fontsize=9)
    axis.legend(fontsize=8, loc="center left", bbox_to_anchor=(1.0, 0.5))
    figure.suptitle(title)
    return figure


if __name__ == "__main__":
    print("lanes.py is a module of figure_9_1.py"
          "; run python trainers/chapter9/figure_9_1.py --help", file=sys.stderr)
    sys.exit(2)
