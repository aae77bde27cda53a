"""The book environments of Sutton & Barto chapters 6-8: rules worked by hand, exact models, and the env checker."""

import random
import re
import warnings
from collections import Counter, deque

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from rltorch.envs import dyna_maze, max_bias, random_walk, windy_gridworld
from rltorch.envs.dyna_maze import DynaMazeEnv
from rltorch.envs.dyna_maze import env as maze
from rltorch.envs.max_bias import LEFT, RIGHT, STATE_A, STATE_B, TERMINAL, MaximizationBiasEnv
from rltorch.envs.random_walk import RandomWalkEnv
from rltorch.envs.windy_gridworld import WindyGridworldEnv
from rltorch.envs.windy_gridworld import env as windy
from rltorch.mdp import deterministic_policy, evaluate_policy, model_of, value_iteration
from tests.helpers import without_mask

REGISTRATIONS = (*random_walk.REGISTRATIONS, *windy_gridworld.REGISTRATIONS, *max_bias.REGISTRATIONS,
                 *dyna_maze.REGISTRATIONS)
IDS = [env_id for env_id, _, _ in REGISTRATIONS]
STOCHASTIC_IDS = ["rltorch/RandomWalk-v0", "rltorch/RandomWalk19-v0", "rltorch/WindyGridworldStochastic-v0",
                  "rltorch/MaximizationBias-v0"]
DETERMINISTIC_IDS = ["rltorch/WindyGridworld-v0", "rltorch/WindyGridworldKings-v0", "rltorch/DynaMaze-v0"]


@pytest.fixture(scope="module", autouse=True)
def registered():
    for env_id, entry_point, kwargs in REGISTRATIONS:
        if env_id not in gym.registry:
            gym.register(id=env_id, entry_point=entry_point, kwargs=kwargs or {})


def make(env_id):
    return gym.make(env_id).unwrapped


def linear_values(model, action=0):
    """Solve v = r + P v (gamma 1) with numpy for the policy that always takes `action`."""
    n = len(model.states)
    p, r = np.zeros((n, n)), np.zeros(n)
    for i, state in enumerate(model.states):
        for t in model.transitions[(state, action)]:
            r[i] += t.probability * t.reward
            if not t.terminal:
                p[i, model.states.index(t.next_state)] += t.probability
    return np.linalg.solve(np.eye(n) - p, r)


def shortest_path(env, start):
    """Breadth-first search that only steps the env from each cell it reaches: the fewest steps to the end."""
    depth, queue = {start: 0}, deque([start])
    while queue:
        state = queue.popleft()
        for action in range(env.action_space.n):
            nxt, _, terminated, _, _ = step_from(env, state, action)
            if terminated:
                return depth[state] + 1
            if nxt not in depth:
                depth[nxt] = depth[state] + 1
                queue.append(nxt)
    raise AssertionError("no path to the goal")


def step_from(env, state, action):
    """Reset `env` to `state` and take `action`."""
    env.reset(options={"state": state})
    return env.step(action)


def trajectory(env_id, seed, episodes=3):
    """Three episodes of random legal actions (always drawn from the same action seed) after `reset(seed=seed)`."""
    env, rng, steps = make(env_id), random.Random(0), []
    env.reset(seed=seed)
    for _ in range(episodes):
        env.reset()
        terminated = False
        while not terminated and len(steps) < 2000:
            obs, reward, terminated, truncated, _ = env.step(rng.choice(env.legal_actions()))
            steps.append((obs, reward, terminated, truncated))
    return steps


# every env

@pytest.mark.parametrize("env_id", IDS)
def test_check_env_passes_with_no_warnings(env_id):
    env = make(env_id)
    # Only 0 and 1 are legal in the maximization-bias MDP's A: seed the action space so that the checker's
    # first (unseeded) sample is one of them; its own samples are seeded with 123 and give 0, then 6.
    env.action_space.seed(123)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_env(env)


@pytest.mark.parametrize("env_id", IDS)
def test_seeded_runs_repeat_with_plain_observations(env_id):
    first = trajectory(env_id, seed=5)
    assert first == trajectory(env_id, seed=5)
    for obs, _, _, truncated in first:
        assert not truncated and (type(obs) is int or {type(x) for x in obs} == {int}), obs


@pytest.mark.parametrize("env_id", STOCHASTIC_IDS)
def test_the_seed_drives_the_randomness(env_id):
    assert len({tuple(trajectory(env_id, seed)[:40]) for seed in range(6)}) > 1


