"""One-step lockstep kernels: SARSA, Expected SARSA and Q-learning (mixed in one batch), Double Q-learning, TD(0).

Each `step()` advances every live lane by one step of its own episode, in the order the per-step
trainer (`rltorch.trainers.td`, `rltorch.trainers.prediction`) reads values and draws numbers, so a
lane fed a trainer's draws repeats it float for float. The draws of one lane, in order:

- SARSA, Expected SARSA, Q-learning: start; epsilon, choice; then every step: transition, [start
  when the episode ended], epsilon, choice (the next action, chosen before the step's update for
  SARSA within an episode, after it otherwise, as the trainers do).
- Double Q-learning: start; then every step: epsilon, choice (on Q1 + Q2), transition, coin
  (u < 0.5 updates Q1), [tie: only when the episode goes on and several legal actions share the
  updated half's largest value in S', tie floor(u * n_ties) in action order is its argmax],
  [start when the episode ended].
- TD(0): start; then every step: action (the policy's categorical draw), transition, [start].
"""

from __future__ import annotations

import torch

from rltorch.engines.draws import DrawSource
from rltorch.engines.episodes import Lanes
from rltorch.engines.tensors import Categorical, ModelTensors, lookup, pick, sequential_sum

CONTROL_CODES = {"sarsa": 0, "expected-sarsa": 1, "qlearning": 2}


class Kernel:
    """What every lockstep kernel shares: the model, lanes, draws, step sizes, and its per-lane tensors."""

    per_lane: tuple[str, ...] = ("alpha", "state")

    def __init__(self, model: ModelTensors, lanes: Lanes, draws: DrawSource, alpha: torch.Tensor,
                 epsilon: float, gamma: float) -> None:
        self.model, self.lanes, self.draws = model, lanes, draws
        self.alpha, self.epsilon, self.gamma = alpha, epsilon, gamma
        self.state = torch.zeros(lanes.count, dtype=torch.long, device=model.device)
        self._offsets()

    def _offsets(self) -> None:
        """Row offsets of each lane in the flattened tables."""
        lanes = torch.arange(self.lanes.count, device=self.model.device)
        self.row_base = lanes * self.model.num_states
        self.pair_base = self.row_base * self.model.num_actions

    def values(self) -> torch.Tensor:
        """The live lanes' learned values (first dimension: lanes)."""
        raise NotImplementedError

    def begin(self) -> None:
        """Draw every lane's first start state (and whatever the algorithm draws before its first step)."""
        self.state = self.model.starts(self.lanes.active, self.draws)

    def step(self) -> None:
        """Advance every live lane by one step."""
        raise NotImplementedError

    def select(self, index: torch.Tensor) -> None:
        """Keep only live-lane positions `index`."""
        for name in self.per_lane:
            setattr(self, name, getattr(self, name).index_select(0, index))
        self.lanes.select(index)
        self.draws.select(index)
        self._offsets()

    def restart(self, ended: torch.Tensor, live: torch.Tensor, next_state: torch.Tensor) -> torch.Tensor:
        """The state each lane goes on from: a fresh start where its episode ended (and the lane is still live)."""
        return torch.where(ended, self.model.starts(ended & live, self.draws), next_state)


class ControlKernel(Kernel):
    """SARSA, Expected SARSA and Q-learning, lane by lane as `codes` says (see `CONTROL_CODES`), on Q [lanes, S, A]."""

    per_lane = ("alpha", "state", "action", "codes", "q")

    def __init__(self, model: ModelTensors, lanes: Lanes, draws: DrawSource, alpha: torch.Tensor, epsilon: float,
                 gamma: float, codes: torch.Tensor) -> None:
        super().__init__(model, lanes, draws, alpha, epsilon, gamma)
        self.codes = codes
        self.q = torch.zeros(self.lanes.count, model.num_states, model.num_actions, dtype=model.dtype,
                             device=model.device)
        self.action = torch.zeros_like(self.state)
        present = set(codes.unique().tolist())
        self.has_sarsa, self.has_expected, self.has_max = (code in present for code in range(3))

    def values(self) -> torch.Tensor:
        """Q [lanes, S, A]."""
        return self.q

    def begin(self) -> None:
        """Start states, then the first action of every lane."""
        super().begin()
        live = self.lanes.active
        self.action = self.model.choose(lookup(self.q, self.row_base, self.state), self.state, self.epsilon,
                                        live, self.draws)

    def step(self) -> None:
        """Take each lane's action, update its Q toward its method's target, choose the next action."""
        model, lanes, gamma = self.model, self.lanes, self.gamma
        live = lanes.active
        next_state, reward, ended = model.step(self.state, self.action, live, self.draws)
        lanes.add(reward)
        index = self.pair_base + self.state * model.num_actions + self.action
        old = self.q.view(-1).index_select(0, index)
        still_live = lanes.finish(ended)
        decision = self.restart(ended, still_live, next_state)
        rows = lookup(self.q, self.row_base, decision)  # before this step's update
        target = reward  # SARSA lanes: right only where the episode ended (the rest is fixed below)
        if self.has_expected or self.has_max:
            target = torch.where(ended, reward, reward + gamma * self.follow_value(rows, decision))
        new = old + self.alpha * (target - old)
        sees_update = decision == self.state  # the next choice reads this step's update, except SARSA's mid-episode
        if self.has_sarsa:
            sees_update &= ended | (self.codes != 0)
        patch = sees_update[:, None] & (model.actions == self.action[:, None])
        action = model.choose(torch.where(patch, new[:, None], rows), decision, self.epsilon, still_live, self.draws)
        if self.has_sarsa:
            chosen = rows.gather(1, action[:, None]).squeeze(1)
            target = torch.where(ended, reward, reward + gamma * chosen)
            sarsa = old + self.alpha * (target - old)
            new = torch.where(self.codes == 0, sarsa, new)
        self.q.view(-1).scatter_(0, index, torch.where(live, new, old))
        self.state, self.action = decision, action

    def follow_value(self, rows: torch.Tensor, states: torch.Tensor) -> torch.Tensor:
        """What Q-learning (max) and Expected SARSA (the epsilon-greedy expectation) bootstrap from in `states`."""
        best, ties, tie_count = self.model.greedy_ties(rows, states)
        if not self.has_expected:
            return best
        base = self.epsilon / self.model.legal_count.index_select(0, states)
        greedy = base + (1.0 - self.epsilon) / tie_count.to(rows.dtype)
        legal = self.model.legal.index_select(0, states)
        probabilities = torch.where(ties, greedy[:, None], torch.where(legal, base[:, None], 0.0))
        expected = sequential_sum(probabilities * rows)
        return torch.where(self.codes == 1, expected, best) if self.has_max else expected


