"""The batched Mountain Car engine against the per-step trainers on Gymnasium's MountainCar-v0, fed the same draws.

Lane i of the engine draws from run i's stream (`rltorch.engines.uniforms`). The per-step trainer gets the
same numbers: its generator's `random()` is the next number and `randrange(n)` is floor(u * n) of the next,
and the env's start position is numpy's low + (high - low) * u of the next. Both must end with the same
weights (float64, compared exactly) and the same episode lengths, having used the same number of draws.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

from rltorch.engines import uniforms
from rltorch.policies import ConstantSchedule
from rltorch.run.envs import make_env
from rltorch.trainers import NStepSARSATrainer, SARSALambdaTrainer, SARSATrainer, TrueOnlineSARSALambdaTrainer
from rltorch.values.linear import LinearValueFunction
from tests.helpers import RecordedRandom, Stream
from trainers.chapter10.engine import ACTIONS, CODES, Lanes, Settings, book_coder

SEED = 5


class RecordedGenerator:
    """The env's `np_random`: `uniform(low, high)` is numpy's low + (high - low) * u of the stream's next number."""

    def __init__(self, stream: Stream) -> None:
        self.stream = stream

    def uniform(self, low: float, high: float) -> float:
        return low + (high - low) * self.stream.next()


def per_step(algorithm: str, settings: Settings, episodes: int, run: int) -> tuple[np.ndarray, list[int], int]:
    """The per-step trainer fed run `run`'s stream: its weights, episode lengths and draws used."""
    stream = Stream(uniforms(SEED, run, 200_000))
    env = make_env("MountainCar-v0", {"max_episode_steps": settings.limit})
    value_fn = LinearValueFunction(book_coder(), settings.alpha, ACTIONS)
    kwargs = {"n": settings.n} if algorithm == "nstep-sarsa" else {}
    if algorithm.startswith("sarsa-lambda"):
        kwargs = {"lam": settings.lam, "trace": algorithm.rpartition("-")[2]}
    if algorithm == "true-online-sarsa-lambda":
        kwargs = {"lam": settings.lam}
    cls = {"sarsa": SARSATrainer, "nstep-sarsa": NStepSARSATrainer, "true-online-sarsa-lambda":
           TrueOnlineSARSALambdaTrainer}.get(algorithm, SARSALambdaTrainer)
    trainer = cls(env, value_fn, gamma=settings.gamma, schedule=ConstantSchedule(settings.epsilon), seed=0, **kwargs)
    trainer.rng = RecordedRandom(stream)
    env.unwrapped.np_random = RecordedGenerator(stream)
    lengths = []
    for _ in range(episodes):
        before = trainer.steps_done
        trainer.run_episode(settings.epsilon)
        lengths.append(trainer.steps_done - before)
    return value_fn.weights.reshape(-1).numpy(), lengths, stream.position


CASES = [  # algorithm, epsilon, n, lambda, episode cap (0: none), episodes
    ("sarsa", 0.0, 1, 0.0, 0, 1),
    ("nstep-sarsa", 0.1, 4, 0.0, 150, 3),
    ("sarsa-lambda-accumulating", 0.0, 1, 0.9, 400, 2),
    ("sarsa-lambda-replacing", 0.1, 1, 0.9, 200, 3),
    ("sarsa-lambda-clearing", 0.1, 1, 0.9, 200, 3),
    ("true-online-sarsa-lambda", 0.0, 1, 0.9, 400, 2),
]


@pytest.mark.parametrize(("algorithm", "epsilon", "n", "lam", "limit", "episodes"), CASES)
def test_a_lane_is_the_per_step_trainer(algorithm: str, epsilon: float, n: int, lam: float, limit: int,
                                        episodes: int) -> None:
    settings = Settings(CODES[algorithm], 0.5 / 8, epsilon, 1.0, lam, n, limit)
    lanes = Lanes(SEED, [0, 1], book_coder(), settings)
    lengths = lanes.play(episodes)
    for run in (0, 1):
        weights, trainer_lengths, used = per_step(algorithm, settings, episodes, run)
        assert lengths[run].tolist() == trainer_lengths
        assert np.array_equal(lanes.weights[run], weights)
        assert int(lanes.streams[run, 2]) == used
    if limit:
        assert lengths.max() <= limit


def test_book_coder_lays_out_the_books_tiles() -> None:
    coder = book_coder()
    assert coder.size == 8 * 9 * 11  # 9 x 11 tiles per tiling: offsets of up to 7/8 and 21/8 tiles
    # the bottom-left corner is tile (0, 0) of tiling 0; tiling i starts i * 99 further on
    corner = coder.active(torch.tensor([[-1.2, -0.07]], dtype=torch.float64))[0]
    assert corner.tolist() == [99 * i + (3 * i) // 8 for i in range(8)]  # position tile 0, velocity (3i) // 8