@pytest.mark.parametrize("env_id", IDS)
def test_the_model_validates_and_matches_the_env_start_and_actions(env_id):
    env = make(env_id)
    model = model_of(gym.make(env_id))
    assert model.horizon is None  # no time limit
    assert model.start == {env.reset(seed=0)[0]: 1.0}
    for state in model.states:
        assert env.reset(options={"state": state})[0] == state
        assert env.legal_actions() == model.actions[state]


@pytest.mark.parametrize("env_id", IDS)
@pytest.mark.parametrize("action", ["0", 0.5, True, None, [0], np.float64(np.nan)])
def test_non_integer_actions_raise_type_error_naming_the_action(env_id, action):
    env = make(env_id)
    env.reset(seed=0)
    with pytest.raises(TypeError, match=re.escape(f"action must be an integer, got {action!r}")):
        env.step(action)


@pytest.mark.parametrize("env_id", IDS)
@pytest.mark.parametrize("action", [0, np.int64(0), 0.0, np.float32(0.0), np.array(0)])
def test_integer_like_actions_are_accepted(env_id, action):
    env = make(env_id)
    env.reset(seed=0)
    assert env.step(action)[0] in env.observation_space


@pytest.mark.parametrize("env_id", IDS)
def test_out_of_range_actions_and_steps_after_the_end_raise_value_error(env_id):
    env = make(env_id)
    with pytest.raises(ValueError, match="episode is over"):
        env.step(0)  # before any reset
    env.reset(seed=0)
    for action in (-1, int(env.action_space.n)):
        with pytest.raises(ValueError, match=f"action {action}"):
            env.step(action)
    rng, terminated = random.Random(0), False
    while not terminated:
        terminated = env.step(rng.choice(env.legal_actions()))[2]
    assert env.legal_actions() == []
    with pytest.raises(ValueError, match="episode is over"):
        env.step(0)


@pytest.mark.parametrize("env_id", IDS)
@pytest.mark.parametrize("options", [{"state": 10_000}, {"state": (99, 0)}, {"state": (0,)}, {"state": "A"},
                                     {"state": -1}, {"seed_state": 1}])
def test_bad_reset_options_raise_value_error_naming_the_option(env_id, options):
    with pytest.raises(ValueError, match=re.escape(next(iter(options)))):
        make(env_id).reset(options=options)


@pytest.mark.parametrize("env_id", DETERMINISTIC_IDS)
def test_deterministic_models_match_the_env_exactly(env_id):
    env = make(env_id)
    model = env.model()
    env.reset(seed=0)
    for (state, action), outcomes in model.transitions.items():
        obs, reward, terminated, _, _ = step_from(env, state, action)
        assert outcomes == [(1.0, obs, reward, terminated)], (state, action)


@pytest.mark.parametrize("env_id, samples", [("rltorch/WindyGridworldStochastic-v0", 60),
                                             ("rltorch/RandomWalk19-v0", 300), ("rltorch/MaximizationBias-v0", 40)])
def test_stochastic_models_match_sampled_frequencies(env_id, samples):
    env = make(env_id)
    env.reset(seed=1)
    for (state, action), outcomes in env.model().transitions.items():
        counts = Counter()
        for _ in range(samples):
            obs, reward, terminated, _, _ = step_from(env, state, action)
            counts[(obs, terminated)] += 1
            if state != STATE_B or env_id != "rltorch/MaximizationBias-v0":  # B's rewards are sampled
                assert (obs, reward, terminated) in [t[1:] for t in outcomes]
        assert set(counts) == {(t.next_state, t.terminal) for t in outcomes}, (state, action)
        for p, nxt, _, terminal in outcomes:
            assert abs(counts[(nxt, terminal)] / samples - p) <= 5 * np.sqrt(p * (1 - p) / samples), (state, action)


# random walk

@pytest.mark.parametrize("env, start, expected", [
    (RandomWalkEnv(), 3, [1 / 6, 2 / 6, 3 / 6, 4 / 6, 5 / 6]),
    (RandomWalkEnv(n_states=19, left_reward=-1.0), 10, [k / 10 for k in range(-9, 10)]),
    (RandomWalkEnv(n_states=7, left_reward=-2.0, right_reward=3.0), 4, [-2 + 5 * s / 8 for s in range(1, 8)]),
])
def test_random_walk_true_values(env, start, expected):
    model = env.model()
    assert model.states == list(range(1, len(expected) + 1)) and env.reset(seed=0)[0] == start
    assert np.allclose(linear_values(model), expected, rtol=0, atol=1e-12)
    solved = evaluate_policy(model, deterministic_policy(dict.fromkeys(model.states, 0)), 1.0)
    assert np.allclose([solved[s] for s in model.states], expected, rtol=0, atol=1e-12)


