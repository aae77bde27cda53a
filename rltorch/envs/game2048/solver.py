"""The exact small-board 2048: every reachable board, and dynamic programming over afterstates.

Every move keeps the sum of the tiles and every new tile adds 2 or 4, so the boards fall into layers by
their tile sum and each layer's successors lie in the next two. `reachable_layers` lists every board that
any play can reach from the start (a sorted int64 array per tile sum); the values are then computed from
the largest sum down: V(board) = max over legal slides of r + V_after(afterstate), 0 when none is legal,
and V_after(afterstate) = the mean over its empty cells of 0.9 V(with a 2) + 0.1 V(with a 4). Three
objectives share the loop: the expected final score (`SCORE`), the probability of ever holding a tile of
`2 ** target` (`REACH`: a board that holds it is worth 1), and a given policy's expected score (`POLICY`,
its action in every board). The start is two tiles on an empty board, as the env places them.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any

import numpy as np
from numba import njit

from rltorch.envs.game2048.rules import (
    FOUR_PROBABILITY,
    MAX_EXPONENT,
    cell,
    line_tables,
    max_exponent,
    place_tile,
    slide,
    unpack,
)

SCORE, REACH, POLICY = 0, 1, 2


@njit(cache=True)
def tile_sum(board: int, size: int) -> int:
    """The sum of the board's tiles."""
    total = 0
    for index in range(size * size):
        exponent = cell(board, index)
        if exponent:
            total += 1 << exponent
    return total


@njit(cache=True)
def children(afterstates: np.ndarray, size: int, exponent: int) -> np.ndarray:
    """Every board a new tile of `2 ** exponent` makes from the afterstates (with repeats)."""
    count = 0
    for after in afterstates:
        for index in range(size * size):
            count += cell(after, index) == 0
    out = np.empty(count, dtype=np.int64)
    filled = 0
    for after in afterstates:
        for index in range(size * size):
            if cell(after, index) == 0:
                out[filled] = after | (exponent << (4 * index))
                filled += 1
    return out


@njit(cache=True)
def afterstates_of(boards: np.ndarray, size: int, tables: tuple, goal: int) -> np.ndarray:
    """The afterstates of every legal slide of the boards that do not hold the goal tile (with repeats)."""
    first, last, scores = tables
    out = np.empty(4 * boards.shape[0], dtype=np.int64)
    filled = 0
    for board in boards:
        if max_exponent(board, size) >= goal:
            continue
        for action in range(4):
            after, _ = slide(board, action, size, first, last, scores)
            if after != board:
                out[filled] = after
                filled += 1
    return out[:filled]


def start_boards(size: int) -> np.ndarray:
    """Every board a reset can make (two tiles on distinct cells)."""
    starts = children(children(np.zeros(1, dtype=np.int64), size, 1), size, 1)
    starts = np.concatenate([starts, children(children(np.zeros(1, dtype=np.int64), size, 1), size, 2),
                             children(children(np.zeros(1, dtype=np.int64), size, 2), size, 2)])
    return np.unique(starts)


def reachable_layers(size: int, goal: int = MAX_EXPONENT) -> tuple[dict[int, np.ndarray], int]:
    """Every reachable board, as sorted arrays by tile sum, and the number of afterstates.

    A board that holds a tile of `2 ** goal` ends the game (the capped variant): nothing is reached from it.
    """
    tables = line_tables(size)
    pending: dict[int, list[np.ndarray]] = {}
    for board in start_boards(size):
        pending.setdefault(tile_sum(int(board), size), []).append(np.array([board], dtype=np.int64))
    layers: dict[int, np.ndarray] = {}
    afterstate_count = 0
    while pending:
        total = min(pending)
        boards = layers[total] = np.unique(np.concatenate(pending.pop(total)))
        afters = np.unique(afterstates_of(boards, size, tables, goal))
        afterstate_count += afters.size
        for exponent, step in ((1, 2), (2, 4)):
            grown = np.unique(children(afters, size, exponent))
            if grown.size:
                pending.setdefault(total + step, []).append(grown)
    return layers, afterstate_count


@njit(cache=True)
def lookup(board: int, boards: np.ndarray, values: np.ndarray) -> float:
    """The value of `board` in a sorted layer."""
    return values[np.searchsorted(boards, board)]


