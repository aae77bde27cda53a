"""Monte Carlo on blackjack (Sutton & Barto, chapter 5): the book's policies, exact figures, and ready trainers.

`make_trainer(method, ...)` builds the trainer of one experiment on rltorch's `BlackjackEnv` (or any
env with the same observations, such as Gymnasium's `Blackjack-v1`), with the exact oracle of
`rltorch.envs.blackjack.solver` wired in as the evaluation hook, so TensorBoard shows `exact/rms_error`,
`exact/policy_agreement` and `exact/expected_return` while it learns.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

import gymnasium as gym

from rltorch.envs.blackjack.env import BlackjackEnv
from rltorch.envs.blackjack.evaluation import ExactBlackjack, StickAtLeast
from rltorch.envs.blackjack.solver import BOOK_RULES, Rules, states
from rltorch.policies import ConstantSchedule, Schedule
from rltorch.run.output import refuse_to_run
from rltorch.trainers.mc import MCExploringStarts, MCPrediction, MCTrainer, MonteCarloTrainer
from rltorch.trainers.offpolicy import OffPolicyMCControl, OffPolicyMCPrediction
from rltorch.values import QTable, VTable
from rltorch.values.weighted import WeightedQTable, WeightedVTable

METHODS = ("prediction", "es", "on-policy", "off-policy-prediction", "off-policy-control")
BOOK_START_STATE = (13, 2, 1)  # Figure 5.3: a usable ace and 13 against a dealer 2
BOOK_START_VALUE = -0.27726  # the book's estimate of its value under stick-on-20


def make_trainer(
    method: str,
    *,
    env: gym.Env | None = None,
    rules: Rules = BOOK_RULES,
    seed: int = 0,
    first_visit: bool = True,
    threshold: int = 20,
    weighted: bool = True,
    schedule: Schedule | None = None,
    start_state: Hashable | None = None,
    logger: Any = None,
) -> MonteCarloTrainer:
    """The trainer of one of METHODS on blackjack (gamma 1, sample averages), with exact evaluation.

    `schedule` is the epsilon of on-policy control (default constant 0.1) and of off-policy
    control's behaviour (default 1: uniformly random). `start_state` starts every episode there
    (off-policy prediction of Figure 5.3 uses `BOOK_START_STATE`); `threshold` sets the
    stick-on policy that prediction evaluates.
    """
    if method not in METHODS:
        raise ValueError(f"unknown method {method!r}; choose one of {', '.join(METHODS)}")
    env = env if env is not None else BlackjackEnv()
    policy = StickAtLeast(threshold)
    predicting = method in ("prediction", "off-policy-prediction")
    start_states = [start_state] if start_state is not None else None
    common = {
        "gamma": 1.0,
        "seed": seed,
        "logger": logger,
        "exact_eval": ExactBlackjack(rules, policy if predicting else None, start_state=start_state),
    }
    if method == "prediction":
        return MCPrediction(env, VTable(alpha=None), first_visit=first_visit, policy=policy,
                         start_states=start_states, schedule=ConstantSchedule(0.0), **common)
    if method == "es":
        return MCExploringStarts(env, QTable(alpha=None), first_visit=first_visit,
                         start_states=start_states or states(), schedule=ConstantSchedule(0.0), **common)
    if method == "on-policy":
        return MCTrainer(env, QTable(alpha=None), first_visit=first_visit, start_states=start_states,
                         schedule=schedule or ConstantSchedule(0.1), **common)
    if method == "off-policy-prediction":
        table = WeightedVTable() if weighted else VTable(alpha=None)
        return OffPolicyMCPrediction(env, table, target_policy=policy, weighted=weighted, start_states=start_states,
                                  schedule=ConstantSchedule(1.0), **common)
    return OffPolicyMCControl(env, WeightedQTable(), start_states=start_states,
                              schedule=schedule or ConstantSchedule(1.0), **common)


if __name__ == "__main__":
    refuse_to_run(__file__, "blackjack_mc.py (and blackjack_figures.py)", "trainers/chapter5/blackjack_mc.py")
