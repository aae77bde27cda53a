"""The fast form of linear prediction on a finite model: many runs of one fixed policy, weights [runs, size], numba.

One lane is one run with its own weights, step size and parameter (n for n-step TD, λ for the trace methods),
drawing from its run's stream (`rltorch.engines.draws`) as the per-step trainer and a model-driven env do:
a draw for the start only when there are several starts, one per step only when the pair has several outcomes
(`rltorch.engines.core`). Each algorithm's episode is its per-step trainer's `run_episode`, operation for
operation on the same floats (sums of a state's feature terms left to right, as `LinearValueFunction` sums):

- gradient MC (`GradientMC`): returns computed backward, then w moves toward G_t for t = 0..T-1;
- n-step semi-gradient TD (`NStepSemiGradientTD`; n = 1 is `SemiGradientTD`): the n-step loop of chapter 7;
- the offline λ-return (`OfflineLambdaReturn`), TD(λ) (`TDLambda`) and true online TD(λ) (`TrueOnlineTDLambda`).

After every episode a lane records its error wᵀMw − 2cᵀw + e for a given quadratic (M, c, e): with μ-weights,
`LinearYardsticks.quadratic()` makes it the value error VE; with weights 1/S, the mean square error over states.
Episodes end by termination only (the walks have no time limit). The first call in a process compiles the lanes
(about 10 s); the code is not cached on disk, where numba would not see a change in the functions it borrows from
`rltorch.engines.core` and `rltorch.engines.draws`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import torch
from numba import njit

from rltorch.engines.core import Model, model_arrays, start
from rltorch.engines.draws import DRAWN, draw, stream_states
from rltorch.errors import RLTorchError
from rltorch.features.base import Features, as_states
from rltorch.mdp.model import FiniteModel
from rltorch.targets import n_step_return

CODES = {"gradient-mc": 0, "nstep-semi-gradient-td": 1, "offline-lambda-return": 2, "td-lambda": 3,
         "true-online-td-lambda": 4}
NEVER = 1 << 62


class Basis(NamedTuple):
    """The features of every model state as rows of flat weight indices [S, k] and values [S, k]."""

    indices: np.ndarray
    values: np.ndarray


class Quadratic(NamedTuple):
    """error(w) = wᵀ matrix w − 2 linearᵀ w + constant."""

    matrix: np.ndarray
    linear: np.ndarray
    constant: float


def basis_of(features: Features, model: FiniteModel) -> Basis:
    """The features of `model.states` (sparse kinds: their active indices with ones; dense: every index)."""
    states = as_states(model.states)
    if features.active_count is not None:
        indices = features.active(states)
        return Basis(np.ascontiguousarray(indices.numpy()), np.ones(tuple(indices.shape)))
    values = features.encode(states).numpy()
    return Basis(np.ascontiguousarray(np.broadcast_to(np.arange(values.shape[1]), values.shape)),
                 np.ascontiguousarray(values))


@njit
def step(model: Model, state: int, action: int, stream: np.ndarray) -> tuple[int, float, bool]:
    """`rltorch.engines.core.step` with a binary search: the outcome is how many running sums are <= u."""
    pair = state * model.actions + action
    outcome = 0
    if model.several[pair]:
        below = np.searchsorted(model.cumulative[pair], draw(stream), side="right")
        outcome = min(below, model.last[pair])
    return model.next_state[pair, outcome], model.reward[pair, outcome], model.terminal[pair, outcome]


@njit
def value(w: np.ndarray, basis: Basis, state: int) -> float:
    """v̂(state) = Σ_j w[i_j] x_j, left to right."""
    total = 0.0
    for j in range(basis.indices.shape[1]):
        total += w[basis.indices[state, j]] * basis.values[state, j]
    return total


@njit
def nudge(w: np.ndarray, basis: Basis, state: int, scale: float) -> None:
    """w += scale x(state)."""
    for j in range(basis.indices.shape[1]):
        w[basis.indices[state, j]] += scale * basis.values[state, j]


@njit
def toward(w: np.ndarray, basis: Basis, state: int, alpha: float, target: float) -> None:
    """`LinearValueFunction.update`: w += α (target − v̂(state)) x(state)."""
    nudge(w, basis, state, alpha * (target - value(w, basis, state)))


@njit
def play(model: Model, actions: np.ndarray, stream: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
    """One whole episode: states S_0..S_T (S_T terminal), rewards at 1..T, and T."""
    states, rewards = np.empty(64, dtype=np.int64), np.zeros(64)
    state, length = start(model, stream), 0
    states[0] = state
    while True:
        state, reward, terminated = step(model, state, actions[state], stream)
        length += 1
        if length + 1 >= states.size:
            states, rewards = np.concatenate((states, states)), np.concatenate((rewards, rewards))
        states[length], rewards[length] = state, reward
        if terminated:
            return states, rewards, length


@njit
def gradient_mc(w: np.ndarray, model: Model, basis: Basis, actions: np.ndarray, stream: np.ndarray, alpha: float,
                gamma: float) -> int:
    """`GradientMC.run_episode`."""
    states, rewards, length = play(model, actions, stream)
    returns, following = np.empty(length), 0.0
    for t in range(length - 1, -1, -1):
        following = rewards[t + 1] + gamma * following
        returns[t] = following
    for t in range(length):
        toward(w, basis, states[t], alpha, returns[t])
    return length


@njit
def nstep_td(w: np.ndarray, model: Model, basis: Basis, actions: np.ndarray, stream: np.ndarray, alpha: float,
             gamma: float, n: int) -> int:
    """`NStepSemiGradientTD.run_episode` (the loop of `rltorch.trainers.nstep.NStepTD`)."""
    states, rewards = np.empty(64, dtype=np.int64), np.zeros(64)
    state = start(model, stream)
    states[0], end, t = state, NEVER, 0
    while True:
        if t < end:
            state, reward, terminated = step(model, state, actions[state], stream)
            if t + 2 >= states.size:
                states, rewards = np.concatenate((states, states)), np.concatenate((rewards, rewards))
            states[t + 1], rewards[t + 1] = state, reward
            if terminated:
                end = t + 1
        tau = t - n + 1
        if tau >= 0:
            horizon = min(tau + n, end)
            following = value(w, basis, state) if horizon < end else 0.0
            toward(w, basis, states[tau], alpha, n_step_return(rewards[tau + 1:horizon + 1], gamma, following))
        if tau == end - 1:
            return end
        t += 1


@njit
def offline_lambda_return(w: np.ndarray, model: Model, basis: Basis, actions: np.ndarray, stream: np.ndarray,
                          alpha: float, gamma: float, lam: float) -> int:
    """`OfflineLambdaReturn.run_episode`."""
    states, rewards, length = play(model, actions, stream)
    ahead = np.zeros(length)
    for t in range(length - 1):
        ahead[t] = value(w, basis, states[t + 1])
    targets, following = np.empty(length), ahead[length - 1]
    for t in range(length - 1, -1, -1):
        following = rewards[t + 1] + gamma * ((1.0 - lam) * ahead[t] + lam * following)
        targets[t] = following
    for t in range(length):
        toward(w, basis, states[t], alpha, targets[t])
    return length


@njit
def td_lambda(w: np.ndarray, z: np.ndarray, model: Model, basis: Basis, actions: np.ndarray, stream: np.ndarray,
              alpha: float, gamma: float, lam: float, true_online: bool) -> int:
    """`TDLambda.run_episode`, or `TrueOnlineTDLambda.run_episode` with `true_online`."""
    z[:] = 0.0
    decay, old, length = gamma * lam, 0.0, 0
    state = start(model, stream)
    while True:
        next_state, reward, terminated = step(model, state, actions[state], stream)
        length += 1
        current = value(w, basis, state)
        following = 0.0 if terminated else value(w, basis, next_state)
        error = reward + gamma * following - current
        scale = 1.0
        if true_online:
            overlap = 0.0
            for j in range(basis.indices.shape[1]):
                overlap += z[basis.indices[state, j]] * basis.values[state, j]
            scale = 1.0 - alpha * decay * overlap
        z *= decay
        for j in range(basis.indices.shape[1]):
            z[basis.indices[state, j]] += scale * basis.values[state, j]
        step_size = alpha * (error + current - old) if true_online else alpha * error
        for i in range(z.size):
            w[i] += step_size * z[i]
        if true_online:
            nudge(w, basis, state, -alpha * (current - old))
        if terminated:
            return length
        old, state = following, next_state


@njit
def error(w: np.ndarray, quadratic: Quadratic) -> float:
    """wᵀMw − 2cᵀw + e."""
    total = quadratic.constant
    for i in range(w.size):
        row = 0.0
        for j in range(w.size):
            row += quadratic.matrix[i, j] * w[j]
        total += w[i] * row - 2.0 * quadratic.linear[i] * w[i]
    return total


@njit(nogil=True)
def run_lanes(code: int, weights: np.ndarray, streams: np.ndarray, alphas: np.ndarray, params: np.ndarray,
              errors: np.ndarray, lengths: np.ndarray, model: Model, basis: Basis, actions: np.ndarray,
              quadratic: Quadratic, gamma: float) -> None:
    """Every lane plays its episodes, recording each episode's length and the error after it."""
    z = np.zeros(weights.shape[1])
    for lane in range(weights.shape[0]):
        w, stream, alpha, param = weights[lane], streams[lane], alphas[lane], params[lane]
        for episode in range(errors.shape[1]):
            if code == 0:
                length = gradient_mc(w, model, basis, actions, stream, alpha, gamma)
            elif code == 1:
                length = nstep_td(w, model, basis, actions, stream, alpha, gamma, int(param))
            elif code == 2:
                length = offline_lambda_return(w, model, basis, actions, stream, alpha, gamma, param)
            else:
                length = td_lambda(w, z, model, basis, actions, stream, alpha, gamma, param, code == 4)
            lengths[lane, episode] = length
            errors[lane, episode] = error(w, quadratic)


