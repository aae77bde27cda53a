"""Control with eligibility traces (Sutton & Barto chapter 12): SARSA(λ) and true online SARSA(λ), linear q̂.

The trace z is a vector over the value function's weights, kept sparse (`SparseTrace`: only the weights a
step has touched this episode, tile coding's few of thousands). A table with a constant step is the linear
case with one-hot features (`OneHotKeys`), so the same trainers learn tables too. The value function gives the gradient
(`gradient(key)`: flat weight indices and values) and takes the step (`add(indices, values, scale)`); the
trainer computes the TD error from `rltorch.targets` and owns the trace. Traces start at zero with every
episode, so a checkpoint between episodes holds everything a resumed run needs.
"""

from __future__ import annotations

from typing import Any, ClassVar

import torch

from rltorch.options import Option
from rltorch.targets import sarsa_target
from rltorch.trainers.base import Trainer

TRACES = ("accumulating", "replacing", "clearing")
LAMBDA = Option("lam", float, 0.9, "SARSA(lambda), TD(lambda), the lambda-return: the trace decay lambda",
                minimum=0, maximum=1, spelling="--lambda")


class SparseTrace:
    """An eligibility trace over flat weight indices: the indices touched so far (first-touch order) and their z."""

    def __init__(self) -> None:
        self.position: dict[int, int] = {}
        self.indices = torch.empty(0, dtype=torch.int64)
        self.z = torch.empty(0, dtype=torch.float64)

    def rows(self, indices: torch.Tensor) -> torch.Tensor:
        """The positions of `indices` in the trace, appending those not there yet (with z = 0)."""
        fresh = [index for index in dict.fromkeys(indices.tolist()) if index not in self.position]
        if fresh:
            for index in fresh:
                self.position[index] = len(self.position)
            self.indices = torch.cat([self.indices, torch.tensor(fresh, dtype=torch.int64)])
            self.z = torch.cat([self.z, torch.zeros(len(fresh), dtype=torch.float64)])
        return torch.tensor([self.position[index] for index in indices.tolist()], dtype=torch.int64)

    def dot(self, indices: torch.Tensor, values: torch.Tensor) -> float:
        """zᵀx for x given by its non-zero part, summed left to right."""
        total = 0.0
        for row, value in zip(self.rows(indices).tolist(), values.tolist(), strict=True):
            total += float(self.z[row]) * value
        return total


class OneHotKeys:
    """A table with a constant step read as a linear function of one-hot features: one weight per key.

    Keys get flat indices in the order this episode first asks for them; `add` moves each key's entry by
    `scale * value` through the table's own update (target = entry + scale * value / alpha).
    """

    def __init__(self, table: Any) -> None:
        self.table, self.alpha = table, table.alpha
        self.index: dict[Any, int] = {}
        self.keys: list[Any] = []

    def gradient(self, key: Any) -> tuple[torch.Tensor, torch.Tensor]:
        """The key's own weight, with gradient 1."""
        if key not in self.index:
            self.index[key] = len(self.keys)
            self.keys.append(key)
        return torch.tensor([self.index[key]]), torch.ones(1, dtype=torch.float64)

    def value(self, key: Any) -> float:
        """The table's entry."""
        return self.table.value(key)

    def add(self, indices: torch.Tensor, values: torch.Tensor, scale: float) -> None:
        """Each listed key's entry += scale * value."""
        for index, value in zip(indices.tolist(), values.tolist(), strict=True):
            key = self.keys[index]
            self.table.update(key, self.table.value(key) + scale * value / self.alpha)


def trace_weights(value_fn: Any, algorithm: str) -> Any:
    """The value function's gradient-step interface (`gradient`, `add`): its own, or a constant-step table's one-hot.

    A network, or a table that averages (alpha None), is refused with ValueError.
    """
    if callable(getattr(value_fn, "gradient", None)) and callable(getattr(value_fn, "add", None)):
        return value_fn
    if isinstance(getattr(value_fn, "alpha", None), float) and callable(getattr(value_fn, "update", None)):
        return OneHotKeys(value_fn)
    raise ValueError(f"{algorithm} keeps a trace over the weights of a linear value function or a table with a "
                     "constant step: use --value-fn table, tiles, aggregation, polynomial or fourier")


def checked_lambda(lam: float) -> float:
    """λ as a float; ValueError unless it is in [0, 1]."""
    if not 0.0 <= lam <= 1.0:
        raise ValueError(f"lambda must be in [0, 1], got {lam}")
    return float(lam)


def _lambda(trainer: Trainer, lam: float) -> float:
    """Check that `trainer` can keep a trace (`trace_weights`) and that λ is in [0, 1]; λ as a float."""
    trace_weights(trainer.value_fn, trainer.algorithm)
    return checked_lambda(lam)


def _start(trainer: Trainer, epsilon: float) -> tuple[Any, Any, Any, Any]:
    """An episode's start: the weights' interface afresh, the reset, A_0 chosen; (value_fn, state, action, key)."""
    value_fn = trace_weights(trainer.value_fn, trainer.algorithm)  # a table's one-hot indices start afresh each episode
    state, _ = trainer.env.reset()
    action, key = trainer.choose(state, epsilon)
    return value_fn, state, action, key


