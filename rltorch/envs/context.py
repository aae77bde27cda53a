"""One env's capabilities (`rltorch.envs.capabilities`) resolved once: the single dispatcher of a run.

`EnvContext(env, gamma)` builds the env's finite model at most once, solves it at most once per question,
and hands the same answers to training (the `exact/` curves), the grid pictures, the final report, and
`rltorch.external.exact_evaluation`. Each part is resolved when first asked for, so a command that only
draws pictures never builds the exact evaluation's time-limited optimum.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from rltorch.envs.capabilities import (
    CountsReachableKeys,
    Distribution,
    ExactEvaluation,
    ExactPolicyEvaluation,
    HasEvaluationEnv,
    PlaysInTerminal,
    SelfPlay,
)
from rltorch.envs.grid import GridLayout, grid_layout
from rltorch.mdp.evaluation import ModelEvaluation, format_model_report
from rltorch.mdp.from_env import model_of
from rltorch.mdp.model import FiniteModel
from rltorch.mdp.solve import Solution, value_iteration


@dataclass(frozen=True)
class Exact:
    """An exact evaluation of a greedy agent: its scalars, its report and the report's text (q* from a model)."""

    scalars: Callable[[Any], dict[str, float]]
    report: Callable[[Any], dict[str, Any] | None]
    describe: Callable[[dict[str, Any]], str]
    solution: Solution | None = None  # the model's stationary solution, where the evaluation solved one


class EnvContext:
    """What one env offers a run at discount `gamma`, each part resolved at most once."""

    def __init__(self, env: Any, gamma: float) -> None:
        self.env, self.gamma = env, gamma
        self.unwrapped = getattr(env, "unwrapped", env)

    @cached_property
    def model(self) -> FiniteModel | None:
        """The env's validated finite model (its own `model()` or Gymnasium's `P`), or None."""
        return model_of(self.env)

    @cached_property
    def exact(self) -> Exact | None:
        """The env's own exact evaluation, else the generic one of its finite model, else None."""
        own = self.unwrapped
        if isinstance(own, ExactEvaluation):
            return Exact(own.exact_scalars, own.exact_report, own.format_exact_report)
        if self.model is None:
            return None
        evaluation = ModelEvaluation(self.model, self.gamma)
        return Exact(evaluation, evaluation.report, format_model_report, evaluation.solution)

    @cached_property
    def solution(self) -> Solution | None:
        """The model's optimal values and actions at `gamma`: the exact evaluation's when it solved them already."""
        if self.model is None:
            return None
        resolved = self.__dict__.get("exact")
        if resolved is not None and resolved.solution is not None:
            return resolved.solution
        return value_iteration(self.model, self.gamma)

    @cached_property
    def grid(self) -> GridLayout | None:
        """The grid layout for pictures (a `GridWorld`, or Gymnasium's FrozenLake and CliffWalking), or None."""
        return grid_layout(self.env)

    @property
    def policy_evaluation(self) -> Callable[[Distribution], dict[str, Any]] | None:
        """The env's exact evaluation of anyone's policy (`ExactPolicyEvaluation`), or None."""
        own = self.unwrapped
        return own.exact_policy_report if isinstance(own, ExactPolicyEvaluation) else None

    @property
    def evaluation_env(self) -> Callable[[], Any] | None:
        """The env's own maker of the env tests and evaluations play, or None (a copy of this one)."""
        own = self.unwrapped
        return own.evaluation_env if isinstance(own, HasEvaluationEnv) else None

    @property
    def refresh_opponent(self) -> Callable[[Any, Any, int], None] | None:
        """The self-play refresh `(value_fn, keys, episodes_done)`, or None."""
        own = self.unwrapped
        return own.refresh_opponent if isinstance(own, SelfPlay) else None

    @property
    def reachable_keys(self) -> Callable[[str], int] | None:
        """How many keys of a kind a learner can meet, or None."""
        own = self.unwrapped
        return own.reachable_keys if isinstance(own, CountsReachableKeys) else None

    @property
    def terminal_game(self) -> Callable[..., None] | None:
        """The game a person plays against an agent in the terminal, or None."""
        own = self.unwrapped
        return own.play_in_terminal if isinstance(own, PlaysInTerminal) else None
