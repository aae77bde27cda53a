"""The numba core every fast form shares: the model as arrays, the lanes' records, and the steps of an episode.

A lane is one run. Its algorithm's `episode` function (the numba twin of the per-step trainer's
`run_episode`, in `rltorch.engines.onestep` and `rltorch.engines.nstep`) plays and learns one whole
episode; its `advance` function (beside it: one per episode function, so numba can cache it on disk)
runs lanes first..stop-1 episode after episode, without the GIL, so threads can share a batch. Episode
number k plays with epsilon `lanes.epsilon[k - lanes.first]` (`episode_settings`) and is recorded in
that column (`record`). The steps here draw as the per-step trainer and its env do, one number at a time
from the lane's stream (`rltorch.engines.draws`), only when a draw is needed:

- start state (`reset`): one draw, only when the model has several start states;
- transition (`step`): one draw, only when the pair has several outcomes; the outcome is the first
  whose running sum of probabilities exceeds u (never past the last with positive probability);
- epsilon-greedy choice (`Trainer.choose`): u < epsilon explores with a second draw, legal action
  floor(u * n_legal) in ascending order; else the greedy action, with a second draw only when
  several legal actions share the largest value: tie floor(u * n_ties) in action order.

A time limit (`Settings.limit`, the env's `max_episode_steps`; 0: none) ends an episode after that
many steps unless it terminated on that step, as Gymnasium's `TimeLimit` truncates it: the lane's
algorithm then treats the last step as the trainer treats a truncated one (it bootstraps from S').
The learning targets are `rltorch.targets`' own functions, which this module registers with numba:
the trainer runs them as Python, the engine compiles the same source.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from numba import njit
from numba.extending import register_jitable

from rltorch import targets
from rltorch.engines.draws import NO_REFCOUNT, draw
from rltorch.errors import RLTorchError
from rltorch.mdp.model import FiniteModel

# The targets and the update, written once in rltorch.targets: njit'd code that calls them compiles their source.
for _name in targets.NUMBA_TARGETS:
    register_jitable(getattr(targets, _name))


@dataclass(frozen=True)
class FastForm:
    """An algorithm's fast form: its numba episode and lanes-loop functions, the tables a lane learns, its lane code."""

    episode: Callable[..., tuple[float, int]]
    advance: Callable[..., None]  # (first, stop, until, lanes, model, settings): lanes on until `until` episodes
    tables: int = 1
    code: int = 0


ALGORITHMS: dict[str, FastForm] = {}  # each fast form registers itself beside its episode function


class Model(NamedTuple):
    """A finite model as the arrays the lanes read; pairs p = s * A + a, W outcome slots per pair."""

    legal: np.ndarray  # [S, A] int64: each state's legal actions in ascending order, then -1
    legal_count: np.ndarray  # [S] int64
    next_state: np.ndarray  # [S * A, W] int64
    reward: np.ndarray  # [S * A, W] float64
    terminal: np.ndarray  # [S * A, W] bool: the episode ends (a terminal or absorbing next state)
    cumulative: np.ndarray  # [S * A, W] float64: running sums of the outcomes' probabilities
    last: np.ndarray  # [S * A] int64: the last outcome with positive probability
    several: np.ndarray  # [S * A] bool: more than one outcome has positive probability (a draw picks)
    start_cumulative: np.ndarray  # [S] float64
    start_last: int
    start_several: bool
    actions: int


class Settings(NamedTuple):
    """What every lane of an episode shares: epsilon, gamma, the time limit (0: none) and n (n-step methods)."""

    epsilon: float
    gamma: float
    limit: int
    n: int


class Lanes(NamedTuple):
    """Every lane's tables, stream, step size, algorithm code, episodes done and records."""

    values: np.ndarray  # [L, tables, S, A] float64 (Double Q-learning: tables Q1, Q2; the others: one Q)
    streams: np.ndarray  # [L, 4] uint64 (see rltorch.engines.draws)
    alpha: np.ndarray  # [L] float64
    code: np.ndarray  # [L] int64: which of the episode function's algorithms (SARSA / Expected SARSA / Q-learning)
    done: np.ndarray  # [L] int64: episodes finished
    returns: np.ndarray  # [L, episodes] float64: each episode's sum of rewards
    lengths: np.ndarray  # [L, episodes] int64: each episode's steps
    epsilon: np.ndarray  # [episodes] float64: each episode's epsilon (the trainer's schedule(episode number))
    first: int  # the episode number every lane had reached when the batch began (record 0 is that episode)


