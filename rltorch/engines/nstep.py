"""The fast form of n-step SARSA (Sutton & Barto section 7.2): the numba twin of `NStepSARSATrainer`'s episode.

The trainer's one loop, on one lane: for t = 0, 1, ...: while t < T take A_t, observe R_{t+1},
S_{t+1} (T = t + 1 when the episode terminates or the time limit truncates it) and, unless it
terminated, choose A_{t+1} at once; then for tau = t - n + 1 >= 0 move Q(S_tau, A_tau) toward
`targets.n_step_return(R_{tau+1} .. R_h, gamma, Q(S_h, A_h))`, h = min(tau + n, T), with no last
term when h = T and the episode terminated (a truncated one bootstraps from Q(S_T, A_T), A_T chosen
ahead); the episode ends after tau = T - 1. The last n + 1 states, actions and rewards live in ring
buffers (time t at slot t mod (n + 1)). Draws, in order: start, epsilon, choice (A_0); then every
step: transition, and epsilon, choice (A_{t+1}) unless it terminated.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from rltorch.engines.core import (
    ALGORITHMS,
    FastForm,
    Lanes,
    Model,
    Settings,
    choose,
    ends,
    episode_settings,
    gather,
    record,
    start,
    step,
)
from rltorch.targets import n_step_return, step_toward

NEVER = 1 << 62  # T before the episode's end is known


@njit(cache=True)
def nstep_sarsa_episode(lane: int, lanes: Lanes, model: Model, settings: Settings,
                        scratch: np.ndarray) -> tuple[float, int]:
    """One episode of an n-step SARSA lane (see module)."""
    q, stream, alpha = lanes.values[lane, 0], lanes.streams[lane], lanes.alpha[lane]
    n, epsilon, gamma = settings.n, settings.epsilon, settings.gamma
    size = n + 1
    states, actions = np.empty(size, dtype=np.int64), np.empty(size, dtype=np.int64)
    rewards, span = np.empty(size), np.empty(n)
    state = start(model, stream)
    states[0] = state
    gather(model, q, state, scratch)
    actions[0] = choose(model, scratch, state, epsilon, stream)
    end, truncated, total, t = NEVER, False, 0.0, 0
    while True:
        if t < end:
            state, reward, terminated = step(model, state, actions[t % size], stream)
            total += reward
            rewards[(t + 1) % size], states[(t + 1) % size] = reward, state
            if ends(terminated, t + 1, settings.limit):
                end, truncated = t + 1, not terminated
            if not terminated:
                gather(model, q, state, scratch)
                actions[(t + 1) % size] = choose(model, scratch, state, epsilon, stream)
        tau = t - n + 1
        if tau >= 0:
            horizon = min(tau + n, end)
            following = 0.0  # no last term: n_step_return's bootstrap None
            if horizon < end or truncated:
                following = q[states[horizon % size], actions[horizon % size]]
            for k in range(horizon - tau):
                span[k] = rewards[(tau + 1 + k) % size]
            s, a = states[tau % size], actions[tau % size]
            q[s, a] = step_toward(q[s, a], alpha, n_step_return(span[:horizon - tau], gamma, following))
        if tau == end - 1:
            return total, end
        t += 1


@njit(cache=True, nogil=True)
def advance_nstep_sarsa(first: int, stop: int, until: int, lanes: Lanes, model: Model, settings: Settings) -> None:
    """Lanes first..stop-1 play `nstep_sarsa_episode` after episode until each has finished `until` episodes."""
    scratch = np.empty(2 * model.actions)
    for lane in range(first, stop):
        for number in range(lanes.done[lane], until):
            record(lanes, lane, number,
                   nstep_sarsa_episode(lane, lanes, model, episode_settings(lanes, number, settings), scratch))
        lanes.done[lane] = max(lanes.done[lane], until)


ALGORITHMS["nstep-sarsa"] = FastForm(nstep_sarsa_episode, advance_nstep_sarsa)
