"""Exact evaluation of anyone's agent on rltorch's envs, and an adapter for Stable-Baselines3 models.

A *policy* here is any callable `policy(observation, legal_actions) -> action` (an object with rltorch's
`act(observation, legal_actions, rng=None)` works too). It may instead return a mapping `{action: probability}`
(a stochastic policy, such as `uniform_random`); give exact `Fraction`s for exact figures (a float is read as
the simplest fraction that rounds to it, so 1/3 stays 1/3). `exact_evaluation` weighs every outcome with its
exact probability, through the evaluators rltorch's own agents get:

- an env with its own `exact_policy_report` (`rltorch.envs.capabilities.ExactPolicyEvaluation`): tic-tac-toe
  (`exact_outcome_vs_random` and `losing_lines_vs_perfect`, per seat) and blackjack on the infinite deck (the DP
  solver's `expected_return` of the policy and its agreement with pi*);
- any env with a finite model (`rltorch.mdp.model_of`): `expected_return` and `outcome_probabilities`.

`sb3_policy(model, env)` turns a Stable-Baselines3 model into such a policy (see its docstring).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Hashable, Mapping, Sequence
from fractions import Fraction
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from rltorch.envs.actions import integer_value, legal_mask
from rltorch.envs.context import EnvContext
from rltorch.errors import RLTorchError
from rltorch.mdp import expected_return, outcome_probabilities, value_iteration

PolicyFunction = Callable[[Any, Sequence[int]], Any]


def uniform_random(observation: Any, legal_actions: Sequence[int]) -> dict[int, Fraction]:
    """The uniform random policy: every legal action with the same exact probability."""
    return {action: Fraction(1, len(legal_actions)) for action in legal_actions}


class _Stochastic(Exception):
    """Raised by `CallableAgent.act` when the policy answered with a distribution instead of one action."""


class CallableAgent:
    """A policy as an rltorch agent (`act(obs, legal_actions, rng=None)`), its answers remembered per position."""

    def __init__(self, policy: PolicyFunction | Any) -> None:
        act = getattr(policy, "act", None)
        if act is None and not callable(policy):
            raise TypeError(f"a policy must be callable as policy(observation, legal_actions), got {policy!r}")
        self.policy: PolicyFunction = (lambda obs, legal: act(obs, legal)) if act is not None else policy
        self._memo: dict[tuple[Hashable, tuple[int, ...]], dict[int, Fraction]] = {}

    def distribution(self, obs: Hashable, legal_actions: Sequence[int]) -> dict[int, Fraction]:
        """The policy's answer in `obs` as {action: exact probability}; a legal action, or a distribution over them."""
        key = (obs, tuple(legal_actions))
        if key not in self._memo:
            self._memo[key] = _as_distribution(self.policy(obs, list(legal_actions)), obs, legal_actions)
        return self._memo[key]

    def act(self, obs: Hashable, legal_actions: Sequence[int], rng: Any = None) -> int:
        """The policy's action (raises `_Stochastic` for a policy that answers with a distribution)."""
        choice = self.distribution(obs, legal_actions)
        if len(choice) != 1:
            raise _Stochastic
        return next(iter(choice))

    def is_deterministic(self, states: dict[Hashable, Sequence[int]]) -> bool:
        """Whether the policy names one action in each of `states` (state -> legal actions)."""
        return all(len(self.distribution(s, legal)) == 1 for s, legal in states.items())


def _as_distribution(answer: Any, obs: Any, legal: Sequence[int]) -> dict[int, Fraction]:
    """A policy's answer as {legal action: Fraction}; anything else is an RLTorchError naming the position."""
    if isinstance(answer, Mapping):
        choice = {integer_value(a): _fraction(p) for a, p in answer.items() if p}
        total = sum(choice.values())
        if any(a not in legal for a in choice) or min(choice.values(), default=-1) < 0 or abs(total - 1) > 1e-9:
            raise RLTorchError(f"policy gave {answer!r} in {obs!r}: not a distribution over the legal actions {legal}")
        return {a: p / total for a, p in choice.items()}  # type: ignore[misc]
    action = integer_value(answer)
    if action not in legal:
        raise RLTorchError(f"policy chose {answer!r} in {obs!r}; the legal actions are {list(legal)} "
                           "(for a model without masks, sb3_policy picks its best legal action)")
    return {action: Fraction(1)}


def _fraction(p: Any) -> Fraction:
    """`p` as an exact Fraction: Fractions and ints as they are, a float as the simplest fraction rounding to it."""
    if isinstance(p, (int, Fraction)):
        return Fraction(p)
    exact = Fraction(float(p))
    simple = exact.limit_denominator(10**6)
    return simple if float(simple) == float(p) else exact


