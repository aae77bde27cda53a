"""Blackjack's exact evaluation: learned estimates against the DP oracle, anyone's policy, the stick-on policy."""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping
from dataclasses import dataclass
from typing import Any

from rltorch.envs.blackjack.env import HIT, STICK
from rltorch.envs.blackjack.solver import (
    BOOK_RULES,
    Rules,
    expected_return,
    optimal_policy,
    optimal_return,
    policy_value,
    q_star,
    states,
)
from rltorch.envs.capabilities import Distribution
from rltorch.errors import RLTorchError

ACTIONS = (STICK, HIT)


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
        estimates = dict(zip(self.decision_states, value_fn.values(self.decision_states), strict=True))
        scalars = {"exact/rms_error": rms_error(estimates, self.v_pi)}
        if self.start_state is not None:
            scalars["exact/start_state_error"] = value_fn.value(self.start_state) - self.v_pi[self.start_state]
        return scalars

    def control_scalars(self, agent: Any) -> dict[str, float]:
        """RMS error of Q against q*, agreement with pi*, and the greedy policy's exact expected return."""
        q_error = 0.0
        for state, optimal_values in self.q_star.items():
            learned = agent.action_values(state, ACTIONS)
            q_error += sum((a - b) ** 2 for a, b in zip(learned, optimal_values, strict=True))
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


def policy_report(oracle: ExactBlackjack, distribution: Distribution) -> dict[str, Any]:
    """A deterministic policy's exact expected return from the deal, the optimum, and its agreement with pi*."""
    answers = {state: distribution(state, ACTIONS) for state in oracle.decision_states}
    if any(len(answer) != 1 for answer in answers.values()):
        raise RLTorchError("blackjack's exact evaluation takes deterministic policies (one action per state)")
    choice = {state: next(iter(answer)) for state, answer in answers.items()}
    value = float(expected_return(choice, oracle.rules))
    pi_star = oracle.pi_star
    return {
        "kind": "blackjack",
        "expected_return": value,
        "optimum": oracle.optimum,
        "return_gap": oracle.optimum - value,
        "policy_agreement": sum(choice[s] == a for s, a in pi_star.items()) / len(pi_star),
        "clear_disagreements": sum(choice[s] != pi_star[s] for s in oracle.clear_states),
    }
