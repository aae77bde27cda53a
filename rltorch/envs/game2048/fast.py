"""The compiled game loop: TD-afterstate learning (or greedy play) of many 2048 games in one call.

One move, as the per-step `QLearningTrainer` makes it over `(afterstate, reward)` keys with an n-tuple
network (Szubert & Jaśkowski's TD-afterstate): in board s the values r(s, a) + V(afterstate(s, a)) of the
legal slides are read; the previous afterstate moves toward r_prev + gamma * max of them (r_prev alone at
the end), in the trainer's floats; the values are read again and the first best slide is taken; a tile is
placed with two uniform draws. A game's reset takes four draws. Fed the same uniforms (and first-index
tie-breaking), it makes the per-step trainer's moves and weights (a test checks it).

`play` stops when its uniforms run out (it needs four left to start an iteration) or `games` games have
ended; `state` carries a game under way from one call to the next, so the caller can refill the uniforms.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from rltorch.envs.game2048.rules import max_exponent, place_tile, slide
from rltorch.values.ntuple_kernels import add_to_board, board_value

# the slots of `state`
BOARD, PREVIOUS, PREVIOUS_REWARD, HAS_PREVIOUS, SCORE, MOVES, IN_GAME = range(7)
STATE_SIZE = 7
# the columns of `results`: one row per ended game
RESULT_SCORE, RESULT_MAX_TILE, RESULT_MOVES, RESULT_ERRORS, RESULT_ABS_ERROR = range(5)
RESULT_COLUMNS = 5


@njit(cache=True)
def best_move(board: int, size: int, tables: tuple, weights: np.ndarray, cells: np.ndarray, lengths: np.ndarray,
              offsets: np.ndarray) -> tuple[int, float]:
    """The first legal slide of largest r + V(afterstate), and that value (-1 and 0.0 when none is legal)."""
    first, last, scores = tables
    best, best_value = -1, 0.0
    for action in range(4):
        after, reward = slide(board, action, size, first, last, scores)
        if after != board:
            value = float(reward) + board_value(after, weights, cells, lengths, offsets)
            if best < 0 or value > best_value:
                best, best_value = action, value
    return best, best_value


@njit(cache=True)
def learn_previous(state: np.ndarray, target: float, step: float, weights: np.ndarray, cells: np.ndarray,
                   lengths: np.ndarray, offsets: np.ndarray) -> float:
    """Move V(previous afterstate) toward `target` - its reward, as `NTupleNetwork.update` does; the error."""
    previous = state[PREVIOUS]
    old = float(state[PREVIOUS_REWARD]) + board_value(previous, weights, cells, lengths, offsets)
    error = target - old
    add_to_board(previous, step * error, weights, cells, lengths, offsets)
    return error


@njit(cache=True)
def play(state: np.ndarray, uniforms: np.ndarray, position: int, games: int, results: np.ndarray, size: int,
         tables: tuple, weights: np.ndarray, cells: np.ndarray, lengths: np.ndarray, offsets: np.ndarray,
         step: float, gamma: float, learn: bool) -> tuple[int, int]:
    """Play (and learn from, when `learn`) up to `games` games; the uniforms' new position and the games ended."""
    first, last, scores = tables
    ended = 0
    while ended < games and position + 4 <= uniforms.shape[0]:
        if state[IN_GAME] == 0:
            board = place_tile(0, size, uniforms[position], uniforms[position + 1])
            state[BOARD] = place_tile(board, size, uniforms[position + 2], uniforms[position + 3])
            position += 4
            state[IN_GAME], state[HAS_PREVIOUS], state[SCORE], state[MOVES] = 1, 0, 0, 0
            continue
        board = state[BOARD]
        action, value = best_move(board, size, tables, weights, cells, lengths, offsets)
        if learn and state[HAS_PREVIOUS] == 1:
            reward = float(state[PREVIOUS_REWARD])
            target = reward if action < 0 else reward + gamma * value
            error = learn_previous(state, target, step, weights, cells, lengths, offsets)
            results[ended, RESULT_ERRORS] += 1.0
            results[ended, RESULT_ABS_ERROR] += abs(error)
            if action >= 0:
                action, value = best_move(board, size, tables, weights, cells, lengths, offsets)
        if action < 0:
            results[ended, RESULT_SCORE] = state[SCORE]
            results[ended, RESULT_MAX_TILE] = max_exponent(board, size)
            results[ended, RESULT_MOVES] = state[MOVES]
            state[IN_GAME] = 0
            ended += 1
            continue
        after, reward = slide(board, action, size, first, last, scores)
        state[SCORE] += reward
        state[MOVES] += 1
        state[PREVIOUS], state[PREVIOUS_REWARD], state[HAS_PREVIOUS] = after, reward, 1
        state[BOARD] = place_tile(after, size, uniforms[position], uniforms[position + 1])
        position += 2
    return position, ended

