"""What every run of a `--runs` run (or a sweep's setting) shares, checked once: the env, its model, the engine.

Refused in one line, before any file is made: an algorithm without a fast form, `--device cuda` (the
engine is numba on the CPU; there is no GPU form, on purpose: one fast form per algorithm), a network or
afterstate values, and an env without a finite model. The model is the env's own (`model()`, or a
toy-text `P`), or for rltorch's games the one their package builds: infinite-deck blackjack under the
env's rules, and tic-tac-toe in a fixed seat against a fixed opponent (not self-play).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rltorch.engines import ALGORITHMS, BatchedEngine, time_limit_of
from rltorch.envs.context import EnvContext
from rltorch.errors import RLTorchError
from rltorch.mdp.model import FiniteModel
from rltorch.policies import Schedule, make_schedule
from rltorch.run.config import RunConfig
from rltorch.run.envs import make_env


@dataclass
class RunsSetup:
    """One setting's algorithm, step size, schedule, discount and n, and the env's model, time limit and engine."""

    algorithm: str
    env_id: str
    env: Any
    model: FiniteModel
    engine: BatchedEngine
    time_limit: int | None
    schedule: Schedule
    alpha: float
    gamma: float
    n: int
    seed: int

    @classmethod
    def build(cls, config: RunConfig) -> RunsSetup:
        """The setup `config` describes (see module for what is refused)."""
        algorithm, env_id = config.algo, config.env
        check_fast_form(algorithm, config)
        env = make_env(env_id, config.env_options)
        model = finite_model(env)
        if model is None:
            raise RLTorchError(f"env {env_id} has no finite model (a model() method or a toy-text P table; blackjack "
                               "from a finite shoe and tic-tac-toe in self-play or in both seats have none): --runs "
                               "and --sweep run on the model; train its seeds one at a time with --seed")
        try:
            schedule = make_schedule(config.epsilon_schedule, config.epsilon_start, config.epsilon_final,
                                     config.epsilon_decay)
        except ValueError as error:
            raise RLTorchError(str(error)) from None
        return cls(algorithm, env_id, env, model, BatchedEngine(model, threads=config.threads), time_limit_of(env),
                   schedule, config.alpha, config.gamma, config.algo_options.get("n", 1), config.seed)

    @property
    def table_shape(self) -> tuple[int, int, int]:
        """(tables, S, A) of one run."""
        return ALGORITHMS[self.algorithm].tables, *self.engine.arrays.legal.shape

    @property
    def label(self) -> str:
        """The env's short name for run folders."""
        return self.env_id.rpartition(":")[2].rpartition("/")[2]

    def config(self, runs: int) -> dict[str, Any]:
        """The settings that describe the runs (the checkpoint's `config`)."""
        spec = self.env.spec
        return {"algorithm": self.algorithm, "env_id": self.env_id,
                "env_kwargs": dict(spec.kwargs) if spec is not None else {},
                "runs": runs, "seed": self.seed, "alpha": self.alpha, "gamma": self.gamma, "n": self.n,
                "schedule": repr(self.schedule), "time_limit": self.time_limit, "keys": "q",
                "seeds": "run i draws from numpy.random.SeedSequence(seed, spawn_key=(i,)) (rltorch.engines.draws)"}


def finite_model(env: Any) -> FiniteModel | None:
    """The model the runs play on: the env's own, else its game's (see module), else None."""
    return EnvContext(env, 1.0).model or game_model(env)


def game_model(env: Any) -> FiniteModel | None:
    """Blackjack's (infinite deck) or tic-tac-toe's (one seat, a fixed opponent) model for `env`, else None."""
    from rltorch.envs.blackjack.env import BlackjackEnv
    from rltorch.envs.blackjack.model import blackjack_model
    from rltorch.envs.blackjack.solver import Rules
    from rltorch.envs.tictactoe.env import TicTacToeEnv
    from rltorch.envs.tictactoe.model import tictactoe_model

    own = env.unwrapped
    if isinstance(own, BlackjackEnv) and own.exact_oracle() is not None:
        return blackjack_model(Rules(own.dealer_hits_soft_17, own.natural, own.natural_payout,
                                     own.player_draws_below_12))
    kwargs = dict(env.spec.kwargs) if env.spec is not None else {}
    opponent = kwargs.get("opponent", "random")
    if isinstance(own, TicTacToeEnv) and own.seat in ("X", "O") and not own.self_play and isinstance(opponent, str):
        try:
            return tictactoe_model(own.seat, opponent, smart_p=kwargs.get("smart_p", 0.8))
        except RLTorchError:
            return None
    return None


def check_fast_form(algorithm: str, config: RunConfig) -> None:
    """RLTorchError unless `algorithm` has a fast form and the options fit the engine."""
    if algorithm not in ALGORITHMS:
        raise RLTorchError(f"--runs and --sweep need an algorithm with a fast form ({', '.join(ALGORITHMS)}); "
                           f"{algorithm} has none: train its seeds one at a time with --seed")
    if str(config.settings.get("device", "cpu")).startswith("cuda"):
        raise RLTorchError("--runs and --sweep run on the CPU (numba); the engine has no GPU form (one fast form "
                           "per algorithm): drop --device cuda")
    if config.value_fn != "table" or config.values != "q":
        raise RLTorchError("--runs and --sweep learn (state, action) tables: drop --value-fn mlp and "
                           "--values afterstate")