@njit(cache=True)
def afterstate_value(after: int, size: int, next2: np.ndarray, values2: np.ndarray, next4: np.ndarray,
                     values4: np.ndarray) -> float:
    """The mean over the empty cells of 0.9 V(a 2 there) + 0.1 V(a 4 there)."""
    total = 0.0
    empty = 0
    for index in range(size * size):
        if cell(after, index) == 0:
            empty += 1
            total += (1.0 - FOUR_PROBABILITY) * lookup(after | (1 << (4 * index)), next2, values2)
            total += FOUR_PROBABILITY * lookup(after | (2 << (4 * index)), next4, values4)
    return total / empty


@njit(cache=True)
def layer_values(boards: np.ndarray, size: int, tables: tuple, next2: np.ndarray, values2: np.ndarray,
                 next4: np.ndarray, values4: np.ndarray, objective: int, target: int, goal: int,
                 actions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The values of one layer's boards and their best (or given) slides (-1 where none is legal or the game is won)."""
    first, last, scores = tables
    values = np.zeros(boards.shape[0])
    chosen = np.full(boards.shape[0], -1, dtype=np.int8)
    for row in range(boards.shape[0]):
        board = boards[row]
        top = max_exponent(board, size)
        if objective == REACH and top >= target:
            values[row] = 1.0
            continue
        if top >= goal:
            continue
        for action in range(4):
            if objective == POLICY and action != actions[row]:
                continue
            after, reward = slide(board, action, size, first, last, scores)
            if after == board:
                continue
            value = afterstate_value(after, size, next2, values2, next4, values4)
            if objective != REACH:
                value += reward
            if chosen[row] < 0 or value > values[row]:
                values[row], chosen[row] = value, action
    return values, chosen


def start_distribution(size: int) -> tuple[np.ndarray, np.ndarray]:
    """The boards a reset makes and their probabilities (a tile on one of the empty cells, twice)."""
    cells = size * size
    chances = {}
    tiles = ((1, 1.0 - FOUR_PROBABILITY), (2, FOUR_PROBABILITY))
    for first in range(cells):
        for second in range(cells):
            if first != second:
                for one, p_one in tiles:
                    for two, p_two in tiles:
                        board = (one << (4 * first)) | (two << (4 * second))
                        chances[board] = chances.get(board, 0.0) + p_one * p_two / (cells * (cells - 1))
    boards = np.array(sorted(chances), dtype=np.int64)
    return boards, np.array([chances[int(board)] for board in boards])


def solve(size: int, layers: dict[int, np.ndarray], objective: int, target: int = MAX_EXPONENT,
          goal: int = MAX_EXPONENT, policy: dict[int, np.ndarray] | None = None
          ) -> dict[int, tuple[np.ndarray, np.ndarray]]:
    """The values and slides of every layer's boards, from the largest tile sum down (see the module)."""
    tables = line_tables(size)
    solved: dict[int, tuple[np.ndarray, np.ndarray]] = {}
    empty = (np.zeros(0, dtype=np.int64), np.zeros(0))
    for total in sorted(layers, reverse=True):
        next2 = (layers[total + 2], solved[total + 2][0]) if total + 2 in layers else empty
        next4 = (layers[total + 4], solved[total + 4][0]) if total + 4 in layers else empty
        actions = policy[total] if policy is not None else np.zeros(0, dtype=np.int8)
        solved[total] = layer_values(layers[total], size, tables, *next2, *next4, objective, target, goal, actions)
    return solved


def start_value(size: int, layers: dict[int, np.ndarray], solved: dict[int, tuple[np.ndarray, np.ndarray]]) -> float:
    """The expected value from the start distribution."""
    boards, chances = start_distribution(size)
    total = 0.0
    for board, chance in zip(boards, chances, strict=True):
        layer = tile_sum(int(board), size)
        total += chance * lookup(int(board), layers[layer], solved[layer][0])
    return total


def flatten(layers: dict[int, np.ndarray], solved: dict[int, tuple[np.ndarray, np.ndarray]]
            ) -> tuple[np.ndarray, np.ndarray]:
    """Every board, sorted, with its slide: one lookup table for a simulation."""
    boards = np.concatenate([layers[total] for total in sorted(layers)])
    actions = np.concatenate([solved[total][1] for total in sorted(layers)])
    order = np.argsort(boards, kind="stable")
    return boards[order], actions[order]


@njit(cache=True)
def simulate(size: int, tables: tuple, boards: np.ndarray, actions: np.ndarray, uniforms: np.ndarray,
             games: int) -> np.ndarray:
    """The score of each of `games` games that play the table's slides (stops early when the draws run out)."""
    first, last, scores = tables
    out = np.full(games, -1.0)
    position = 0
    for game in range(games):
        if position + 4 > uniforms.shape[0]:
            break
        board = place_tile(place_tile(0, size, uniforms[position], uniforms[position + 1]), size,
                           uniforms[position + 2], uniforms[position + 3])
        position += 4
        score = 0
        while True:
            action = actions[np.searchsorted(boards, board)]
            if action < 0:
                break
            if position + 2 > uniforms.shape[0]:
                return out
            after, reward = slide(board, action, size, first, last, scores)
            score += reward
            board = place_tile(after, size, uniforms[position], uniforms[position + 1])
            position += 2
        out[game] = score
    return out


def simulated_scores(size: int, boards: np.ndarray, actions: np.ndarray, games: int, seed: int) -> np.ndarray:
    """The scores of `games` games played by the lookup table's slides, tiles drawn from `seed`."""
    rng = np.random.default_rng(seed)
    scores = np.zeros(0)
    while scores.size < games:
        more = simulate(size, line_tables(size), boards, actions, rng.random(1 << 22), games - scores.size)
        scores = np.concatenate([scores, more[more >= 0]])
    return scores


def policy_layers(size: int, goal: int, act: Callable[[tuple[int, ...], list[int]], int]
                  ) -> tuple[dict[int, np.ndarray], dict[int, np.ndarray]]:
    """The boards a policy reaches from the start, by tile sum, and its slide in each (`act(board, legal)`)."""
    tables = line_tables(size)
    pending: dict[int, list[np.ndarray]] = {}
    for board in start_boards(size):
        pending.setdefault(tile_sum(int(board), size), []).append(np.array([board], dtype=np.int64))
    layers: dict[int, np.ndarray] = {}
    chosen: dict[int, np.ndarray] = {}
    while pending:
        total = min(pending)
        boards = layers[total] = np.unique(np.concatenate(pending.pop(total)))
        actions = chosen[total] = np.array([policy_action(int(board), size, goal, tables, act) for board in boards],
                                           dtype=np.int8)
        afters = np.array([slide(int(board), int(action), size, *tables)[0]
                           for board, action in zip(boards, actions, strict=True) if action >= 0], dtype=np.int64)
        for exponent, step in ((1, 2), (2, 4)):
            grown = np.unique(children(np.unique(afters), size, exponent))
            if grown.size:
                pending.setdefault(total + step, []).append(grown)
    return layers, chosen


def policy_action(board: int, size: int, goal: int, tables: tuple, act: Callable) -> int:
    """The policy's slide on a packed board (-1 when the game is over)."""
    legal = [action for action in range(4) if slide(board, action, size, *tables)[0] != board]
    if not legal or max_exponent(board, size) >= goal:
        return -1
    action = act(unpack(board, size), legal)
    if action not in legal:
        raise ValueError(f"the policy chose {action}, not a legal slide of {unpack(board, size)}")
    return int(action)


@cache
def optimum(size: int, goal: int) -> float:
    """The optimal expected score from the start (cached per board size and goal exponent)."""
    layers, _ = reachable_layers(size, goal)
    return start_value(size, layers, solve(size, layers, SCORE, goal=goal))


def agent_report(size: int, goal: int, agent: Any) -> dict[str, float]:
    """An agent's exact expected score (`agent.act(board, legal)` in every board it reaches) and its gap."""
    layers, actions = policy_layers(size, goal, agent.act)
    score = start_value(size, layers, solve(size, layers, POLICY, goal=goal, policy=actions))
    best = optimum(size, goal)
    return {"expected_score": score, "optimum": best, "gap": best - score}