def exact_evaluation(env: str | gym.Env, policy: PolicyFunction | Any, *, gamma: float = 1.0,
                     env_kwargs: dict[str, Any] | None = None) -> dict[str, Any]:
    """Exact figures of `policy` on `env` (an id, made with `env_kwargs`, or an env); see the module docstring.

    `gamma` discounts the returns of a model env (tic-tac-toe and blackjack report outcomes and undiscounted
    returns). An env with no exact evaluation is an RLTorchError. The env's capabilities are read through the
    same `EnvContext` a training run uses: its own `exact_policy_report`, else its finite model.
    """
    if isinstance(env, str):
        env = gym.make(env, **(env_kwargs or {}))
    context = EnvContext(env, gamma)
    agent = CallableAgent(policy)
    if context.policy_evaluation is not None:
        return context.policy_evaluation(agent.distribution)
    if context.model is None:
        raise RLTorchError(f"{type(context.unwrapped).__name__} has no exact evaluation: no finite model (`model()`)")
    return _model(context.model, agent, gamma)


def _model(model: Any, agent: CallableAgent, gamma: float) -> dict[str, Any]:
    """Expected return (within the env's time limit, if any) and outcome probabilities on the finite model."""
    decisions = {s: model.legal_actions(s) for s in model.states if model.legal_actions(s)}
    policy = {s: {a: float(p) for a, p in agent.distribution(s, legal).items()} for s, legal in decisions.items()}
    horizon = model.horizon
    try:
        value: float | None = expected_return(model, policy, gamma, horizon=horizon)
    except RLTorchError:  # with gamma 1 and no time limit, a policy that may never finish has no finite return
        value = None
    try:
        best = value_iteration(model, gamma, horizon=horizon).v
        optimum: float | None = sum(p * best[s] for s, p in model.start.items())
    except RLTorchError:
        optimum = None
    return {
        "kind": "model",
        "name": model.name,
        "gamma": gamma,
        "horizon": horizon,
        "expected_return": value,
        "optimum": optimum,
        "return_gap": None if value is None or optimum is None else optimum - value,
        "outcomes": outcome_probabilities(model, policy, horizon=horizon),
        "deterministic": all(len(choice) == 1 for choice in policy.values()),
    }


class SB3Policy:
    """A Stable-Baselines3 model as a policy `(observation, legal_actions) -> action` (made by `sb3_policy`)."""

    def __init__(self, model: Any, observation_space: spaces.Space, deterministic: bool = True) -> None:
        self.model, self.space, self.deterministic = model, observation_space, deterministic
        self.flatten = model.observation_space != observation_space
        if self.flatten and spaces.flatten_space(observation_space).shape != model.observation_space.shape:
            raise RLTorchError(f"the model's observation space {model.observation_space} is neither the env's "
                               f"{observation_space} nor its flattened form")
        self.n_actions = int(model.action_space.n)
        self.masked = "action_masks" in inspect.signature(model.predict).parameters
        self.calls = 0
        self.illegal_choices = 0  # unmasked models only: how often the model's own choice was an illegal action

    def model_input(self, observation: Any) -> np.ndarray:
        """The observation as the model saw it in training: flattened as `FlattenObservation` does, if it was."""
        return spaces.flatten(self.space, observation) if self.flatten else np.asarray(observation)

    def __call__(self, observation: Any, legal_actions: Sequence[int]) -> int:
        """The model's action (deterministic by default); without masks, its best legal action if it chose another."""
        self.calls += 1
        obs = self.model_input(observation)
        if self.masked:
            action, _ = self.model.predict(obs, deterministic=self.deterministic,
                                           action_masks=legal_mask(legal_actions, self.n_actions))
            return int(action)
        action, _ = self.model.predict(obs, deterministic=self.deterministic)
        if int(action) in legal_actions:
            return int(action)
        self.illegal_choices += 1
        scores = self.scores(obs)
        return max(legal_actions, key=lambda a: scores[a])

    def scores(self, obs: np.ndarray) -> np.ndarray:
        """The model's preference for each action: a DQN's Q values, else the policy's action probabilities."""
        import torch

        policy = self.model.policy
        tensor, _ = policy.obs_to_tensor(obs)
        with torch.no_grad():
            if hasattr(policy, "q_net"):
                return policy.q_net(tensor)[0].cpu().numpy()
            return policy.get_distribution(tensor).distribution.probs[0].cpu().numpy()


def sb3_policy(model: Any, env: str | gym.Env | spaces.Space | None = None, *,
               deterministic: bool = True) -> SB3Policy:
    """An SB3 model (`predict`) as a policy for `exact_evaluation`; `env` gives the env's own observation space.

    An observation is flattened with `gymnasium.spaces.flatten` when the model was trained through
    `FlattenObservation`. A model whose `predict` takes `action_masks` (sb3-contrib's MaskablePPO) gets the
    legal actions as a mask. Another (DQN, PPO) that picks an illegal action plays its best legal one instead
    (highest Q value or probability), counted in `illegal_choices`. Without `env`, the space is read from the
    model's own (DummyVecEnv) env.
    """
    if isinstance(env, str):
        env = gym.make(env)
    if isinstance(env, gym.Env):
        space = env.unwrapped.observation_space
    elif isinstance(env, spaces.Space):
        space = env
    else:
        vec_env = model.get_env()
        if vec_env is None or not hasattr(vec_env, "envs"):
            raise RLTorchError("sb3_policy needs the env (or its observation space) for a model without a DummyVecEnv")
        space = vec_env.envs[0].unwrapped.observation_space
    return SB3Policy(model, space, deterministic)


__all__ = ["CallableAgent", "SB3Policy", "exact_evaluation", "sb3_policy", "uniform_random"]
