"""Mountain Car with tile coding for many runs at once: numba lanes over weights [runs, actions * features].

Each lane is one run of an algorithm of chapters 10 and 12 on Gymnasium's `MountainCar-v0` dynamics (its
float operations, its float32 observations), with a linear q̂ over `rltorch.features.TileCoder` tiles
(`active_tiles`, the coder's numba twin). A lane is the per-step trainer (`NStepSARSATrainer`,
`SARSATrainer` for n = 1, `SARSALambdaTrainer`, `TrueOnlineSARSALambdaTrainer` with a
`LinearValueFunction`) line for line, fed the lane's stream (`rltorch.engines.draws`): the start position
is low + (high - low) * u, epsilon-greedy draws as `Trainer.choose` does (one number, then a second to
explore or to break a tie). Sums of weights run left to right over the tilings, as the value function's.
An episode that reaches `limit` steps is cut there (the trainer's time limit: the last step bootstraps);
the studies use it as the stated episode cap and count the episodes it cut.
"""

from __future__ import annotations

import math
import sys
from typing import NamedTuple

import numpy as np
from numba import njit

from rltorch.engines.core import greedy
from rltorch.engines.draws import draw, stream_states
from rltorch.features.tiles import TileCoder, active_tiles
from rltorch.targets import n_step_return, sarsa_target

FORCE, GRAVITY, MAX_SPEED = 0.001, 0.0025, 0.07
MIN_POSITION, MAX_POSITION, GOAL_POSITION = -1.2, 0.6, 0.5
START_LOW, START_HIGH = -0.6, -0.4
ACTIONS = 3
BOOK_LOW, BOOK_HIGH = (-1.2, -0.07), (0.5, 0.07)  # the book's tiles cover positions up to the goal, 0.5
NSTEP, ACCUMULATING, REPLACING, CLEARING, TRUE_ONLINE = range(5)
CODES = {"sarsa": NSTEP, "nstep-sarsa": NSTEP, "sarsa-lambda-accumulating": ACCUMULATING,
         "sarsa-lambda-replacing": REPLACING, "sarsa-lambda-clearing": CLEARING,
         "true-online-sarsa-lambda": TRUE_ONLINE}


class Coder(NamedTuple):
    """A `TileCoder` as the arrays and numbers `active_tiles` reads."""

    low: np.ndarray
    width: np.ndarray
    strides: np.ndarray
    odd: np.ndarray
    tilings: int
    tiles: int
    tiling_size: int
    hash_size: int
    size: int


class Settings(NamedTuple):
    """One batch's algorithm (a code above), step size per weight, epsilon, gamma, lambda, n and episode cap."""

    code: int
    alpha: float
    epsilon: float
    gamma: float
    lam: float
    n: int
    limit: int


def coder_of(coder: TileCoder) -> Coder:
    """The engine's form of a tile coder."""
    return Coder(*coder.kernel_arrays(), coder.tilings, coder.tiles, coder.tiling_size, coder.hash_size, coder.size)


def book_coder(tilings: int = 8, tiles: int = 8) -> TileCoder:
    """The book's coder: `tilings` tilings of tiles x tiles over position [-1.2, 0.5] and velocity [-0.07, 0.07]."""
    return TileCoder(BOOK_LOW, BOOK_HIGH, tilings, tiles)


@njit(cache=True)
def reset(stream: np.ndarray) -> float:
    """A start position, uniform in [-0.6, -0.4) as `env.reset()` draws it (numpy's low + (high - low) * u)."""
    return START_LOW + (START_HIGH - START_LOW) * draw(stream)


@njit(cache=True)
def move(position: float, velocity: float, action: int) -> tuple[float, float, bool]:
    """Gymnasium's `MountainCarEnv.step`: the next position and velocity, and whether the goal is reached."""
    velocity += (action - 1) * FORCE + math.cos(3 * position) * (-GRAVITY)
    velocity = min(max(velocity, -MAX_SPEED), MAX_SPEED)
    position += velocity
    position = min(max(position, MIN_POSITION), MAX_POSITION)
    if position == MIN_POSITION and velocity < 0:
        velocity = 0.0
    return position, velocity, position >= GOAL_POSITION and velocity >= 0


