"""Exact figures of a learner on any env with a finite model: the `exact/` curves every such env gets for free.

The greedy policy is the one `GreedyAgent.act` plays (first best action). Its expected return is
the return an episode scores in the env, undiscounted as Gymnasium counts it (discounted by the
learner's gamma only where no undiscounted optimum exists), evaluated exactly from the start
distribution within the env's time limit when it has one (`model.horizon`: an episode is cut after
that many steps, as `gym.make` cuts it); the optimum is the best such return within the same limit.
The RMS error compares the learned action values with the
stationary q* (no time limit) over the states the greedy policy reaches; the agreement counts the
reached states whose best action is clear (q* gap of at least `clear_gap`) where the greedy action
is one of the optimal ones. A learner that discounts (gamma < 1) where the optimum is undiscounted
can converge at best to a policy optimal for its gamma: the report gives that policy's return too
(`discounted_optimal_return`), and the text says so.
"""

from __future__ import annotations

import math
from collections.abc import Hashable
from typing import Any

from rltorch.errors import RLTorchError
from rltorch.mdp.model import FiniteModel
from rltorch.mdp.policies import deterministic_policy
from rltorch.mdp.solve import Solution, expected_return, value_iteration

# On an env without a time limit, a greedy policy that never ends an episode (gamma 1) is scored as if
# each episode were cut after this many steps, so the curve stays finite while the learner is still lost.
NEVER_ENDING_CAP = 1000


class ModelEvaluation:
    """Exact `exact/...` scalars of a greedy agent on a finite model, with the optimum solved once."""

    def __init__(self, model: FiniteModel, gamma: float, clear_gap: float = 1e-6) -> None:
        self.model, self.gamma, self.clear_gap = model, gamma, clear_gap
        try:
            self.solution: Solution = value_iteration(model, gamma)
        except RLTorchError as error:
            raise RLTorchError(f"cannot solve {model.name} exactly with gamma={gamma}: {error}") from None
        self.return_gamma = 1.0  # the return an episode scores in the env, as Gymnasium counts it
        try:
            limited = value_iteration(model, 1.0, horizon=model.horizon)
        except RLTorchError:  # no undiscounted optimum (episodes need not end): score the discounted return
            self.return_gamma = gamma
            limited = value_iteration(model, gamma, horizon=model.horizon) if model.horizon else self.solution
        self.optimum = sum(p * limited.v[s] for s, p in model.start.items())
        self.decision_states = [s for s in model.states if model.actions.get(s)]
        # what a learner that discounts can converge to when the optimum counts the undiscounted return
        self.discounted_best = (self.policy_return(self.solution.policy)
                                if gamma < 1 and self.return_gamma == 1 else None)

    def greedy_choice(self, agent: Any) -> dict[Hashable, int]:
        """The agent's action in every decision state."""
        return {s: agent.act(s, list(self.model.actions[s])) for s in self.decision_states}

    def reached(self, choice: dict[Hashable, int]) -> list[Hashable]:
        """The decision states the policy reaches from the start distribution."""
        seen = {s for s, p in self.model.start.items() if p > 0 and s in choice}
        frontier = list(seen)
        while frontier:
            state = frontier.pop()
            for outcome in self.model.transitions[(state, choice[state])]:
                nxt = outcome.next_state
                if not outcome.terminal and outcome.probability > 0 and nxt in choice and nxt not in seen:
                    seen.add(nxt)
                    frontier.append(nxt)
        return [s for s in self.decision_states if s in seen]

    def __call__(self, agent: Any) -> dict[str, float]:
        """The scalars for the agent's current greedy policy and values."""
        choice = self.greedy_choice(agent)
        value = self.policy_return(choice)
        reached = self.reached(choice)
        q, best = self.solution.q, self.solution.optimal_actions
        errors = [learned - q[(s, a)] for s in reached
                  for a, learned in zip(self.model.actions[s], agent.action_values(s, self.model.actions[s]),
                                        strict=True)]
        clear = [s for s in reached if self._gap(s) >= self.clear_gap]
        return {
            "exact/expected_return": value,
            "exact/return_gap": self.optimum - value,
            "exact/rms_error": math.sqrt(sum(e * e for e in errors) / len(errors)) if errors else 0.0,
            "exact/policy_agreement": sum(choice[s] in best[s] for s in clear) / len(clear) if clear else 1.0,
        }

    def policy_return(self, choice: dict[Hashable, int]) -> float:
        """The exact expected return of a deterministic policy; one that never ends is cut at `NEVER_ENDING_CAP`."""
        policy = deterministic_policy(choice)
        try:
            return expected_return(self.model, policy, self.return_gamma, horizon=self.model.horizon)
        except RLTorchError:
            return expected_return(self.model, policy, self.return_gamma, horizon=NEVER_ENDING_CAP)

    def _gap(self, state: Hashable) -> float:
        """The q* gap between the best action and the best non-optimal one (inf when every action is optimal)."""
        values = sorted((self.solution.q[(state, a)] for a in self.model.actions[state]), reverse=True)
        others = [v for v in values if v < values[0] - 1e-12]
        return values[0] - others[0] if others else math.inf

    def report(self, agent: Any) -> dict[str, Any]:
        """The scalars as a report, with the optimum and the time limit they use."""
        scalars = {key.removeprefix("exact/"): value for key, value in self(agent).items()}
        report = {"optimum": self.optimum, "horizon": self.model.horizon, "gamma": self.gamma,
                  "return_gamma": self.return_gamma, **scalars}
        if self.discounted_best is not None:
            report["discounted_optimal_return"] = self.discounted_best
        return report


def fixed(value: float, digits: int = 5, sign: bool = False) -> str:
    """`value` with `digits` decimals; one that rounds to zero prints as 0 (never "-0.00000")."""
    if abs(value) < 0.5 * 10.0 ** -digits:
        value = 0.0
    return f"{value:{'+' if sign else ''}.{digits}f}"


def format_model_report(report: dict[str, Any]) -> str:
    """The model report as a few lines of text; a learner that discounts is told what it can converge to."""
    limit = f" within {report['horizon']} steps" if report["horizon"] else ""
    lines = [f"greedy policy's exact expected return{limit} {fixed(report['expected_return'], sign=True)} "
             f"(optimum {fixed(report['optimum'], sign=True)}, gap {fixed(report['return_gap'])}"
             f"{', discounted' if report['return_gamma'] != 1 else ''})"]
    if report.get("discounted_optimal_return") is not None:
        best = report["discounted_optimal_return"]
        lines.append(f"note: the learner discounts (gamma {report['gamma']:g}) but the optimum is undiscounted: "
                     f"a policy optimal for gamma {report['gamma']:g} scores {fixed(best, sign=True)} "
                     f"(gap {fixed(report['optimum'] - best)}), where a converged learner ends")
    lines.append(f"agrees with an optimal action in {report['policy_agreement']:.1%} of the clear states it reaches; "
                 f"RMS error of its values against q* {report['rms_error']:.4f}")
    return "\n".join(lines)