class SARSALambdaTrainer(Trainer):
    """SARSA(λ) (section 12.7): δ = R + γ q̂(S', A') − q̂(S, A), z ← γλz + ∇q̂ (or 1 on the active features), w += αδz.

    `trace="accumulating"` adds ∇q̂(S, A) to the trace; `"replacing"` sets the trace of each feature active in
    (S, A) to its value (1 for binary features); `"clearing"` replaces, and first sets to 0 the traces of the
    features of S with the actions not taken (Figure 12.11's fourth method).
    """

    algorithm = "sarsa-lambda"
    keeps_traces = True

    options: ClassVar[tuple[Option, ...]] = (LAMBDA, Option(
        "trace", str, "accumulating", "SARSA(lambda): add the gradient to the trace, set active features' "
        "traces to 1, or also clear the traces of the state's other actions", choices=TRACES))

    def __init__(self, *args: Any, lam: float = 0.9, trace: str = "accumulating", **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        lam = _lambda(self, lam)
        if trace not in TRACES:
            raise ValueError(f"trace must be one of {', '.join(TRACES)}, got {trace!r}")
        self.lam, self.trace = lam, trace

    def run_episode(self, epsilon: float) -> float:
        """Play one episode in the book's order: choose A' in S', then update every traced weight."""
        value_fn, state, action, key = _start(self, epsilon)
        gamma, alpha, decay, trace = self.gamma, value_fn.alpha, self.gamma * self.lam, SparseTrace()
        total = 0.0
        while True:
            if self.trace == "clearing":
                self._clear_other_actions(value_fn, trace, state, action)
            state, reward, terminated, truncated, _ = self.step(action)
            total += reward
            indices, values = value_fn.gradient(key)
            rows = trace.rows(indices)
            if self.trace == "accumulating":
                trace.z.index_add_(0, rows, values)
            else:
                trace.z[rows] = values
            value = value_fn.value(key)
            next_value, next_key = 0.0, None
            if not terminated:
                action, next_key = self.choose(state, epsilon)
                next_value = value_fn.value(next_key)
            delta = sarsa_target(reward, next_value, gamma, terminated) - value
            self._td_errors.append(delta)
            value_fn.add(trace.indices, trace.z, alpha * delta)
            if terminated or truncated:
                return total
            trace.z.mul_(decay)
            key = next_key

    def _clear_other_actions(self, value_fn: Any, trace: SparseTrace, state: Any, action: int) -> None:
        """Set to 0 the traces of the features of (S, a) for every legal a other than A (those already traced)."""
        others = [other for other in self.legal_actions() if other != action]
        for other_key in self.keys(state, others):
            for index in value_fn.gradient(other_key)[0].tolist():
                row = trace.position.get(index)
                if row is not None:
                    trace.z[row] = 0.0

    def config(self) -> dict[str, Any]:
        """The settings, with λ and the kind of trace."""
        return {**super().config(), "lam": self.lam, "trace": self.trace}


class TrueOnlineSARSALambdaTrainer(Trainer):
    """True online SARSA(λ) (section 12.8): the dutch trace z ← γλz + (1 − αγλ zᵀx) x and the book's two-part step.

    w += α(δ + Q − Q_old) z − α(Q − Q_old) x, with Q = q̂(S, A) and Q_old the previous step's q̂(S', A').
    """

    algorithm = "true-online-sarsa-lambda"
    keeps_traces = True

    options: ClassVar[tuple[Option, ...]] = (LAMBDA,)

    def __init__(self, *args: Any, lam: float = 0.9, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.lam = _lambda(self, lam)

    def run_episode(self, epsilon: float) -> float:
        """Play one episode in the book's order."""
        value_fn, _, action, key = _start(self, epsilon)
        gamma, alpha, decay, trace, old = self.gamma, value_fn.alpha, self.gamma * self.lam, SparseTrace(), 0.0
        total = 0.0
        while True:
            state, reward, terminated, truncated, _ = self.step(action)
            total += reward
            next_value, next_key = 0.0, None
            if not terminated:
                action, next_key = self.choose(state, epsilon)
                next_value = value_fn.value(next_key)
            value = value_fn.value(key)
            delta = sarsa_target(reward, next_value, gamma, terminated) - value
            self._td_errors.append(delta)
            indices, values = value_fn.gradient(key)
            shrink = 1.0 - alpha * decay * trace.dot(indices, values)
            trace.z.mul_(decay)
            trace.z.index_add_(0, trace.rows(indices), values, alpha=shrink)
            value_fn.add(trace.indices, trace.z, alpha * (delta + value - old))
            value_fn.add(indices, values, -alpha * (value - old))
            if terminated or truncated:
                return total
            old, key = next_value, next_key

    def config(self) -> dict[str, Any]:
        """The settings, with λ."""
        return {**super().config(), "lam": self.lam}
