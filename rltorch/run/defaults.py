"""Default hyperparameters of `rltorch train` for each registered env (as RL Baselines3 Zoo keeps one file per env).

The parser's own defaults are the tic-tac-toe course's (100,000 episodes, gamma 0.9, epsilon decaying
from 1 over 10,000 episodes). Every other env gets a few overrides chosen by Sutton & Barto's
reasoning rather than tuned against its exact evaluation:

- an episodic task whose return is undiscounted learns with gamma 1, unless it has a time limit and
  rewards only at the goal (FrozenLake): there gamma = 1 - 1/T for a limit of T steps makes a
  shorter way worth something (at gamma 1 a step in place costs nothing and the greedy policy
  dithers until the limit); the Dyna maze keeps the book's 0.95 for the same reason;
- epsilon starts at the book's 0.1 (a world whose rewards are -1 a step explores by itself, as its
  zero-initialised values are optimistic) and falls in a line to 0.01 over 80% of the run, so
  on-policy learners end near the greedy path and never stop exploring on an env without a time limit;
- alpha as large as is stable: 0.5 on deterministic worlds (the book's), smaller where the
  transitions or rewards are noisy;
- episodes enough for the greedy policy to settle; evaluations few (each draws the grid pictures)
  and short on deterministic worlds, where every greedy episode is the same.
"""

from __future__ import annotations

from typing import Any

# the parser's defaults: the tic-tac-toe course
COURSE: dict[str, Any] = {}


def _schedule(episodes: int, start: float = 0.1, final: float = 0.0) -> dict[str, Any]:
    """Epsilon falling in a line from `start` to `final` over the first 80% of `episodes`."""
    return {"epsilon_schedule": "linear", "epsilon_start": start, "epsilon_final": final,
            "epsilon_decay": float(int(0.8 * episodes))}