@njit(cache=True)
def observe(position: float, velocity: float, coder: Coder, state: np.ndarray, tiles: np.ndarray) -> None:
    """The tiles of the observation (the state rounded to float32, as the env returns it)."""
    state[0] = np.float64(np.float32(position))
    state[1] = np.float64(np.float32(velocity))
    active_tiles(state, coder.low, coder.width, coder.strides, coder.odd, coder.tilings, coder.tiles,
                 coder.tiling_size, coder.hash_size, tiles)


@njit(cache=True)
def q_value(weights: np.ndarray, tiles: np.ndarray, action: int, size: int) -> float:
    """q̂(s, a): the active weights of action a's row, summed left to right."""
    total = weights[action * size + tiles[0]]
    for j in range(1, tiles.shape[0]):
        total += weights[action * size + tiles[j]]
    return total


@njit(cache=True)
def choose(weights: np.ndarray, tiles: np.ndarray, size: int, epsilon: float, stream: np.ndarray,
           values: np.ndarray) -> int:
    """`Trainer.choose`: u < epsilon explores (a second draw picks), else greedy with random ties."""
    if draw(stream) < epsilon:
        return int(np.floor(draw(stream) * ACTIONS))
    for action in range(ACTIONS):
        values[action] = q_value(weights, tiles, action, size)
    return greedy(values, ACTIONS, stream)


@njit(cache=True)
def nstep_episode(weights: np.ndarray, stream: np.ndarray, coder: Coder, settings: Settings) -> int:
    """n-step SARSA (`NStepSARSATrainer`; SARSA at n = 1): the episode's length."""
    n, size, gamma, alpha = settings.n, coder.size, settings.gamma, settings.alpha
    slots = n + 1
    tiles = np.empty((slots, coder.tilings), dtype=np.int64)  # the tiles of S_t, slot t mod (n + 1)
    actions = np.empty(slots, dtype=np.int64)
    rewards = np.empty(slots)  # R_t at slot t mod (n + 1)
    state, values, window = np.empty(2), np.empty(ACTIONS), np.empty(n)
    position, velocity = reset(stream), 0.0
    observe(position, velocity, coder, state, tiles[0])
    actions[0] = choose(weights, tiles[0], size, settings.epsilon, stream, values)
    end, truncated, t = 1 << 62, False, 0
    while True:
        if t < end:
            position, velocity, terminated = move(position, velocity, actions[t % slots])
            rewards[(t + 1) % slots] = -1.0
            if terminated or (settings.limit > 0 and t + 1 >= settings.limit):
                end, truncated = t + 1, not terminated
            if not terminated:
                following = (t + 1) % slots
                observe(position, velocity, coder, state, tiles[following])
                actions[following] = choose(weights, tiles[following], size, settings.epsilon, stream, values)
        tau = t - n + 1
        if tau >= 0:
            horizon = min(tau + n, end)
            for index in range(horizon - tau):
                window[index] = rewards[(tau + 1 + index) % slots]
            if horizon < end or truncated:
                last = horizon % slots
                target = n_step_return(window[:horizon - tau], gamma, q_value(weights, tiles[last], actions[last],
                                                                                size))
            else:
                target = n_step_return(window[:horizon - tau], gamma, None)
            slot = tau % slots
            offset = actions[slot] * size
            step = alpha * (target - q_value(weights, tiles[slot], actions[slot], size))
            for j in range(coder.tilings):
                weights[offset + tiles[slot, j]] += step
        if tau == end - 1:
            return end
        t += 1


