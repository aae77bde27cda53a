"""The CPU backend of the batched engine for SARSA, Expected SARSA and Q-learning: each lane run to the end with numba.

Why: on the CPU a lockstep iteration of the torch kernel costs ~60 small tensor operations whatever
the batch size, which is 0.4 ms for 300 lanes and ~0.9 us per agent step for 30,000 (one thread);
Figure 6.3 needs ~8e9 agent steps. Here each lane is a plain loop over its own steps (lanes spread
over threads), about 20-40 ns per agent step.

It is the torch `ControlKernel` with `CounterDraws`, number for number: lane l's c-th draw is the
c-th number of its run's stream (`rltorch.engines.draws`), the draws are taken in the same calls
([transition], [start], epsilon, choice every step, whether used or not), and every value goes
through the same float operations in the same order, so both backends give identical results
(`tests/test_batched_engine.py` checks this). Lanes can be advanced in segments of episodes, so a
caller can show progress between them.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np
import torch

from rltorch.engines.tensors import Categorical
from rltorch.errors import RLTorchError
from rltorch.mdp.model import FiniteModel

try:
    import numba
    from numba import njit
except ImportError:  # pragma: no cover - exercised where numba is absent
    numba = None

GOLDEN = np.uint64(0x9E3779B97F4A7C15)
MIX_1 = np.uint64(0xBF58476D1CE4E5B9)
MIX_2 = np.uint64(0x94D049BB133111EB)
LOW_32 = np.uint64(0xFFFFFFFF)
SCALE = 2.0**-32
CHUNKS_PER_THREAD = 8


def available() -> bool:
    """Whether numba is installed."""
    return numba is not None


def require() -> None:
    """Raise a one-line error unless numba is installed."""
    if numba is None:
        raise RLTorchError("the numba backend needs numba: pip install numba (or use backend='torch')")


if numba is not None:

    @njit(cache=True, inline="always")
    def _mix(z: np.uint64) -> np.uint64:
        """SplitMix64's finalizer."""
        z = (z ^ (z >> np.uint64(30))) * MIX_1
        z = (z ^ (z >> np.uint64(27))) * MIX_2
        return z ^ (z >> np.uint64(31))

    @njit(cache=True, inline="always")
    def _word(k0: np.uint64, k1: np.uint64, index: int) -> np.uint64:
        """Word `index` of a run's stream, as `rltorch.engines.draws.hash_words`."""
        return _mix(_mix(k0 + (np.uint64(index) + np.uint64(1)) * GOLDEN) ^ k1)

    @njit(cache=True, inline="always")
    def _draw(k0: np.uint64, k1: np.uint64, calls: int, word: np.uint64) -> tuple[float, np.uint64]:
        """Draw number `calls`: the high half of its word when even (a new word), else the low half."""
        if calls % 2 == 0:
            word = _word(k0, k1, calls // 2)
            return np.float64(word >> np.uint64(32)) * SCALE, word
        return np.float64(word & LOW_32) * SCALE, word

    @njit(cache=True, inline="always")
    def _categorical(cumulative: np.ndarray, last: int, u: float) -> int:
        """The outcome index of draw `u`: how many running sums are <= u, at most `last`."""
        below = 0
        for value in cumulative:
            if value <= u:
                below += 1
        return min(below, last)

    @njit(cache=True, inline="always")
    def _choose(q: np.ndarray, s: int, legal: np.ndarray, legal_count: np.ndarray, epsilon: float, u_epsilon: float,
                u_choice: float, best: float, ties: int) -> int:
        """epsilon-greedy with the torch kernel's arithmetic (`ModelTensors.choose`), given `_greedy(q, s)`."""
        explore = u_epsilon < epsilon
        size = legal_count[s] if explore else np.float64(ties)
        k = int(np.floor(u_choice * size))
        running, index = 0, 0
        for a in range(q.shape[1]):
            running += legal[s, a] and (explore or q[s, a] == best)
            index += running <= k
        return index

    @njit(cache=True, inline="always")
    def _greedy(q: np.ndarray, s: int, legal: np.ndarray) -> tuple[float, int]:
        """The largest legal value of `s` and how many legal actions have it."""
        best = -np.inf
        for a in range(q.shape[1]):
            best = max(best, q[s, a] if legal[s, a] else -np.inf)
        ties = 0
        for a in range(q.shape[1]):
            ties += legal[s, a] and q[s, a] == best
        return best, ties

    @njit(cache=True, inline="always")
    def _expected(q: np.ndarray, s: int, legal: np.ndarray, legal_count: np.ndarray, epsilon: float, best: float,
                  ties: int) -> float:
        """Expected SARSA's epsilon-greedy expectation in `s`, summed left to right as the torch kernel does."""
        base = epsilon / legal_count[s]
        greedy = base + (1.0 - epsilon) / np.float64(ties)
        total = 0.0
        for a in range(q.shape[1]):
            p = (greedy if q[s, a] == best else base) if legal[s, a] else 0.0
            total = p * q[s, a] if a == 0 else total + p * q[s, a]
        return total

    @njit(cache=True)
    def _begin(lane: int, keys: np.ndarray, lanes: tuple, model: tuple, epsilon: float) -> None:
        """The first start state and action of `lane` (calls: [start], epsilon, choice)."""
        q, state, action, calls, episode, totals, lengths_now, codes, alphas = lanes
        legal, legal_count, _, _, _, _, _, deterministic, start_cum, start_last, start_random, first_start = model
        k0, k1 = keys[lane, 0], keys[lane, 1]
        c, word = 0, np.uint64(0)
        s = first_start
        if start_random:
            u, word = _draw(k0, k1, c, word)
            c += 1
            s = _categorical(start_cum, start_last, u)
        u_epsilon, word = _draw(k0, k1, c, word)
        u_choice, word = _draw(k0, k1, c + 1, word)
        best, ties = _greedy(q[lane], s, legal)
        state[lane], calls[lane] = s, c + 2
        action[lane] = _choose(q[lane], s, legal, legal_count, epsilon, u_epsilon, u_choice, best, ties)

    @njit(cache=True)
    def _advance_lane(lane: int, until: int, episodes: int, keys: np.ndarray, lanes: tuple, model: tuple,
                      epsilon: float, gamma: float, returns: np.ndarray, lengths: np.ndarray) -> None:
        """Run `lane` until it has finished `until` episodes (see `ControlKernel.step` for the order)."""
        q_all, state, action, calls, episode, totals, lengths_now, codes, alphas = lanes
        legal, legal_count, next_state, reward, terminal, cumulative, last, deterministic, start_cum, start_last, \
            start_random, first_start = model
        q, k0, k1, code, alpha = q_all[lane], keys[lane, 0], keys[lane, 1], codes[lane], alphas[lane]
        s, a, c, ep, total, length = state[lane], action[lane], calls[lane], episode[lane], totals[lane], \
            lengths_now[lane]
        word = _word(k0, k1, c // 2)
        actions = q.shape[1]
        while ep < until:
            pair, outcome = s * actions + a, 0
            if not deterministic:
                u, word = _draw(k0, k1, c, word)
                c += 1
                outcome = _categorical(cumulative[pair], last[pair], u)
            s2, r, ended = next_state[pair, outcome], reward[pair, outcome], terminal[pair, outcome]
            total += r
            length += 1
            old = q[s, a]
            if ended:
                returns[lane, ep], lengths[lane, ep] = total, length
                ep, total, length = ep + 1, 0.0, 0
            d = first_start if ended else s2
            if start_random:
                u, word = _draw(k0, k1, c, word)
                c += 1
                if ended:
                    d = _categorical(start_cum, start_last, u)
            u_epsilon, word = _draw(k0, k1, c, word)
            u_choice, word = _draw(k0, k1, c + 1, word)
            c += 2
            best, ties = _greedy(q, d, legal)  # before the update
            if code != 0 or ended:  # the next choice reads this step's update
                if not ended:
                    follow = best if code == 2 else _expected(q, d, legal, legal_count, epsilon, best, ties)
                    r = r + gamma * follow
                q[s, a] = old + alpha * (r - old)
                if d == s:
                    best, ties = _greedy(q, d, legal)
                a2 = _choose(q, d, legal, legal_count, epsilon, u_epsilon, u_choice, best, ties)
            else:  # SARSA within an episode: A' first, from the values before the update
                a2 = _choose(q, d, legal, legal_count, epsilon, u_epsilon, u_choice, best, ties)
                q[s, a] = old + alpha * ((r + gamma * q[d, a2]) - old)
            s, a = d, a2
            if ep >= episodes:
                break
        state[lane], action[lane], calls[lane], episode[lane], totals[lane], lengths_now[lane] = s, a, c, ep, total, \
            length

    @njit(cache=True, nogil=True)
    def _begin_all(keys: np.ndarray, lanes: tuple, model: tuple, epsilon: float) -> None:
        """`_begin` for every lane."""
        for lane in range(keys.shape[0]):
            _begin(lane, keys, lanes, model, epsilon)

    @njit(cache=True, nogil=True)
    def _advance_lanes(first: int, stop: int, until: int, episodes: int, keys: np.ndarray, lanes: tuple,
                       model: tuple, epsilon: float, gamma: float, returns: np.ndarray, lengths: np.ndarray) -> None:
        """`_advance_lane` for lanes first..stop-1 (without the GIL, so threads can share the lanes)."""
        for lane in range(first, stop):
            _advance_lane(lane, until, episodes, keys, lanes, model, epsilon, gamma, returns, lengths)


def model_arrays(model: FiniteModel) -> tuple:
    """The model as the tuple the numba kernels read (the arrays `ModelTensors` holds, as numpy)."""
    arrays = model.arrays()
    states, actions, width = arrays.prob.shape
    pairs = states * actions
    outcomes = Categorical.of(arrays.prob.reshape(pairs, -1), torch.device("cpu"))
    start = Categorical.of(arrays.start[None, :], torch.device("cpu"))
    legal = np.ascontiguousarray(arrays.legal)
    return (legal, legal.sum(axis=1).astype(np.float64), arrays.next_index.reshape(pairs, width),
            arrays.reward.reshape(pairs, width).astype(np.float64), arrays.terminal.reshape(pairs, width),
            outcomes.cumulative.numpy(), outcomes.last.numpy(), not outcomes.random, start.cumulative.numpy()[0],
            int(start.last[0]), start.random, int(np.argmax(arrays.start > 0)))


class NumbaControl:
    """Lanes of SARSA / Expected SARSA / Q-learning (codes 0 / 1 / 2) run by numba; `advance(until)` in segments."""

    def __init__(self, model: FiniteModel, codes: np.ndarray, alphas: np.ndarray, keys: np.ndarray, episodes: int,
                 epsilon: float, gamma: float, threads: int = 1) -> None:
        require()
        self.threads = max(1, int(threads))
        self.model = model_arrays(model)
        states, actions = self.model[0].shape
        count = len(codes)
        self.keys = np.ascontiguousarray(keys, dtype=np.uint64)
        self.episodes, self.epsilon, self.gamma = episodes, float(epsilon), float(gamma)
        self.lanes = (np.zeros((count, states, actions)), np.zeros(count, dtype=np.int64),
                      np.zeros(count, dtype=np.int64), np.zeros(count, dtype=np.int64), np.zeros(count, dtype=np.int64),
                      np.zeros(count), np.zeros(count, dtype=np.int64), np.asarray(codes, dtype=np.int64),
                      np.asarray(alphas, dtype=np.float64))
        self.returns = np.zeros((count, episodes))
        self.lengths = np.zeros((count, episodes), dtype=np.int64)
        _begin_all(self.keys, self.lanes, self.model, self.epsilon)

    @property
    def q(self) -> np.ndarray:
        """Q [lanes, S, A]."""
        return self.lanes[0]

    def episodes_done(self) -> int:
        """Episodes finished over all lanes."""
        return int(self.lanes[4].sum())

    def advance(self, until: int) -> None:
        """Run every lane until it has finished `until` episodes (at most the batch's), on `threads` threads."""
        count = len(self.keys)
        settings = (min(until, self.episodes), self.episodes, self.keys, self.lanes, self.model, self.epsilon,
                    self.gamma, self.returns, self.lengths)
        if self.threads == 1:
            _advance_lanes(0, count, *settings)
            return
        size = max(1, -(-count // (CHUNKS_PER_THREAD * self.threads)))  # small chunks: lanes differ in length
        with ThreadPoolExecutor(self.threads) as pool:
            jobs = [pool.submit(_advance_lanes, first, min(first + size, count), *settings)
                    for first in range(0, count, size)]
            for job in jobs:
                job.result()