def _check_lanes(algorithm: str, alphas: np.ndarray, params: np.ndarray, episodes: int) -> None:
    """One-line refusals of what the numba loops cannot check: n an integer >= 1, λ in [0, 1], α >= 0."""
    if not (np.isfinite(alphas).all() and (alphas >= 0).all()):
        raise RLTorchError("step sizes must be finite and >= 0")
    if algorithm == "nstep-semi-gradient-td" and not ((params >= 1) & (params == np.floor(params))).all():
        raise RLTorchError("n must be an integer >= 1 in every lane")
    if algorithm in ("offline-lambda-return", "td-lambda", "true-online-td-lambda") and not (
            (params >= 0) & (params <= 1)).all():
        raise RLTorchError("λ must be in [0, 1] in every lane")
    if isinstance(episodes, bool) or not isinstance(episodes, int) or episodes < 0:
        raise RLTorchError(f"episodes must be an int >= 0, got {episodes!r}")


@dataclass
class LinearPredictionResult:
    """Each lane's final weights [L, size], error after each episode [L, E], episode lengths and draws taken."""

    weights: torch.Tensor
    errors: torch.Tensor
    lengths: torch.Tensor
    draws: torch.Tensor


def run_linear_prediction(model: FiniteModel | Model, basis: Basis, algorithm: str, alphas: np.ndarray,
                          params: np.ndarray, episodes: int, quadratic: Quadratic, *, gamma: float = 1.0, seed: int = 0,
                          run_index: np.ndarray | None = None) -> LinearPredictionResult:
    """Lanes of `algorithm` (one per alpha; `params`: n or λ per lane) for `episodes` episodes from zero weights.

    Lane l draws from the stream of run `run_index[l]` (default: l) of `seed`; the policy takes each state's
    first legal action (the walks have one). `model` may be given as its `model_arrays` (built once for many calls).
    """
    if algorithm not in CODES:
        raise RLTorchError(f"unknown algorithm {algorithm!r}: one of {', '.join(CODES)}")
    alphas, params = np.asarray(alphas, dtype=np.float64), np.asarray(params, dtype=np.float64)
    run_index = np.arange(alphas.size) if run_index is None else np.asarray(run_index, dtype=np.int64)
    if not alphas.size == params.size == run_index.size:
        raise RLTorchError("alphas, params and run_index need one entry per lane")
    _check_lanes(algorithm, alphas, params, episodes)
    arrays = model_arrays(model) if isinstance(model, FiniteModel) else model
    size = int(basis.indices.max()) + 1 if basis.indices.size else 0
    size = max(size, quadratic.linear.size)
    weights, streams = np.zeros((alphas.size, size)), stream_states(seed, run_index)
    errors, lengths = np.zeros((alphas.size, episodes)), np.zeros((alphas.size, episodes), dtype=np.int64)
    run_lanes(CODES[algorithm], weights, streams, alphas, params, errors, lengths, arrays, basis,
              np.ascontiguousarray(arrays.legal[:, 0]), quadratic, float(gamma))
    return LinearPredictionResult(torch.from_numpy(weights), torch.from_numpy(errors), torch.from_numpy(lengths),
                                  torch.from_numpy(streams[:, DRAWN].astype(np.int64)))