@njit(cache=True)
def trace_episode(weights: np.ndarray, stream: np.ndarray, coder: Coder, settings: Settings) -> int:
    """SARSA(λ) with accumulating, replacing or clearing traces, or true online SARSA(λ): the episode's length."""
    size, gamma, alpha, code = coder.size, settings.gamma, settings.alpha, settings.code
    decay = gamma * settings.lam
    z = np.zeros(weights.shape[0])
    position_of = np.full(weights.shape[0], -1, dtype=np.int64)
    touched = np.empty(weights.shape[0], dtype=np.int64)
    count = 0
    tiles, next_tiles = np.empty(coder.tilings, dtype=np.int64), np.empty(coder.tilings, dtype=np.int64)
    state, values = np.empty(2), np.empty(ACTIONS)
    position, velocity = reset(stream), 0.0
    observe(position, velocity, coder, state, tiles)
    action = choose(weights, tiles, size, settings.epsilon, stream, values)
    old, length = 0.0, 0
    while True:
        position, velocity, terminated = move(position, velocity, action)
        length += 1
        truncated = not terminated and settings.limit > 0 and length >= settings.limit
        offset = action * size
        for j in range(coder.tilings):  # the trace rows of this step's features, appended in first-touch order
            index = offset + tiles[j]
            if position_of[index] < 0:
                position_of[index], touched[count] = count, index
                count += 1
        value, next_value, next_action = q_value(weights, tiles, action, size), 0.0, 0
        if code == CLEARING:  # the traces of S's other actions to 0 (untouched ones already are)
            for other in range(ACTIONS):
                if other != action:
                    for j in range(coder.tilings):
                        z[other * size + tiles[j]] = 0.0
        if code != TRUE_ONLINE:
            for j in range(coder.tilings):
                if code == ACCUMULATING:
                    z[offset + tiles[j]] += 1.0
                else:
                    z[offset + tiles[j]] = 1.0
        if not terminated:
            observe(position, velocity, coder, state, next_tiles)
            next_action = choose(weights, next_tiles, size, settings.epsilon, stream, values)
            next_value = q_value(weights, next_tiles, next_action, size)
        delta = sarsa_target(-1.0, next_value, gamma, terminated) - value
        if code == TRUE_ONLINE:
            dot = 0.0
            for j in range(coder.tilings):
                dot += z[offset + tiles[j]] * 1.0
            shrink = 1.0 - alpha * decay * dot
            for row in range(count):
                z[touched[row]] *= decay
            for j in range(coder.tilings):
                z[offset + tiles[j]] += shrink * 1.0
            scale = alpha * (delta + value - old)
            for row in range(count):
                weights[touched[row]] += scale * z[touched[row]]
            correction = -alpha * (value - old)
            for j in range(coder.tilings):
                weights[offset + tiles[j]] += correction * 1.0
            old = next_value
        else:
            scale = alpha * delta
            for row in range(count):
                weights[touched[row]] += scale * z[touched[row]]
        if terminated or truncated:
            return length
        if code != TRUE_ONLINE:
            for row in range(count):
                z[touched[row]] *= decay
        tiles, next_tiles, action = next_tiles, tiles, next_action


@njit(nogil=True, cache=True)
def run_lanes(weights: np.ndarray, streams: np.ndarray, coder: Coder, settings: Settings, episodes: int,
              lengths: np.ndarray) -> None:
    """Every lane plays `episodes` more episodes, writing their lengths into `lengths[lane, :episodes]`."""
    for lane in range(weights.shape[0]):
        for episode in range(episodes):
            if settings.code == NSTEP:
                lengths[lane, episode] = nstep_episode(weights[lane], streams[lane], coder, settings)
            else:
                lengths[lane, episode] = trace_episode(weights[lane], streams[lane], coder, settings)


class Lanes:
    """Many independent runs of one algorithm with tile coding: their weights and streams, played in blocks."""

    def __init__(self, seed: int, runs: list[int] | range, coder: TileCoder, settings: Settings) -> None:
        self.coder, self.settings = coder_of(coder), settings
        self.weights = np.zeros((len(runs), ACTIONS * coder.size))
        self.streams = stream_states(seed, list(runs))

    def play(self, episodes: int) -> np.ndarray:
        """Play `episodes` more episodes in every lane; their lengths, int64 [runs, episodes]."""
        lengths = np.zeros((self.weights.shape[0], episodes), dtype=np.int64)
        run_lanes(self.weights, self.streams, self.coder, self.settings, episodes, lengths)
        return lengths


if __name__ == "__main__":
    print("engine.py is a module of figure_10_2.py"
          "; run python trainers/chapter10/figure_10_2.py --help", file=sys.stderr)
    sys.exit(2)
