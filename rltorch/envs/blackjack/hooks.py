"""What rltorch asks of the blackjack env (`rltorch.envs.capabilities`): encoder, exact evaluation (infinite deck).

Also its action masks: both actions are always legal, so every info's `action_mask` and `action_masks()` are
[1, 1] (`np.int8`), a new array each time (see `rltorch.envs.actions`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from rltorch.envs.actions import action_mask
from rltorch.envs.capabilities import Distribution
from rltorch.errors import RLTorchError

BOTH_ACTIONS = action_mask((0, 1), 2)  # read-only template: stick (0) and hit (1) are always legal


class BlackjackHooks:
    """Mixed into `BlackjackEnv`: features for networks, and the DP oracle's figures for a greedy agent."""

    is_game = True  # returns are +1 win (or the natural payout), 0 draw, -1 loss

    def action_masks(self) -> np.ndarray:
        """Both actions legal, as a fresh `np.int8` vector [1, 1] (sb3-contrib's MaskablePPO hook)."""
        return BOTH_ACTIONS.copy()

    def _reset_info(self) -> dict[str, Any]:
        """`reset`'s info: the action mask, and `dealer_natural` when the dealer's peek found one."""
        if self._peeked_natural:
            return {"dealer_natural": True, "action_mask": BOTH_ACTIONS.copy()}
        return {"action_mask": BOTH_ACTIONS.copy()}

    def encoder(self) -> Any:
        """One-hot sum, one-hot dealer card and the ace flag (the book's 3-tuple observation only)."""
        from rltorch.envs.blackjack.encoder import BlackjackEncoder

        if self.expanded_state:
            return None
        return BlackjackEncoder()

    def start_states(self) -> list[tuple[int, int, int]]:
        """The decision states, for exploring starts (infinite deck, 3-tuple observations)."""
        from rltorch.envs.blackjack.solver import states

        return states(include_low_sums=not self.player_draws_below_12)

    def exact_oracle(self) -> Any:
        """The exact evaluator for these rules, or None where the infinite-deck oracle does not apply."""
        if self.decks is not None or self.expanded_state or self.dealer_peeks:
            return None
        if getattr(self, "_exact", None) is None:
            from rltorch.envs.blackjack.evaluation import ExactBlackjack
            from rltorch.envs.blackjack.solver import Rules

            rules = Rules(self.dealer_hits_soft_17, self.natural, self.natural_payout, self.player_draws_below_12)
            self._exact = ExactBlackjack(rules)
        return self._exact

    def exact_scalars(self, agent: Any) -> dict[str, float]:
        """`exact/...` figures of the agent's greedy policy against the DP oracle (none for a finite shoe)."""
        oracle = self.exact_oracle()
        return {} if oracle is None else oracle(agent)

    def exact_report(self, agent: Any) -> dict[str, Any] | None:
        """The exact figures with the optimum beside them, or None where no oracle applies."""
        oracle = self.exact_oracle()
        if oracle is None:
            return None
        return {"optimum": oracle.optimum, **{key.removeprefix("exact/"): v for key, v in oracle(agent).items()}}

    def exact_policy_report(self, distribution: Distribution) -> dict[str, Any]:
        """Anyone's deterministic policy against the DP oracle: its exact return from the deal, the optimum, pi*."""
        from rltorch.envs.blackjack.evaluation import policy_report

        oracle = self.exact_oracle()
        if oracle is None:
            raise RLTorchError("blackjack has an exact evaluation only on the infinite deck with the book's state "
                               "and no dealer peek")
        return policy_report(oracle, distribution)

    def format_exact_report(self, report: dict[str, Any]) -> str:
        """The exact report as a few lines of text."""
        return (
            f"greedy policy's exact expected return {report['expected_return']:+.5f} "
            f"(optimum {report['optimum']:+.5f}, gap {report['return_gap']:.5f})\n"
            f"agrees with the optimal policy in {report['policy_agreement']:.1%} of the decision states "
            f"({report['clear_disagreements']:.0f} clear disagreements); RMS error of Q against q* "
            f"{report['rms_error']:.4f}"
        )