def _run(episodes: int, evaluations: int, eval_games: int, test_games: int) -> dict[str, Any]:
    """The run length, `evaluations` evenly spaced evaluations of `eval_games` episodes, a `test_games` test."""
    return {"episodes": episodes, "log_every": max(1, episodes // 100), "eval_every": episodes // evaluations,
            "eval_games": eval_games, "test_games": test_games}


def _deterministic_world(episodes: int, alpha: float = 0.5, gamma: float = 1.0) -> dict[str, Any]:
    """A deterministic world without a time limit: the book's alpha 0.5, gamma 1, one greedy episode is enough."""
    return {"gamma": gamma, "alpha": alpha, **_schedule(episodes), **_run(episodes, 5, 10, 10)}


_FROZEN_LAKE = {"alpha": 0.05, "epsilon_schedule": "constant", "epsilon_start": 0.1}
_TAXI = {"gamma": 1.0, "alpha": 0.5, **_schedule(10_000, start=1.0), **_run(10_000, 5, 500, 1000)}

ENV_DEFAULTS: dict[str, dict[str, Any]] = {
    "rltorch/TicTacToe-v0": COURSE,
    # chapter 5: undiscounted, noisy returns (+-1 a hand): a small step and many hands
    "rltorch/Blackjack-v0": {"gamma": 1.0, "alpha": 0.01, **_schedule(500_000), **_run(500_000, 10, 10_000, 10_000)},
    # Gymnasium toy text: slippery ice, a reward only at the goal, cut at 100 (200) steps
    "FrozenLake-v1": {"gamma": 0.99, **_FROZEN_LAKE, **_run(20_000, 5, 500, 1000)},
    "FrozenLake8x8-v1": {"gamma": 0.995, **_FROZEN_LAKE, **_run(50_000, 5, 500, 1000)},
    # Example 6.6: -1 a step, -100 and back to the start for the cliff, no time limit
    "CliffWalking-v1": _deterministic_world(500),
    # deterministic moves from one of 300 random starts, -1 a step, cut at 200 steps: explore widely, then less
    "Taxi-v3": _TAXI,
    "Taxi-v4": _TAXI,
    # Example 6.2 / 7.1: prediction (one action), undiscounted; the book's TD(0) step
    "rltorch/RandomWalk-v0": {"gamma": 1.0, "alpha": 0.1, **_run(100, 5, 100, 100)},
    "rltorch/RandomWalk19-v0": {"gamma": 1.0, "alpha": 0.1, **_run(100, 5, 100, 100)},
    "rltorch/RandomWalk1000-v0": {"gamma": 1.0, "alpha": 2e-5, **_run(1000, 5, 100, 100)},
    # Example 6.5 and Exercises 6.9-6.10: -1 a step, no time limit
    "rltorch/WindyGridworld-v0": _deterministic_world(500),
    "rltorch/WindyGridworldKings-v0": _deterministic_world(500),
    "rltorch/WindyGridworldStochastic-v0": {"gamma": 1.0, "alpha": 0.05, **_schedule(20_000),
                                            **_run(20_000, 5, 100, 1000)},
    # Example 6.7: the book's alpha 0.1, epsilon 0.1, 300 episodes (Q-learning's bias shows early on)
    "rltorch/MaximizationBias-v0": {"gamma": 1.0, "alpha": 0.1, "epsilon_schedule": "constant",
                                    "epsilon_start": 0.1, **_run(300, 5, 100, 100)},
    # Example 8.1: +1 at the goal only, the book's gamma 0.95 (a shorter way is worth more)
    "rltorch/DynaMaze-v0": _deterministic_world(300, gamma=0.95),
    # Example 10.1 / Figure 10.2: tile coding (8 tilings, the book's alpha 0.5/8), epsilon 0 (the zero weights are
    # optimistic), gamma 1 and the book's task, which has no time limit (Gymnasium cuts it at 200 steps)
    "MountainCar-v0": {"gamma": 1.0, "alpha": 0.5, "value_fn": "tiles", "epsilon_schedule": "constant",
                       "epsilon_start": 0.0, "max_episode_steps": 0, **_run(500, 5, 10, 10)},
    # 2048: undiscounted scores, greedy moves (the new tiles explore), afterstate keys (Szubert & Jaskowski 2014)
    "rltorch/2048-v0": {"gamma": 1.0, "values": "afterstate", "epsilon_schedule": "constant", "epsilon_start": 0.0,
                        **_run(1000, 5, 20, 100)},
}

# Monte Carlo changes nothing within an episode: on a world without a time limit its greedy policy can
# walk in a circle for ever, so its episodes are cut (the book's remedy) and it steps more gently
_MC_NO_LIMIT = {"env_option": [("max_episode_steps", 1000)], "alpha": 0.1, **_schedule(2000, final=0.01),
                **_run(2000, 5, 10, 10)}


def _slippery(nstep_alpha: float) -> dict[str, dict[str, Any]]:
    """The algorithms that need their own step on slippery ice.

    Dyna-Q's model keeps the last outcome of each move, so planning needs a small step; n-step returns
    add n noisy rewards, so a smaller step too (the book's Figure 7.2: the best alpha falls as n grows),
    the smaller the longer the episodes; Monte Carlo's returns are noisy, so it averages them.
    """
    nstep = {"alpha": nstep_alpha}
    return {"dyna-q": {"alpha": 0.01}, "nstep-sarsa": nstep, "nstep-expected-sarsa": nstep,
            "mc": {"sample_average": True}, "mc-es": {"sample_average": True}}


# where one algorithm needs more than its env's defaults
ALGORITHM_DEFAULTS: dict[str, dict[str, dict[str, Any]]] = {
    "FrozenLake-v1": _slippery(nstep_alpha=0.02),
    "FrozenLake8x8-v1": _slippery(nstep_alpha=0.01),
    # Monte Carlo's returns on Taxi swing by -10 an illegal move: a smaller step, and it keeps exploring a little
    **{env_id: {"mc": {"alpha": 0.1, "epsilon_final": 0.05}} for env_id in ("Taxi-v3", "Taxi-v4")},
    **{env_id: {"mc": _MC_NO_LIMIT, "mc-es": _MC_NO_LIMIT, "mc-offpolicy": _MC_NO_LIMIT}
       for env_id in ("CliffWalking-v1", "rltorch/WindyGridworld-v0", "rltorch/WindyGridworldKings-v0",
                      "rltorch/WindyGridworldStochastic-v0", "rltorch/DynaMaze-v0")},
}


def env_defaults(env_id: str, algorithm: str | None) -> dict[str, Any]:
    """Argparse dest -> default for `rltorch train` on `env_id` (with `algorithm`, where it matters); {} if unknown."""
    plain = env_id.rpartition(":")[2]
    overrides = dict(ENV_DEFAULTS.get(plain, {}))
    overrides.update(ALGORITHM_DEFAULTS.get(plain, {}).get(algorithm or "", {}))
    return overrides
