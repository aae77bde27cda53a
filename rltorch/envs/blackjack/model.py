"""Blackjack on the infinite deck as a `FiniteModel`, for the generic exact solvers of `rltorch.mdp`.

States are the observations `(player_sum, dealer_card, usable_ace)` where the player acts,
exactly `solver.states(...)`: sums 12..21 (200 states) under the book's automatic draws below 12,
or also hard 4..11 (280 states) with `player_draws_below_12=False`, Gymnasium's `Blackjack-v1`.
Actions are STICK (0) and HIT (1). A hit draws a card 1..10 (a 10 with chance 4/13) and goes on to
the next decision state, or ends at once with -1 on a bust (all bust cards in one outcome). A stick
ends the episode: the dealer's play is folded into three terminal outcomes, win +1, draw 0 and
loss -1, weighted by the dealer's exact final-total distribution for the up card.

The start distribution is the whole deal: two player cards (and the automatic draws below 12,
where the rules have them) times the up card, so `expected_return(model, pi, 1.0)` from the start
is exactly `solver.expected_return(pi)`. Under `rules.natural` a dealt natural is not a decision:
the env settles it on the first step whatever the action. It gets its own start state
`(21, dealer_card, 1, NATURAL)` (the observation the env shows, tagged), in which both actions
settle it: `natural_payout` unless the dealer's two cards are a natural too (a draw). The start
distribution then still sums to 1 and includes the naturals' 8/169; the 200 (or 280) ordinary
states keep their values, those of the non-natural hands. `model_policy` maps a solver policy
(mapping or callable on observations) onto every model state, natural states included.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Hashable, Mapping

from rltorch.envs.blackjack.env import BLACKJACK, HIT, STICK, add_card
from rltorch.envs.blackjack.solver import (
    BOOK_RULES,
    BUST,
    Rules,
    card_probabilities,
    dealer_final_distribution,
    dealer_natural_probability,
    natural_probability,
    start_distribution,
    states,
)
from rltorch.errors import RLTorchError
from rltorch.mdp.model import FiniteModel, Transition

NATURAL = "natural"
_BUST = "bust"  # merge key of every busting card
SUPPORTED_FIELDS = frozenset({"dealer_hits_soft_17", "natural", "natural_payout", "player_draws_below_12"})

State = tuple


def blackjack_model(rules: Rules = BOOK_RULES) -> FiniteModel:
    """The validated infinite-deck blackjack MDP under `rules` (see the module docstring)."""
    _check_rules(rules)
    decision_states: list[Hashable] = list(states(include_low_sums=not rules.player_draws_below_12))
    actions: dict[Hashable, list[int]] = {state: [STICK, HIT] for state in decision_states}
    transitions: dict[tuple[Hashable, int], list[Transition]] = {}
    sticks = {card: _stick_outcomes(card, rules) for card in range(1, 11)}
    for state in decision_states:
        player_sum, dealer_card, usable = state
        transitions[(state, STICK)] = [_end(p, reward) for reward, p in sticks[dealer_card][player_sum].items()]
        transitions[(state, HIT)] = _hit_outcomes(player_sum, dealer_card, bool(usable))
    if rules.natural:
        for dealer_card in range(1, 11):
            state = natural_state(dealer_card)
            decision_states.append(state)
            actions[state] = [STICK, HIT]
            settled = _natural_outcomes(dealer_card, rules)
            transitions[(state, STICK)] = transitions[(state, HIT)] = settled
    name = "blackjack" if rules == BOOK_RULES else f"blackjack{_rules_suffix(rules)}"
    return FiniteModel(decision_states, actions, transitions, _start(rules), name=name).validate()


def natural_state(dealer_card: int) -> State:
    """The model state of a dealt natural against `dealer_card` (only under `rules.natural`)."""
    return (BLACKJACK, dealer_card, 1, NATURAL)


def model_policy(policy: Mapping[Hashable, int] | Callable[[Hashable], int], model: FiniteModel) -> dict[Hashable, int]:
    """A deterministic policy on observations (mapping or callable) as a choice for every state of `model`."""
    def choose(state: Hashable) -> int:
        observation = state[:3] if isinstance(state, tuple) and len(state) == 4 else state
        action = policy[observation] if isinstance(policy, Mapping) else policy(observation)
        if action not in (STICK, HIT):
            raise RLTorchError(f"policy gives action {action!r} in state {state!r}; expected 0 (stick) or 1 (hit)")
        return int(action)

    return {state: choose(state) for state in model.states if model.legal_actions(state)}


def _check_rules(rules: Rules) -> None:
    """Raise `RLTorchError` for anything but a `Rules` whose every non-default field this model handles."""
    if not isinstance(rules, Rules):
        raise RLTorchError(f"blackjack_model needs a solver.Rules, got {type(rules).__name__}")
    for field in dataclasses.fields(rules):
        if field.name not in SUPPORTED_FIELDS and getattr(rules, field.name) != field.default:
            raise RLTorchError(f"blackjack_model does not model rule {field.name}={getattr(rules, field.name)!r}")


def _rules_suffix(rules: Rules) -> str:
    """The rules that differ from the book's, as a name suffix like `(player_draws_below_12=False)`."""
    changed = [f"{f.name}={getattr(rules, f.name)!r}" for f in dataclasses.fields(rules)
               if getattr(rules, f.name) != f.default]
    return f"({', '.join(changed)})"


