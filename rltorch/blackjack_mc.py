"""Monte Carlo on blackjack (Sutton & Barto, chapter 5): the book's policies, exact figures, and ready trainers.

`make_trainer(method, ...)` builds the trainer of one experiment on rltorch's `BlackjackEnv` (or any
env with the same observations, such as Gymnasium's `Blackjack-v1`), with the exact oracle of
`rltorch.solvers.blackjack` wired in as the evaluation hook, so TensorBoard shows `exact/rms_error`,
`exact/policy_agreement` and `exact/expected_return` while it learns.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping
from dataclasses import dataclass
from typing import Any

import gymnasium as gym

from rltorch.envs.blackjack import HIT, STICK, BlackjackEnv
from rltorch.policies import ConstantSchedule, Schedule
from rltorch.solvers.blackjack import (
    BOOK_RULES,
    Rules,
    expected_return,
    optimal_policy,
    optimal_return,
    policy_value,
    q_star,
    states,
)
from rltorch.trainers.mc import MCTrainer
from rltorch.trainers.offpolicy import OffPolicyMCTrainer
from rltorch.values import QTable, VTable
from rltorch.values.weighted import WeightedQTable, WeightedVTable

METHODS = ("prediction", "es", "on-policy", "off-policy-prediction", "off-policy-control")
ACTIONS = (STICK, HIT)
BOOK_START_STATE = (13, 2, 1)  # Figure 5.3: a usable ace and 13 against a dealer 2
BOOK_START_VALUE = -0.27726  # the book's estimate of its value under stick-on-20


@dataclass(frozen=True)
class StickAtLeast:
    """Stick on `threshold` or more, else hit: the book's evaluated policy with threshold 20."""

    threshold: int = 20

    def __call__(self, state: Hashable) -> int:
        """Return STICK (0) or HIT (1) for `(player_sum, dealer_card, usable_ace)`."""
        return STICK if state[0] >= self.threshold else HIT


def rms_error(estimates: Mapping[Hashable, float], truth: Mapping[Hashable, float]) -> float:
    """The root mean squared difference over the keys of `truth`."""
    return math.sqrt(sum((estimates[key] - value) ** 2 for key, value in truth.items()) / len(truth))


def greedy_policy(agent: Any, decision_states: list[Hashable]) -> dict[Hashable, int]:
    """The agent's action in every decision state."""
    return {state: agent.act(state, ACTIONS) for state in decision_states}


class ExactBlackjack:
    """A learned estimate against the DP oracle, as `exact/...` TensorBoard scalars (the trainer's exact_eval hook).

    With `policy` (prediction) it compares V with v_pi; without (control) it compares Q with q*, the
    greedy policy with pi* (`exact/policy_agreement`, and `exact/clear_disagreements`: states whose
    |q*(hit) - q*(stick)| >= `gap` where it differs) and gives its exact `exact/expected_return`.
    """

    def __init__(self, rules: Rules = BOOK_RULES, policy: Any = None, gap: float = 0.01,
                 start_state: Hashable | None = None) -> None:
        self.rules = rules
        self.decision_states = states(include_low_sums=not rules.player_draws_below_12)
        self.policy = policy
        self.start_state = start_state
        if policy is not None:
            self.v_pi = policy_value(policy, rules)
            return
        self.q_star = q_star(rules)
        self.pi_star = optimal_policy(rules)
        self.optimum = float(optimal_return(rules))
        self.clear_states = [s for s, (stick, hit) in self.q_star.items() if abs(hit - stick) >= gap]

    def __call__(self, agent: Any) -> dict[str, float]:
        """The scalars for the agent's current values (and greedy policy)."""
        if self.policy is not None:
            return self.prediction_scalars(agent.value_fn)
        return self.control_scalars(agent)

    def prediction_scalars(self, value_fn: Any) -> dict[str, float]:
        """`exact/rms_error` of V against v_pi, and the error at the start state if one was given."""
        estimates = dict(zip(self.decision_states, value_fn.values(self.decision_states)))
        scalars = {"exact/rms_error": rms_error(estimates, self.v_pi)}
        if self.start_state is not None:
            scalars["exact/start_state_error"] = value_fn.value(self.start_state) - self.v_pi[self.start_state]
        return scalars

    def control_scalars(self, agent: Any) -> dict[str, float]:
        """RMS error of Q against q*, agreement with pi*, and the greedy policy's exact expected return."""
        q_error = 0.0
        for state, optimal_values in self.q_star.items():
            learned = agent.action_values(state, ACTIONS)
            q_error += sum((a - b) ** 2 for a, b in zip(learned, optimal_values))
        policy = greedy_policy(agent, self.decision_states)
        agreeing = sum(policy[state] == action for state, action in self.pi_star.items())
        value = float(expected_return(policy, self.rules))
        return {
            "exact/rms_error": math.sqrt(q_error / (2 * len(self.q_star))),
            "exact/policy_agreement": agreeing / len(self.pi_star),
            "exact/clear_disagreements": float(sum(policy[s] != self.pi_star[s] for s in self.clear_states)),
            "exact/expected_return": value,
            "exact/return_gap": self.optimum - value,
        }


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
) -> MCTrainer:
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
        return MCTrainer(env, VTable(alpha=None), first_visit=first_visit, policy=policy,
                         start_states=start_states, schedule=ConstantSchedule(0.0), **common)
    if method == "es":
        return MCTrainer(env, QTable(alpha=None), first_visit=first_visit, exploring_starts=True,
                         start_states=start_states or states(), schedule=ConstantSchedule(0.0), **common)
    if method == "on-policy":
        return MCTrainer(env, QTable(alpha=None), first_visit=first_visit, start_states=start_states,
                         schedule=schedule or ConstantSchedule(0.1), **common)
    if method == "off-policy-prediction":
        table = WeightedVTable() if weighted else VTable(alpha=None)
        return OffPolicyMCTrainer(env, table, target_policy=policy, weighted=weighted, start_states=start_states,
                                  schedule=ConstantSchedule(1.0), **common)
    return OffPolicyMCTrainer(env, WeightedQTable(), weighted=True, start_states=start_states,
                              schedule=schedule or ConstantSchedule(1.0), **common)