class DoubleQKernel(Kernel):
    """Double Q-learning on Q [lanes, 2, S, A] (Q1, Q2): act on Q1 + Q2, a coin picks the half to update."""

    per_lane = ("alpha", "state", "q")

    def __init__(self, model: ModelTensors, lanes: Lanes, draws: DrawSource, alpha: torch.Tensor, epsilon: float,
                 gamma: float) -> None:
        super().__init__(model, lanes, draws, alpha, epsilon, gamma)
        self.q = torch.zeros(self.lanes.count, 2, model.num_states, model.num_actions, dtype=model.dtype,
                             device=model.device)

    def _offsets(self) -> None:
        """Row offsets of each lane's two halves."""
        super()._offsets()
        self.row_base, self.pair_base = self.row_base * 2, self.pair_base * 2

    def values(self) -> torch.Tensor:
        """Q [lanes, 2, S, A]: Q1 then Q2."""
        return self.q

    def half_rows(self, half: torch.Tensor | int, states: torch.Tensor) -> torch.Tensor:
        """Rows [lanes, A] of half `half` (0: Q1, 1: Q2) at `states`."""
        return lookup(self.q, self.row_base + half * self.model.num_states, states)

    def step(self) -> None:
        """Choose on Q1 + Q2, take the action, flip the coin, update the chosen half."""
        model, lanes = self.model, self.lanes
        live = lanes.active
        both = self.half_rows(0, self.state) + self.half_rows(1, self.state)
        action = model.choose(both, self.state, self.epsilon, live, self.draws)
        next_state, reward, ended = model.step(self.state, action, live, self.draws)
        lanes.add(reward)
        own = (self.draws.uniform(live, "coin") >= 0.5).long()  # 0: heads, Q1 is updated
        best = self.own_argmax(own, next_state, live & ~ended)
        value = self.half_rows(1 - own, next_state).gather(1, best[:, None]).squeeze(1)
        target = torch.where(ended, reward, reward + self.gamma * value)
        index = self.pair_base + own * (model.num_states * model.num_actions) + self.state * model.num_actions + action
        old = self.q.view(-1).index_select(0, index)
        self.q.view(-1).scatter_(0, index, torch.where(live, old + self.alpha * (target - old), old))
        self.state = self.restart(ended, lanes.finish(ended), next_state)

    def own_argmax(self, own: torch.Tensor, states: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """argmax_a of half `own` in `states` over the legal a, ties broken by a draw (only where `mask` and tied)."""
        _, ties, tie_count = self.model.greedy_ties(self.half_rows(own, states), states)
        u = self.draws.uniform(mask & (tie_count > 1), "tie")
        return pick(ties, torch.floor(u * tie_count.to(u.dtype)).long())


class PredictionKernel(Kernel):
    """TD(0) prediction of a stochastic policy `pi` [S, A] on V [lanes, S]."""

    per_lane = ("alpha", "state", "v")

    def __init__(self, model: ModelTensors, lanes: Lanes, draws: DrawSource, alpha: torch.Tensor, epsilon: float,
                 gamma: float, policy: torch.Tensor) -> None:
        super().__init__(model, lanes, draws, alpha, epsilon, gamma)
        self.policy = Categorical.of(policy.detach().cpu().double().numpy(), model.device)
        self.v = torch.zeros(self.lanes.count, model.num_states, dtype=model.dtype, device=model.device)

    def values(self) -> torch.Tensor:
        """V [lanes, S]."""
        return self.v

    def step(self) -> None:
        """Act by the policy, take the step, move V(S) toward R + gamma V(S')."""
        model, lanes = self.model, self.lanes
        live = lanes.active
        action = self.policy.sample(self.state, live, self.draws, "action")
        next_state, reward, ended = model.step(self.state, action, live, self.draws)
        lanes.add(reward)
        flat = self.v.view(-1)
        old = flat.index_select(0, self.row_base + self.state)
        following = flat.index_select(0, self.row_base + next_state)
        target = torch.where(ended, reward, reward + self.gamma * following)
        flat.scatter_(0, self.row_base + self.state, torch.where(live, old + self.alpha * (target - old), old))
        self.state = self.restart(ended, lanes.finish(ended), next_state)
