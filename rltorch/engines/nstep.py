"""n-step SARSA in lockstep (Sutton & Barto section 7.2), in `rltorch.trainers.nstep`'s order.

Each lane keeps its episode's last n + 1 states, actions and rewards in ring buffers (index t mod
n + 1), its time t and its end T. One lockstep iteration does, per lane, what one pass of the
trainer's loop does: (a lane that finished an episode first starts the next: start state, A_0);
while t < T take A_t, observe R_{t+1}, S_{t+1} (T = t + 1 at the end) and choose A_{t+1}; then
for tau = t - n + 1 >= 0 move Q(S_tau, A_tau) toward R_{tau+1} + ... + gamma^(h-tau-1) R_h +
gamma^(h-tau) Q(S_h, A_h) (h = min(tau + n, T), no last term when h = T), summed from the end as
`n_step_return` does; the episode ends after tau = T - 1. A lane's draws, in order: start, epsilon,
choice (A_0); then for every step: transition, and epsilon, choice (A_{t+1}) unless it ended.
"""

from __future__ import annotations

import torch

from rltorch.engines.draws import DrawSource
from rltorch.engines.episodes import Lanes
from rltorch.engines.onestep import Kernel
from rltorch.engines.tensors import ModelTensors, lookup

NEVER = 1 << 62  # T before the episode's end is known


class NStepSARSAKernel(Kernel):
    """n-step SARSA on Q [lanes, S, A] (see module)."""

    per_lane = ("alpha", "state", "q", "time", "end", "fresh", "states", "actions", "rewards")

    def __init__(self, model: ModelTensors, lanes: Lanes, draws: DrawSource, alpha: torch.Tensor, epsilon: float,
                 gamma: float, n: int) -> None:
        super().__init__(model, lanes, draws, alpha, epsilon, gamma)
        count, device = lanes.count, model.device
        self.n = n
        self.q = torch.zeros(count, model.num_states, model.num_actions, dtype=model.dtype, device=device)
        self.time = torch.zeros(count, dtype=torch.long, device=device)
        self.end = torch.full((count,), NEVER, dtype=torch.long, device=device)
        self.fresh = torch.ones(count, dtype=torch.bool, device=device)  # the lane starts an episode next
        self.states = torch.zeros(count, n + 1, dtype=torch.long, device=device)
        self.actions = torch.zeros(count, n + 1, dtype=torch.long, device=device)
        self.rewards = torch.zeros(count, n + 1, dtype=model.dtype, device=device)

    def values(self) -> torch.Tensor:
        """Q [lanes, S, A]."""
        return self.q

    def begin(self) -> None:
        """Nothing: a lane draws its start state in its first step."""

    def step(self) -> None:
        """One pass of the trainer's loop in every live lane: start if fresh, act if t < T, update tau."""
        live = self.lanes.active
        self._start(self.fresh & live)
        self._act(live & (self.time < self.end))
        tau = self.time - self.n + 1
        updating = live & (tau >= 0)
        self._update(tau, updating)
        finishing = updating & (tau == self.end - 1)
        self.fresh = finishing & self.lanes.finish(finishing)
        self.time = torch.where(finishing, self.time, self.time + 1)

    def _slot(self, buffer: torch.Tensor, time: torch.Tensor) -> torch.Tensor:
        """buffer[lane, time mod (n + 1)]."""
        return buffer.gather(1, (time % (self.n + 1))[:, None]).squeeze(1)

    def _store(self, buffer: torch.Tensor, time: torch.Tensor, values: torch.Tensor, mask: torch.Tensor) -> None:
        """buffer[lane, time mod (n + 1)] = values where `mask`."""
        slots = (time % (self.n + 1))[:, None]
        buffer.scatter_(1, slots, torch.where(mask, values, buffer.gather(1, slots).squeeze(1))[:, None])

    def _start(self, starting: torch.Tensor) -> None:
        """Lanes `starting` begin an episode: S_0 and A_0, t = 0, T unknown."""
        state = self.model.starts(starting, self.draws)
        action = self.model.choose(lookup(self.q, self.row_base, state), state, self.epsilon, starting, self.draws)
        zero = torch.zeros_like(self.time)
        self._store(self.states, zero, state, starting)
        self._store(self.actions, zero, action, starting)
        self.state = torch.where(starting, state, self.state)
        self.time = torch.where(starting, zero, self.time)
        self.end = torch.where(starting, NEVER, self.end)

    def _act(self, acting: torch.Tensor) -> None:
        """Lanes `acting` take A_t, observe R_{t+1} and S_{t+1}, and choose A_{t+1} unless the episode ended."""
        model = self.model
        action = self._slot(self.actions, self.time)
        next_state, reward, ended = model.step(self.state, action, acting, self.draws)
        self.lanes.add(reward, acting)
        after = self.time + 1
        self._store(self.rewards, after, reward, acting)
        self._store(self.states, after, next_state, acting)
        self.end = torch.where(acting & ended, after, self.end)
        choosing = acting & ~ended
        rows = lookup(self.q, self.row_base, next_state)
        self._store(self.actions, after, model.choose(rows, next_state, self.epsilon, choosing, self.draws), choosing)
        self.state = torch.where(acting, next_state, self.state)

    def _update(self, tau: torch.Tensor, updating: torch.Tensor) -> None:
        """Move Q(S_tau, A_tau) toward the n-step return in lanes `updating`."""
        model, flat = self.model, self.q.view(-1)
        horizon = torch.minimum(tau + self.n, self.end)
        bootstrap = self.pair_base + self._slot(self.states, horizon) * model.num_actions + self._slot(
            self.actions, horizon)
        following = torch.where(horizon < self.end, flat.index_select(0, bootstrap), 0.0)
        for offset in range(self.n, 0, -1):
            reward = self._slot(self.rewards, tau + offset)
            following = torch.where(tau + offset <= horizon, reward + self.gamma * following, following)
        index = self.pair_base + self._slot(self.states, tau) * model.num_actions + self._slot(self.actions, tau)
        old = flat.index_select(0, index)
        flat.scatter_(0, index, torch.where(updating, old + self.alpha * (following - old), old))