def _end(probability: float, reward: float) -> Transition:
    """A terminal outcome; its next state is a label for the result."""
    return Transition(float(probability), ("end", reward), float(reward), True)


def _stick_outcomes(dealer_card: int, rules: Rules) -> dict[int, dict[float, float]]:
    """For every player sum 4..21: the probabilities of rewards +1 / 0 / -1 after sticking against `dealer_card`."""
    dealer = dealer_final_distribution(dealer_card, rules.dealer_hits_soft_17)
    table: dict[int, dict[float, float]] = {}
    for player_sum in range(4, BLACKJACK + 1):
        rewards = {1.0: 0.0, 0.0: 0.0, -1.0: 0.0}
        for final, p in dealer.items():
            reward = 1.0 if final == BUST or player_sum > final else 0.0 if player_sum == final else -1.0
            rewards[reward] += p
        table[player_sum] = {reward: p for reward, p in rewards.items() if p > 0}
    return table


def _hit_outcomes(player_sum: int, dealer_card: int, usable: bool) -> list[Transition]:
    """The outcomes of one card: the next decision state per card, and one bust outcome (-1) for all others."""
    merged: dict[Hashable, float] = {}
    for card, p in card_probabilities().items():
        total, soft = add_card(player_sum, usable, card)
        key = _BUST if total > BLACKJACK else (total, dealer_card, int(soft))
        merged[key] = merged.get(key, 0.0) + p
    return [_end(p, -1.0) if key == _BUST else Transition(p, key, 0.0, False) for key, p in merged.items()]


def _natural_outcomes(dealer_card: int, rules: Rules) -> list[Transition]:
    """A dealt natural against `dealer_card`: the payout, or a draw when the dealer holds a natural too."""
    push = float(dealer_natural_probability(dealer_card))
    outcomes = [_end(1.0 - push, rules.natural_payout)]
    return outcomes + [_end(push, 0.0)] if push > 0 else outcomes


def _start(rules: Rules) -> dict[Hashable, float]:
    """The deal's distribution over start states: (sum, usable) hands times the up card, naturals apart."""
    cards = card_probabilities()
    start: dict[Hashable, float] = {}
    for (player_sum, usable), p_hand in start_distribution(rules).items():
        for dealer_card, p_card in cards.items():
            start[(player_sum, dealer_card, usable)] = float(p_hand * p_card)
    if rules.natural:
        for dealer_card, p_card in cards.items():
            start[natural_state(dealer_card)] = float(natural_probability() * p_card)
    return start


__all__ = ["NATURAL", "blackjack_model", "model_policy", "natural_state"]
