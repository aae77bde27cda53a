"""The fast form of TD-afterstate learning on 2048: the compiled game loop fed by a numpy generator.

`CompiledAfterstateLearner` plays and learns whole games in `rltorch.envs.game2048.fast.play`, drawing its
uniforms in chunks from `numpy.random.default_rng(seed)`, the generator `env.reset(seed=seed)` gives a
Gymnasium env. It skips the four draws of the reset a per-step trainer makes when it is built, so fed the
same seed it plays the games `QLearningTrainer` plays on `rltorch/2048-v0` with `(afterstate, reward)` keys
and the same network (a test checks weights and scores). Its state (the generator's, the unused draws, a
game under way) is data, so a run resumes bit for bit.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from rltorch.envs.game2048.fast import RESULT_COLUMNS, STATE_SIZE, play
from rltorch.envs.game2048.rules import line_tables
from rltorch.values.ntuple import NTupleNetwork

CHUNK = 1 << 16  # uniforms drawn at a time
RESET_DRAWS = 4


class CompiledAfterstateLearner:
    """TD-afterstate learning (or greedy play) of an `NTupleNetwork` on the board of its size, game by game."""

    def __init__(self, network: NTupleNetwork, gamma: float = 1.0, seed: int = 0, skip_reset: bool = True) -> None:
        if not 0.0 <= gamma <= 1.0:
            raise ValueError(f"gamma must be in [0, 1], got {gamma}")
        self.network, self.gamma, self.seed = network, float(gamma), seed
        self.rng = np.random.default_rng(seed)
        self.uniforms = self.rng.random(RESET_DRAWS)[RESET_DRAWS:] if skip_reset else np.empty(0)
        self.state = np.zeros(STATE_SIZE, dtype=np.int64)
        self.games_done = 0

    def run(self, games: int, learn: bool = True) -> np.ndarray:
        """Play `games` games (learning from them when `learn`); one row per game (see `fast.RESULT_*`)."""
        results = np.zeros((games, RESULT_COLUMNS), dtype=np.float64)
        tables = line_tables(self.network.size)
        weights, cells, lengths, offsets = self.network.kernel_arguments()
        done = 0
        while done < games:
            if self.uniforms.shape[0] < CHUNK:
                self.uniforms = np.concatenate([self.uniforms, self.rng.random(CHUNK)])
            position, ended = play(self.state, self.uniforms, 0, games - done, results[done:], self.network.size,
                                   tables, weights, cells, lengths, offsets, self.network.step, self.gamma, learn)
            self.uniforms = self.uniforms[position:]
            done += ended
        self.games_done += games
        return results

    def state_dict(self) -> dict[str, Any]:
        """Everything but the network needed to go on exactly, as data."""
        generator = self.rng.bit_generator.state
        return {"seed": self.seed, "gamma": self.gamma, "games_done": self.games_done,
                "state": torch.from_numpy(self.state.copy()), "uniforms": torch.from_numpy(self.uniforms.copy()),
                "generator": {"state": str(generator["state"]["state"]), "inc": str(generator["state"]["inc"]),
                              "has_uint32": int(generator["has_uint32"]), "uinteger": int(generator["uinteger"])}}

    def load_state_dict(self, data: dict[str, Any]) -> None:
        """Put back what `state_dict()` returned."""
        self.seed, self.gamma, self.games_done = int(data["seed"]), float(data["gamma"]), int(data["games_done"])
        self.state = data["state"].numpy().astype(np.int64).copy()
        self.uniforms = data["uniforms"].numpy().astype(np.float64).copy()
        saved = data["generator"]
        self.rng = np.random.default_rng()
        self.rng.bit_generator.state = {"bit_generator": "PCG64",
                                        "state": {"state": int(saved["state"]), "inc": int(saved["inc"])},
                                        "has_uint32": int(saved["has_uint32"]), "uinteger": int(saved["uinteger"])}


def greedy_games(network: NTupleNetwork, games: int, seed: int) -> np.ndarray:
    """`games` greedy games of the network from `seed` (no learning): one row per game (see `fast.RESULT_*`)."""
    return CompiledAfterstateLearner(network, seed=seed, skip_reset=False).run(games, learn=False)
