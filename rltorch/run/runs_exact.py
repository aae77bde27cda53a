"""Each run's learned greedy policy, valued exactly on the model, and the summary of a many-runs run.

A run's greedy policy is what `GreedyAgent.act` plays from its table: in every decision state the first
of the model's legal actions (in the model's order) with the largest value (Double Q-learning: the mean of
its two tables). Its exact expected return is `ModelEvaluation.policy_return`, the return an episode
scores in the env within its time limit, from the start distribution; it is optimal when it comes within
`OPTIMAL_TOLERANCE` of the best such return. Runs whose policies agree in every state they reach share one
solve (the actions of states a policy never reaches do not change its return).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from rltorch.mdp.evaluation import ModelEvaluation, fixed
from rltorch.mdp.model import FiniteModel
from rltorch.run.intervals import share, summarize

OPTIMAL_TOLERANCE = 1e-9  # relative to max(1, |optimum|)


def greedy_actions(model: FiniteModel, states: list[Any], tables: np.ndarray) -> np.ndarray:
    """[runs, len(states)]: each run's greedy action in each decision state, from tables [runs, T, S, A]."""
    q = tables.mean(axis=1) if tables.shape[1] > 1 else tables[:, 0]  # (Q1 + Q2) / 2, as DoubleQ reads it
    rows = np.array([model.index[s] for s in states], dtype=np.int64)
    width = max(len(model.actions[s]) for s in states)
    order = np.array([list(model.actions[s]) + [model.actions[s][0]] * (width - len(model.actions[s]))
                      for s in states], dtype=np.int64)
    valid = np.array([[j < len(model.actions[s]) for j in range(width)] for s in states])
    values = np.where(valid[None], q[:, rows[:, None], order], -np.inf)
    best = values.argmax(axis=2)  # the first largest, as `greedy` picks without a generator
    return np.take_along_axis(np.broadcast_to(order, best.shape + (width,)), best[..., None], axis=2)[..., 0]


def reached(model: FiniteModel, states: list[Any], choices: np.ndarray) -> np.ndarray:
    """[runs, len(states)]: whether each run's deterministic policy `choices` reaches each decision state."""
    arrays = model.arrays()
    rows = np.array([model.index[s] for s in states], dtype=np.int64)
    position = np.full(arrays.num_states, -1, dtype=np.int64)
    position[rows] = np.arange(rows.size)
    goes_on = (arrays.prob > 0) & ~arrays.terminal
    following = np.where(goes_on[rows[None, :], choices], position[arrays.next_index[rows[None, :], choices]], -1)
    reach = np.zeros(choices.shape, dtype=bool)
    starts = position[np.flatnonzero(arrays.start > 0)]
    reach[:, starts[starts >= 0]] = True
    while True:
        run, state, slot = np.nonzero(reach[..., None] & (following >= 0))
        grown = reach.copy()
        grown[run, following[run, state, slot]] = True
        if (grown == reach).all():
            return reach
        reach = grown


def exact_returns(evaluation: ModelEvaluation, tables: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each run's exact expected return of its greedy policy, and whether that policy is optimal."""
    states = evaluation.decision_states
    choices = greedy_actions(evaluation.model, states, tables)
    seen = np.where(reached(evaluation.model, states, choices), choices, -1)  # the part of a policy that matters
    _, first, which = np.unique(seen, axis=0, return_index=True, return_inverse=True)
    values = np.array([evaluation.policy_return(dict(zip(states, choices[run].tolist(), strict=True)))
                       for run in first])
    returns = values[which.reshape(-1)]
    optimal = returns >= evaluation.optimum - OPTIMAL_TOLERANCE * max(1.0, abs(evaluation.optimum))
    return returns, optimal


def window_name(window: tuple[int, int]) -> str:
    """The JSON name of the mean return over episodes a..b (1-based, inclusive)."""
    return f"mean_return_episodes_{window[0]}_{window[1]}"


def runs_summary(evaluation: ModelEvaluation, returns: np.ndarray, optimal: np.ndarray,
                 window_returns: np.ndarray | None, window: tuple[int, int] | None, seed: int) -> dict[str, Any]:
    """The summary over runs: exact final return, share optimal and the last block's mean return (see README)."""
    summary: dict[str, Any] = {
        "optimum": evaluation.optimum,
        "horizon": evaluation.model.horizon,
        "exact_final_return": summarize(returns, seed=seed),
        "share_optimal": share(optimal),
    }
    if window_returns is not None and window is not None:
        summary[window_name(window)] = summarize(window_returns, seed=seed)
    return summary


def describe_summary(summary: dict[str, Any]) -> str:
    """The summary as lines of text."""
    lines = []
    for name, what in (*((key, f"mean return over episodes {key.split('_')[3]}-{key.split('_')[4]}")
                         for key in summary if key.startswith("mean_return_episodes_")),
                       ("exact_final_return", "exact expected return of each run's greedy policy")):
        stats = summary[name]
        lines.append(f"{what}: {stats['mean']:.4f} ± {stats['se']:.4f} (mean ± se over {stats['runs']:,} runs); "
                     f"IQM {stats['iqm']:.4f} [95% CI {stats['iqm_low']:.4f}, {stats['iqm_high']:.4f}]")
    limit = f" within {summary['horizon']} steps" if summary.get("horizon") else ""
    optimal = summary["share_optimal"]
    optimum = fixed(summary["optimum"], sign=True)
    lines.append(f"share of runs whose greedy policy is optimal{limit} (optimum {optimum}): "
                 f"{optimal['share']:.1%} ± {optimal['se']:.1%}")
    return "\n".join(lines)