def _outcomes(probabilities: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Running sums [rows, K], last positive outcome [rows] and "several outcomes" [rows] of rows of probabilities."""
    positive = probabilities > 0
    last = np.where(positive.any(axis=1), probabilities.shape[1] - 1 - np.argmax(positive[:, ::-1], axis=1), 0)
    return np.cumsum(probabilities, axis=1), last.astype(np.int64), positive.sum(axis=1) > 1


def model_arrays(model: FiniteModel) -> Model:
    """`model` as the engine's `Model` (a start state without a legal action is refused)."""
    arrays = model.arrays()
    states, actions, width = arrays.prob.shape
    if not arrays.has_action[arrays.start > 0].all():
        raise RLTorchError(f"{model.name}: a start state has no legal actions")
    legal = np.full((states, actions), -1, dtype=np.int64)
    for s in range(states):
        chosen = np.flatnonzero(arrays.legal[s])
        legal[s, :chosen.size] = chosen
    cumulative, last, several = _outcomes(arrays.prob.reshape(states * actions, width))
    start_cumulative, start_last, start_several = _outcomes(arrays.start[None, :])
    return Model(legal, arrays.legal.sum(axis=1).astype(np.int64), arrays.next_index.reshape(-1, width).copy(),
                 arrays.reward.reshape(-1, width).astype(np.float64), arrays.terminal.reshape(-1, width).copy(),
                 cumulative, last, several, start_cumulative[0], int(start_last[0]), bool(start_several[0]), actions)


@njit(cache=True)
def categorical(cumulative: np.ndarray, last: int, u: float) -> int:
    """The outcome of draw `u`: how many running sums are <= u, at most `last`."""
    below = 0
    for value in cumulative:
        if value <= u:
            below += 1
    return min(below, last)


@njit(cache=True, **NO_REFCOUNT)
def start(model: Model, stream: np.ndarray) -> int:
    """A start state (`env.reset()`)."""
    u = draw(stream) if model.start_several else 0.0
    return categorical(model.start_cumulative, model.start_last, u)


@njit(cache=True, **NO_REFCOUNT)
def step(model: Model, state: int, action: int, stream: np.ndarray) -> tuple[int, float, bool]:
    """Next state, reward and whether the episode terminated (`env.step(action)`)."""
    pair = state * model.actions + action
    outcome = 0
    if model.several[pair]:
        outcome = categorical(model.cumulative[pair], model.last[pair], draw(stream))
    return model.next_state[pair, outcome], model.reward[pair, outcome], model.terminal[pair, outcome]


@njit(cache=True, **NO_REFCOUNT)
def gather(model: Model, table: np.ndarray, state: int, out: np.ndarray) -> int:
    """Write the values `table[state]` of `state`'s legal actions (ascending) to `out`; return how many."""
    count = model.legal_count[state]
    for index in range(count):
        out[index] = table[state, model.legal[state, index]]
    return count


@njit(cache=True, **NO_REFCOUNT)
def greedy(values: np.ndarray, count: int, stream: np.ndarray) -> int:
    """`rltorch.policies.greedy` with a generator over values[:count]: the index of the largest, a tie drawn."""
    best = values[0]
    for index in range(count):
        best = max(best, values[index])
    ties = 0
    for index in range(count):
        ties += values[index] == best
    k = int(np.floor(draw(stream) * ties)) if ties > 1 else 0
    for index in range(count):
        if values[index] == best:
            if k == 0:
                return index
            k -= 1
    return -1


@njit(cache=True, **NO_REFCOUNT)
def choose(model: Model, values: np.ndarray, state: int, epsilon: float, stream: np.ndarray) -> int:
    """`Trainer.choose` in `state`, `values` as `gather` wrote them: epsilon-greedy (see module)."""
    count = model.legal_count[state]
    if draw(stream) < epsilon:
        return model.legal[state, int(np.floor(draw(stream) * count))]
    return model.legal[state, greedy(values, count, stream)]


@njit(cache=True)
def ends(terminated: bool, length: int, limit: int) -> bool:
    """Whether the episode is over after its step number `length`: terminated, or truncated by the time limit."""
    return terminated or (limit > 0 and length >= limit)


@njit(cache=True)
def episode_settings(lanes: Lanes, number: int, settings: Settings) -> Settings:
    """The settings of episode `number` (counted from 0): the batch's, with that episode's epsilon."""
    return Settings(lanes.epsilon[number - lanes.first], settings.gamma, settings.limit, settings.n)


@njit(cache=True)
def record(lanes: Lanes, lane: int, number: int, result: tuple[float, int]) -> None:
    """Write episode `number`'s return and length into the lane's records."""
    lanes.returns[lane, number - lanes.first], lanes.lengths[lane, number - lanes.first] = result