def test_random_walk_ends_and_coin():
    env, n = make("rltorch/RandomWalk19-v0"), 4000
    env.reset(seed=3)
    ends = Counter()
    for state in (1, 19) * (n // 2):
        ends[step_from(env, state, 0)[:3]] += 1
    assert set(ends) == {(0, -1.0, True), (2, 0.0, False), (20, 1.0, True), (18, 0.0, False)}
    assert abs(ends[(0, -1.0, True)] + ends[(20, 1.0, True)] - n / 2) < 4 * np.sqrt(n / 4)
    with pytest.raises(ValueError, match="odd"):
        RandomWalkEnv(n_states=4)


# windy grid world

@pytest.mark.parametrize("env_class, start, action, expected", [
    (WindyGridworldEnv, (3, 6), windy.RIGHT, (1, 7)),  # column 6 blows 2 up: the column left, not the one entered
    (WindyGridworldEnv, (3, 5), windy.RIGHT, (2, 6)),  # column 5 blows 1 up, although column 6 (entered) blows 2
    (WindyGridworldEnv, (2, 7), windy.LEFT, (0, 6)),  # leaving column 7 (wind 2) to the left
    (WindyGridworldEnv, (2, 9), windy.DOWN, (3, 9)),  # column 9 is calm
    (WindyGridworldEnv, (1, 7), windy.UP, (0, 7)),  # 1 - 1 - 2 = -2 is clipped to the top row
    (WindyGridworldEnv, (0, 6), windy.UP, (0, 6)),  # pushed off the top: stays in row 0
    (WindyGridworldEnv, (6, 4), windy.DOWN, (6, 4)),  # down 1, wind 1 up
    (WindyGridworldEnv, (3, 0), windy.LEFT, (3, 0)),  # the left edge
    (WindyGridworldEnv, (5, 9), windy.RIGHT, (5, 9)),  # the right edge, calm
    (DynaMazeEnv, (2, 1), maze.RIGHT, (2, 1)),  # blocked by the obstacle (2, 2)
    (DynaMazeEnv, (0, 2), maze.DOWN, (0, 2)),  # blocked by (1, 2) below
    (DynaMazeEnv, (5, 5), maze.UP, (5, 5)),  # blocked by (4, 5) above
    (DynaMazeEnv, (4, 2), maze.UP, (4, 2)),  # blocked by (3, 2)
    (DynaMazeEnv, (0, 0), maze.UP, (0, 0)),  # off the top
    (DynaMazeEnv, (5, 8), maze.RIGHT, (5, 8)),  # off the right
    (DynaMazeEnv, (2, 0), maze.UP, (1, 0)),
])
def test_grid_moves_worked_by_hand(env_class, start, action, expected):
    env = env_class()
    env.reset(seed=0)
    reward = -1.0 if env_class is WindyGridworldEnv else 0.0
    assert without_mask(step_from(env, start, action)) == (expected, reward, False, False, {})


def test_windy_kings_moves_stay_and_goal_worked_by_hand():
    env = WindyGridworldEnv(king_moves=True, stay=True)
    assert env.action_space.n == 9 and WindyGridworldEnv(king_moves=True).action_space.n == 8
    env.reset(seed=0)
    assert step_from(env, (4, 6), windy.UP_RIGHT)[0] == (1, 7) and step_from(env, (4, 6), windy.STAY)[0] == (2, 6)
    assert without_mask(step_from(env, (4, 8), windy.LEFT)) == ((3, 7), -1.0, True, False, {})
    with pytest.raises(ValueError, match=r"options\['state'\]"):
        env.reset(options={"state": (3, 7)})  # the goal
    with pytest.raises(ValueError, match="king_moves"):
        WindyGridworldEnv(stay=True)


def test_windy_the_books_path_takes_15_steps():
    env = WindyGridworldEnv()
    env.reset(seed=0)
    steps = [env.step(action) for action in [windy.RIGHT] * 9 + [windy.DOWN] * 4 + [windy.LEFT] * 2]
    assert steps[-1][0] == (3, 7) and steps[-1][2] and sum(step[1] for step in steps) == -15


@pytest.mark.parametrize("kwargs, steps", [
    ({}, 15), ({"king_moves": True}, 7), ({"king_moves": True, "stay": True}, 7),
])
def test_windy_optimal_episode_length(kwargs, steps):
    env = WindyGridworldEnv(**kwargs)
    assert shortest_path(env, (3, 0)) == steps
    assert value_iteration(env.model(), 1.0).v[(3, 0)] == pytest.approx(-steps, abs=1e-9)


def test_windy_stochastic_model_worked_by_hand():
    transitions = WindyGridworldEnv(king_moves=True, stochastic_wind=True).model().transitions
    third = pytest.approx(1 / 3)
    assert sorted(transitions[((3, 6), windy.RIGHT)]) == [(third, (r, 7), -1.0, False) for r in (0, 1, 2)]
    assert sorted(transitions[((4, 7), windy.RIGHT)]) == [(third, (r, 8), -1.0, False) for r in (1, 2, 3)]
    assert transitions[((0, 4), windy.UP)] == [(1.0, (0, 4), -1.0, False)]  # all three pushes clip to row 0
    assert sorted(transitions[((2, 4), windy.UP)]) == [(third, (1, 4), -1.0, False),  # pushes 0, 1, 2: rows 1, 0, -1
                                                       (pytest.approx(2 / 3), (0, 4), -1.0, False)]
    assert transitions[((3, 1), windy.RIGHT)] == [(1.0, (3, 2), -1.0, False)]  # calm columns stay calm
    assert [t for t in transitions[((4, 8), windy.LEFT)] if t.terminal] == [(third, (3, 7), -1.0, True)]


def test_windy_stochastic_env_draws_each_push_a_third_of_the_time():
    env, n = WindyGridworldEnv(king_moves=True, stochastic_wind=True), 6000
    env.reset(seed=11)
    counts = Counter(step_from(env, (3, 6), windy.RIGHT)[0] for _ in range(n))
    assert set(counts) == {(0, 7), (1, 7), (2, 7)}
    assert all(abs(count / n - 1 / 3) < 4 * np.sqrt(2 / 9 / n) for count in counts.values())


# maximization bias

def test_max_bias_moves_worked_by_hand():
    env = MaximizationBiasEnv()
    assert env.reset(seed=0)[0] == STATE_A and env.legal_actions() == [LEFT, RIGHT]
    assert without_mask(env.step(LEFT)) == (STATE_B, 0.0, False, False, {})
    assert env.legal_actions() == list(range(10)) and env.action_space.n == 10
    assert env.step(9)[0] == TERMINAL and env.legal_actions() == []
    env.reset()
    assert without_mask(env.step(RIGHT)) == (TERMINAL, 0.0, True, False, {})
    env.reset()
    with pytest.raises(ValueError, match="not legal in state A"):
        env.step(2)
    assert MaximizationBiasEnv(b_actions=1).action_space.n == 2


def test_max_bias_reward_in_b_is_normal_with_mean_minus_0_1():
    env, n = MaximizationBiasEnv(), 20000
    env.reset(seed=2024)
    rewards = np.array([step_from(env, STATE_B, i % 10)[1] for i in range(n)])
    assert abs(rewards.mean() + 0.1) < 4 / np.sqrt(n)
    assert abs(rewards.std() - 1.0) < 0.03


def test_max_bias_model_has_the_means_and_right_is_optimal():
    model = MaximizationBiasEnv(b_actions=7).model()
    assert model.actions == {STATE_A: [LEFT, RIGHT], STATE_B: list(range(7))}
    assert all(model.transitions[(STATE_B, a)] == [(1.0, TERMINAL, -0.1, True)] for a in range(7))
    solution = value_iteration(model, 1.0)
    assert solution.policy[STATE_A] == RIGHT and solution.v[STATE_A] == 0.0
    assert solution.q[(STATE_A, LEFT)] == pytest.approx(-0.1, abs=1e-12)
    generous = MaximizationBiasEnv(reward_mean=0.25, reward_std=0.0)
    assert value_iteration(generous.model(), 1.0).policy[STATE_A] == LEFT
    generous.reset(seed=0, options={"state": STATE_B})
    assert generous.step(4)[1] == 0.25


# Dyna maze

def test_dyna_maze_goal_pays_one_and_the_shortest_path_is_14():
    env = DynaMazeEnv()
    env.reset(seed=0)
    assert without_mask(step_from(env, (1, 8), maze.UP)) == ((0, 8), 1.0, True, False, {})
    model = env.model()
    assert len(model.states) == 6 * 9 - 7 - 1
    assert shortest_path(env, (2, 0)) == 14
    assert value_iteration(model, 0.95).v[(2, 0)] == pytest.approx(0.95**13, abs=1e-12)  # +1 on the 14th step
    with pytest.raises(ValueError, match=r"options\['state'\]"):
        env.reset(options={"state": (1, 2)})  # an obstacle
