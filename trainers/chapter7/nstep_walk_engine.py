"""n-step TD prediction on the random walk, many runs and step sizes at once (numpy), for Figure 7.2.

The walk's policy does not depend on the values, so each run's episodes are recorded once, by stepping
`rltorch/RandomWalk19-v0` seeded exactly as a trainer seeds it (`env.reset(seed=seed)`, then `reset()` per
episode), and every (n, alpha) replays them. The updates are `NStepTDPrediction`'s, in its order: after
each time step the key of time tau = t - n + 1 moves toward G = R_T when tau + n >= T, else V(S_{tau+n})
as it is at that moment; with gamma 1 and a reward only on the last step that is the whole n-step
return. `V += alpha * (G - V)` is the table's float arithmetic, so a run replayed here ends with exactly
the values of `NStepTDPrediction` on the same seed (`check_against_trainer`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import gymnasium as gym
import numpy as np

from rltorch.envs.random_walk import ENV_ID_19
from rltorch.run.output import refuse_to_run
from rltorch.trainers import NStepTDPrediction
from rltorch.values import VTable

WALK = 0  # the walk's only action


@dataclass
class Episodes:
    """One episode index of every run, padded: states[r, t] for t <= T_r (S_T terminal), lengths T_r, final rewards."""

    states: np.ndarray
    lengths: np.ndarray
    final_rewards: np.ndarray


def walk_policy(state: int) -> int:
    """The random walk's policy: its one action."""
    return WALK


def make_env() -> gym.Env:
    """The 19-state walk of chapter 7 (rewards -1 and +1 at the ends)."""
    return gym.make(ENV_ID_19, disable_env_checker=True)


def record_run(seed: int, episodes: int) -> list[tuple[list[int], float]]:
    """The states (start to terminal) and last reward of each episode of a run, as a trainer seeded `seed` sees them."""
    env = make_env()
    env.reset(seed=seed)
    recorded = []
    for _ in range(episodes):
        state, _ = env.reset()
        states, reward, terminated = [state], 0.0, False
        while not terminated:
            state, reward, terminated, truncated, _ = env.step(WALK)
            states.append(state)
            if not terminated and reward != 0.0:
                raise ValueError("the replay assumes a reward only on the last step")
        recorded.append((states, reward))
    return recorded


def stack(runs: Sequence[list[tuple[list[int], float]]], episodes: int) -> list[Episodes]:
    """Per episode index, every run's episode padded into arrays."""
    stacked = []
    for episode in range(episodes):
        walks = [run[episode] for run in runs]
        lengths = np.array([len(states) - 1 for states, _ in walks])
        padded = np.zeros((len(walks), lengths.max() + 1), dtype=np.int64)
        for row, (states, _) in enumerate(walks):
            padded[row, :len(states)] = states
        stacked.append(Episodes(padded, lengths, np.array([reward for _, reward in walks])))
    return stacked


def replay(episodes: Sequence[Episodes], n: int, alphas: np.ndarray, truth: np.ndarray, initial: float = 0.0,
           ) -> tuple[np.ndarray, np.ndarray]:
    """n-step TD over the recorded episodes for every alpha and run at once.

    Returns the values V[alpha, run, state] at the end (states 0..n_states + 1, the ends unused) and the RMS
    error over the non-terminal states after each episode, [episode, alpha, run].
    """
    runs, n_states = len(episodes[0].lengths), len(truth)
    values = np.full((len(alphas), runs, n_states + 2), float(initial))
    step = np.asarray(alphas, dtype=np.float64)[:, None]
    errors = []
    for episode in episodes:
        for tau in range(int(episode.lengths.max())):
            active = np.flatnonzero(tau < episode.lengths)
            horizon = tau + n
            bootstraps = horizon < episode.lengths[active]
            ends = episode.states[active, np.minimum(horizon, episode.lengths[active])]
            targets = np.where(bootstraps, values[:, active, ends], episode.final_rewards[active])
            updated = episode.states[active, tau]
            old = values[:, active, updated]
            values[:, active, updated] = old + step * (targets - old)
        errors.append(np.sqrt(np.mean((values[:, :, 1:n_states + 1] - truth) ** 2, axis=-1)))
    return values, np.array(errors)


def replay_runs(seeds: Sequence[int], episodes: int, ns: Sequence[int], alphas: np.ndarray, truth: np.ndarray,
                ) -> list[tuple[list[np.ndarray], list[np.ndarray]]]:
    """Record the runs of `seeds` and replay them for every n at once; per run (its lane, which no other run touches):
    the final values V[alpha, state] and the RMS errors [episode, alpha], each a list over `ns`."""
    walks = stack([record_run(seed, episodes) for seed in seeds], episodes)
    replays = [replay(walks, n, alphas, truth) for n in ns]
    return [([values[:, lane] for values, _ in replays], [errors[:, :, lane] for _, errors in replays])
            for lane in range(len(seeds))]


def join_runs(runs: Sequence[tuple[list[np.ndarray], list[np.ndarray]]], index: int) -> tuple[np.ndarray, np.ndarray]:
    """The `index`-th n's lanes of `replay_runs` results put back together: `replay`'s values and errors of all runs."""
    values = np.stack([run[0][index] for run in runs], axis=1)  # [alpha, run, state]
    errors = np.stack([run[1][index] for run in runs], axis=2)  # [episode, alpha, run], laid out as `replay`'s
    return values, errors


def check_against_trainer(seed: int, episodes: int, n: int, alpha: float, replayed: np.ndarray) -> float:
    """The largest difference between `replayed` (one run's final values) and `NStepTDPrediction`'s on that seed."""
    trainer = NStepTDPrediction(make_env(), VTable(alpha=alpha), gamma=1.0, policy=walk_policy, seed=seed, n=n)
    for _ in range(episodes):
        trainer.run_episode(0.0)
    states = list(range(1, len(replayed) - 1))
    return float(np.max(np.abs(np.array(trainer.value_fn.values(states)) - replayed[1:-1])))


if __name__ == "__main__":
    refuse_to_run(__file__, "nstep_random_walk.py", "trainers/chapter7/nstep_random_walk.py")
