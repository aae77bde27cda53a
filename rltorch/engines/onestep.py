"""The fast forms of the one-step TD methods: the numba twins of `rltorch.trainers.td`'s episodes.

Each function is its trainer's `run_episode`, line for line, on one lane: the same steps in the same
order (so the same draws), the same targets from `rltorch.targets` and the table update
`targets.step_toward`, which is `QTable.update`'s arithmetic. A truncated episode (the time limit)
learns from its last step as the trainer does: it bootstraps from S' (SARSA first chooses A' there,
drawing for it), then the next episode starts.
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
    greedy,
    record,
    start,
    step,
)
from rltorch.engines.draws import draw
from rltorch.targets import expected_sarsa_target, q_learning_target, sarsa_target, step_toward

SARSA, EXPECTED_SARSA, QLEARNING = 0, 1, 2  # the codes of `control_episode`'s lanes


@njit(cache=True)
def sarsa_episode(q: np.ndarray, stream: np.ndarray, alpha: float, model: Model, settings: Settings,
                  scratch: np.ndarray) -> tuple[float, int]:
    """`SARSATrainer.run_episode`: choose A' in S' before the update toward R + gamma Q(S', A')."""
    epsilon, gamma = settings.epsilon, settings.gamma
    state = start(model, stream)
    gather(model, q, state, scratch)
    action = choose(model, scratch, state, epsilon, stream)
    total, length = 0.0, 0
    while True:
        next_state, reward, terminated = step(model, state, action, stream)
        total += reward
        length += 1
        if terminated:
            q[state, action] = step_toward(q[state, action], alpha, sarsa_target(reward, 0.0, gamma, True))
            return total, length
        gather(model, q, next_state, scratch)
        next_action = choose(model, scratch, next_state, epsilon, stream)
        target = sarsa_target(reward, q[next_state, next_action], gamma, False)
        q[state, action] = step_toward(q[state, action], alpha, target)
        if ends(False, length, settings.limit):
            return total, length
        state, action = next_state, next_action


@njit(cache=True)
def one_step_episode(code: int, q: np.ndarray, stream: np.ndarray, alpha: float, model: Model, settings: Settings,
                     scratch: np.ndarray) -> tuple[float, int]:
    """`OneStepTrainer.run_episode` with Q-learning's or Expected SARSA's `learn_step`: choose, step, update."""
    epsilon, gamma = settings.epsilon, settings.gamma
    state = start(model, stream)
    total, length = 0.0, 0
    while True:
        gather(model, q, state, scratch)
        action = choose(model, scratch, state, epsilon, stream)
        next_state, reward, terminated = step(model, state, action, stream)
        total += reward
        length += 1
        following = scratch[:gather(model, q, next_state, scratch)]  # read before the update, as the trainer does
        if code == QLEARNING:
            target = q_learning_target(reward, following, gamma, terminated)
        else:
            target = expected_sarsa_target(reward, following, epsilon, gamma, terminated)
        q[state, action] = step_toward(q[state, action], alpha, target)
        if ends(terminated, length, settings.limit):
            return total, length
        state = next_state


@njit(cache=True)
def control_episode(lane: int, lanes: Lanes, model: Model, settings: Settings,
                    scratch: np.ndarray) -> tuple[float, int]:
    """One episode of a SARSA, Expected SARSA or Q-learning lane (its code says which)."""
    q, stream, alpha, code = lanes.values[lane, 0], lanes.streams[lane], lanes.alpha[lane], lanes.code[lane]
    if code == SARSA:
        return sarsa_episode(q, stream, alpha, model, settings, scratch)
    return one_step_episode(code, q, stream, alpha, model, settings, scratch)


@njit(cache=True)
def double_q_episode(lane: int, lanes: Lanes, model: Model, settings: Settings,
                     scratch: np.ndarray) -> tuple[float, int]:
    """`DoubleQLearningTrainer`'s episode: act on Q1 + Q2; a coin picks the half to update, a tie draw follows it.

    The draws of a step, in order: epsilon, [choice], [transition], coin (u < 0.5 updates Q1), then, only
    when the episode goes on (not terminated; a truncated step bootstraps) and several legal actions share
    the updated half's largest value in S', the tie (`learn_one_half` and `double_q_learning_target`).
    """
    tables, stream, alpha, gamma = lanes.values[lane], lanes.streams[lane], lanes.alpha[lane], settings.gamma
    own_values = scratch[model.actions:]
    state = start(model, stream)
    total, length = 0.0, 0
    while True:
        for index in range(model.legal_count[state]):  # Q1 + Q2: the actions (and ties) of DoubleQ.values, their mean
            action = model.legal[state, index]
            scratch[index] = tables[0, state, action] + tables[1, state, action]
        action = choose(model, scratch, state, settings.epsilon, stream)
        next_state, reward, terminated = step(model, state, action, stream)
        total += reward
        length += 1
        own = 0 if draw(stream) < 0.5 else 1
        target = reward
        if not terminated:
            count = gather(model, tables[own], next_state, own_values)
            best = model.legal[next_state, greedy(own_values, count, stream)]
            target = sarsa_target(reward, tables[1 - own, next_state, best], gamma, False)
        tables[own, state, action] = step_toward(tables[own, state, action], alpha, target)
        if ends(terminated, length, settings.limit):
            return total, length
        state = next_state


@njit(cache=True, nogil=True)
def advance_control(first: int, stop: int, until: int, lanes: Lanes, model: Model, settings: Settings) -> None:
    """Lanes first..stop-1 play `control_episode` after episode until each has finished `until` episodes."""
    scratch = np.empty(2 * model.actions)  # the episode's working space for rows of values
    for lane in range(first, stop):
        for number in range(lanes.done[lane], until):
            record(lanes, lane, number,
                   control_episode(lane, lanes, model, episode_settings(lanes, number, settings), scratch))
        lanes.done[lane] = max(lanes.done[lane], until)


@njit(cache=True, nogil=True)
def advance_double_q(first: int, stop: int, until: int, lanes: Lanes, model: Model, settings: Settings) -> None:
    """Lanes first..stop-1 play `double_q_episode` after episode until each has finished `until` episodes."""
    scratch = np.empty(2 * model.actions)
    for lane in range(first, stop):
        for number in range(lanes.done[lane], until):
            record(lanes, lane, number,
                   double_q_episode(lane, lanes, model, episode_settings(lanes, number, settings), scratch))
        lanes.done[lane] = max(lanes.done[lane], until)


ALGORITHMS.update({"sarsa": FastForm(control_episode, advance_control, code=SARSA),
                   "expected-sarsa": FastForm(control_episode, advance_control, code=EXPECTED_SARSA),
                   "qlearning": FastForm(control_episode, advance_control, code=QLEARNING),
                   "double-qlearning": FastForm(double_q_episode, advance_double_q, tables=2)})
