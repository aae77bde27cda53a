"""The best policy of the state alone within an env's time limit, by enumerating every deterministic one.

Within a time limit the exact optimum (`rltorch evaluate`, finite-horizon dynamic programming) may use the
steps left, which a policy of the state alone (any tabular learner's greedy policy) cannot. This script
enumerates every deterministic stationary policy of a small finite model, evaluates each exactly within
the limit (batched in torch), and prints the best one's expected return: on FrozenLake-v1 (4^11 policies,
about 2.5 minutes here) it is +0.74016, where the time-aware optimum is +0.74419.

    python bench/stationary_optimum.py --env FrozenLake-v1
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time
from typing import Any

import gymnasium as gym
import torch

from rltorch.mdp import model_of
from rltorch.run.options import at_most, make_parser, positive_int
from rltorch.run.output import run_cli

MAX_POLICIES = 4**12


def build_parser() -> argparse.ArgumentParser:
    """The script's options."""
    parser = make_parser(__doc__.split("\n\n")[0])
    parser.add_argument("--env", default="FrozenLake-v1", help="a small toy-text env with a finite model")
    parser.add_argument("--horizon", type=at_most(positive_int, 10_000),
                        help="steps counted (default: the env's time limit)")
    return parser


def arrays(env_id: str) -> tuple[torch.Tensor, torch.Tensor, list[int], int]:
    """Transition probabilities [S+1, A, S+1], expected rewards [S+1, A], the decision states and the start state.

    Index S is a sink that every ending outcome enters and stays in; a state without actions stays put.
    """
    model = model_of(gym.make(env_id))
    if model is None:
        raise SystemExit(f"error: {env_id} has no finite model")
    states, sink = model.states, len(model.states)
    width = max(len(actions) for actions in model.actions.values())
    transitions = torch.zeros(sink + 1, width, sink + 1, dtype=torch.float64)
    rewards = torch.zeros(sink + 1, width, dtype=torch.float64)
    live = _decision_states(model)
    if any(model.legal_actions(states[i]) != list(range(width)) for i in live):
        raise SystemExit(f"error: {env_id} does not offer every action in every state; this script needs it")
    for i in range(sink + 1):
        transitions[i, :, i] = 1.0
    for i in live:
        transitions[i] = 0.0
        for a in model.legal_actions(states[i]):
            for outcome in model.transitions[(states[i], a)]:
                target = sink if outcome.terminal else model.index[outcome.next_state]
                transitions[i, a, target] += outcome.probability
                rewards[i, a] += outcome.probability * outcome.reward
    if len(model.start) != 1:
        raise SystemExit(f"error: {env_id} starts in {len(model.start)} states; this script handles one")
    return transitions, rewards, live, model.index[next(iter(model.start))]


def _decision_states(model: Any) -> list[int]:
    """The indices of the states a run can be in when it acts: reached from a start by outcomes that go on."""
    seen, frontier = set(model.start), list(model.start)
    while frontier:
        state = frontier.pop()
        for action in model.legal_actions(state):
            for outcome in model.transitions[(state, action)]:
                if not outcome.terminal and outcome.next_state not in seen:
                    seen.add(outcome.next_state)
                    frontier.append(outcome.next_state)
    return sorted(model.index[state] for state in seen if model.legal_actions(state))


def best_policy(transitions: torch.Tensor, rewards: torch.Tensor, live: list[int], start: int,
                horizon: int) -> tuple[float, list[int]]:
    """The best expected return within `horizon` steps over every deterministic policy of the live states."""
    states, actions = rewards.shape
    low = min(len(live), 8)
    codes = torch.arange(actions ** low)
    lows = torch.stack([(codes // actions ** i) % actions for i in range(low)], dim=1)
    best, chosen = float("-inf"), []
    for high in itertools.product(range(actions), repeat=len(live) - low):
        policy = torch.zeros(len(codes), states, dtype=torch.long)
        policy[:, live] = torch.cat([torch.tensor(high, dtype=torch.long).expand(len(codes), -1), lows], dim=1)
        step, pay = transitions[torch.arange(states), policy], rewards[torch.arange(states), policy]
        where = torch.zeros(len(codes), states, dtype=torch.float64)
        where[:, start] = 1.0
        total = torch.zeros(len(codes), dtype=torch.float64)
        for _ in range(horizon):
            total += (where * pay).sum(1)
            where = torch.bmm(where.unsqueeze(1), step).squeeze(1)
        top = int(total.argmax())
        if float(total[top]) > best:
            best, chosen = float(total[top]), policy[top].tolist()
    return best, chosen


def main(argv: list[str] | None = None) -> int:
    """Enumerate and print the best stationary policy's return."""
    args = build_parser().parse_args(argv)

    def run() -> None:
        """The enumeration."""
        transitions, rewards, live, start = arrays(args.env)
        count = rewards.shape[1] ** len(live)
        if count > MAX_POLICIES:
            raise SystemExit(f"error: {count:,} policies is too many to enumerate (at most {MAX_POLICIES:,})")
        horizon = args.horizon or gym.make(args.env).spec.max_episode_steps
        began = time.perf_counter()
        best, policy = best_policy(transitions, rewards, live, start, horizon)
        print(f"{args.env}: best of {count:,} stationary policies within {horizon} steps: {best:+.5f} "
              f"({time.perf_counter() - began:.0f} s); policy {policy}")

    return run_cli(run)


if __name__ == "__main__":
    sys.exit(main())
