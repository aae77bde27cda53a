"""Eligibility traces for prediction (Sutton & Barto chapter 12): the offline λ-return, TD(λ), true online TD(λ).

TD(λ) and true online TD(λ) need a linear value function's gradient interface: `gradient(S)` (x(S) as flat
weight indices and values), `add(indices, values, scale)` and `alpha`; a table with a constant step is read as
one-hot features (`rltorch.trainers.traces_control.trace_weights`). The offline λ-return only reads values and
calls `learn`, so any value function serves. A trace is sparse where the features are: a dict from
weight index to trace value holding only the weights some visited feature touched. Its float arithmetic is
the batched engine's: z_j ← γλ z_j, then z_j ← z_j + c x_j for the features of S, in their order.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any, ClassVar

import torch

from rltorch.options import Option
from rltorch.trainers.prediction import PolicyPrediction
from rltorch.trainers.traces_control import LAMBDA, checked_lambda, trace_weights


class Trace(dict):
    """A sparse eligibility trace: weight index -> z (absent: 0)."""

    def decay_and_add(self, factor: float, indices: list[int], values: list[float], scale: float = 1.0) -> None:
        """z ← factor z + scale x, x given by its non-zero `indices` and `values`; exact zeros are dropped."""
        for index in list(self):
            self[index] *= factor
            if self[index] == 0.0:
                del self[index]
        for index, value in zip(indices, values, strict=True):
            self[index] = self.get(index, 0.0) + scale * value

    def dot(self, indices: list[int], values: list[float]) -> float:
        """zᵀx, summed in the features' order."""
        total = 0.0
        for index, value in zip(indices, values, strict=True):
            total += self.get(index, 0.0) * value
        return total

    def tensors(self) -> tuple[torch.Tensor, torch.Tensor]:
        """The trace as (indices, values) tensors, for `add`."""
        return torch.tensor(list(self.keys()), dtype=torch.int64), torch.tensor(list(self.values()),
                                                                              dtype=torch.float64)


class LambdaPrediction(PolicyPrediction):
    """The shared part: λ (`--lambda`)."""

    options: ClassVar[tuple[Option, ...]] = (LAMBDA,)

    def __init__(self, *args: Any, lam: float = 0.9, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.lam = checked_lambda(lam)

    def config(self) -> dict:
        """The settings, with λ."""
        return {**super().config(), "lambda": self.lam}


class TracePrediction(LambdaPrediction):
    """The trace methods' part: the weights' gradient interface (checked at once) and x(S) as plain lists."""

    keeps_traces = True

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        trace_weights(self.value_fn, self.algorithm)  # ValueError for a network or a table of sample averages

    def weights(self) -> Any:
        """An episode's gradient interface: the linear value function, or a table's one-hot keys afresh."""
        return trace_weights(self.value_fn, self.algorithm)

    @staticmethod
    def features(weights: Any, state: Hashable) -> tuple[list[int], list[float]]:
        """x(state): the flat weight indices and values of ∇v̂(state)."""
        indices, values = weights.gradient(state)
        return indices.tolist(), values.tolist()


class OfflineLambdaReturn(LambdaPrediction):
    """The offline λ-return algorithm (section 12.1): at the episode's end, w moves toward G^λ_t for t = 0..T-1.

    The weights do not change during the episode, so every λ-return reads them as they stood then:
    G^λ_t = R_{t+1} + γ ((1 − λ) v̂(S_{t+1}) + λ G^λ_{t+1}), from G^λ_{T-1} = R_T (+ γ v̂(S_T) if truncated).
    The T updates then follow in order, each semi-gradient step reading the weights the one before left.
    """

    algorithm = "offline-lambda-return"

    def run_episode(self, epsilon: float) -> float:
        """Play the policy to the end, then update toward every λ-return in order."""
        state, _ = self.env.reset()
        states, rewards, terminated = [state], [], False
        while True:
            state, reward, terminated, truncated, _ = self.step(self.policy(state))
            states.append(state)
            rewards.append(reward)
            if terminated or truncated:
                break
        value = self.value_fn.value
        ahead = [value(state) for state in states[1:-1]] + [0.0 if terminated else value(states[-1])]
        following, lambda_returns = ahead[-1], [0.0] * len(rewards)
        for t in range(len(rewards) - 1, -1, -1):
            following = rewards[t] + self.gamma * ((1.0 - self.lam) * ahead[t] + self.lam * following)
            lambda_returns[t] = following
        for state, target in zip(states[:-1], lambda_returns, strict=True):
            self.learn(state, target)
        return sum(rewards)


class TDLambda(TracePrediction):
    """Semi-gradient TD(λ) with accumulating traces (section 12.2): z ← γλ z + ∇v̂(S), w ← w + α δ z every step."""

    algorithm = "td-lambda"

    def run_episode(self, epsilon: float) -> float:
        """Play one episode of the policy, updating through the trace after every step."""
        state, _ = self.env.reset()
        trace, total, value_fn = Trace(), 0.0, self.weights()
        while True:
            next_state, reward, terminated, truncated, _ = self.step(self.policy(state))
            total += reward
            trace.decay_and_add(self.gamma * self.lam, *self.features(value_fn, state))
            following = 0.0 if terminated else value_fn.value(next_state)
            error = reward + self.gamma * following - value_fn.value(state)
            value_fn.add(*trace.tensors(), value_fn.alpha * error)
            self._td_errors.append(error)
            if terminated or truncated:
                return total
            state = next_state


class TrueOnlineTDLambda(TracePrediction):
    """True online TD(λ) (section 12.5) with the dutch trace z ← γλ z + (1 − αγλ zᵀx) x, as the book's box reads."""

    algorithm = "true-online-td-lambda"

    def run_episode(self, epsilon: float) -> float:
        """Play one episode of the policy; w ← w + α(δ + V − V_old) z − α(V − V_old) x after every step."""
        state, _ = self.env.reset()
        trace, total, value_fn, old = Trace(), 0.0, self.weights(), 0.0
        alpha, decay = value_fn.alpha, self.gamma * self.lam
        x = self.features(value_fn, state)
        while True:
            next_state, reward, terminated, truncated, _ = self.step(self.policy(state))
            total += reward
            x_next = ([], []) if terminated else self.features(value_fn, next_state)
            value = value_fn.value(state)
            following = 0.0 if terminated else value_fn.value(next_state)
            error = reward + self.gamma * following - value
            trace.decay_and_add(decay, *x, scale=1.0 - alpha * decay * trace.dot(*x))
            value_fn.add(*trace.tensors(), alpha * (error + value - old))
            value_fn.add(torch.tensor(x[0], dtype=torch.int64), torch.tensor(x[1], dtype=torch.float64),
                         -alpha * (value - old))
            self._td_errors.append(error)
            if terminated or truncated:
                return total
            old, x, state = following, x_next, next_state

