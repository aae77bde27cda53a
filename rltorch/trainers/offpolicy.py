"""Off-policy Monte Carlo with importance sampling: prediction (ordinary or weighted) and control (weighted)."""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Any

from rltorch.agents import PolicyAgent
from rltorch.importance import epsilon_greedy_probability, ratios_to_end
from rltorch.policies import greedy
from rltorch.targets import monte_carlo_returns
from rltorch.trainers.mc import MCTrainer


@dataclass
class BehaviourEpisode:
    """One episode of the behaviour policy: per step the state, its legal actions, the action, its key,
    the behaviour's probability of that action, and the reward that followed."""

    states: list[Hashable] = field(default_factory=list)
    legal: list[list[int]] = field(default_factory=list)
    actions: list[int] = field(default_factory=list)
    keys: list[Hashable] = field(default_factory=list)
    probabilities: list[float] = field(default_factory=list)
    rewards: list[float] = field(default_factory=list)


class OffPolicyMCTrainer(MCTrainer):
    """Monte Carlo from episodes of a behaviour policy b, corrected toward a target policy pi by importance sampling.

    - Prediction (`target_policy=...`): b is uniformly random; V(S_t), keyed by states, moves toward G_t
      with the weight rho_{t:T-1} (Sutton & Barto, section 5.5). Ordinary importance sampling
      (`weighted=False`) is the sample average of the targets W * G (use a table with `alpha=None`);
      weighted importance sampling is the weighted average of G with weights W (a value function with
      `update_weighted`, from `rltorch.values.weighted`).
    - Control (no target policy; section 5.7): b is epsilon-greedy on Q (epsilon from the schedule;
      1: uniformly random), pi is greedy on Q (first best action among ties). Backward through the
      episode: Q(S_t, A_t) moves toward G_t with weight W (`update_weighted`); the loop stops where A_t
      is not pi's action, else W <- W / b(A_t | S_t).
    Every visit counts, as in the book's off-policy algorithms.
    """

    algorithm = "mc-offpolicy"

    def __init__(
        self, *args: Any, target_policy: Callable[[Hashable], int] | None = None, weighted: bool = True, **kwargs: Any
    ) -> None:
        super().__init__(*args, first_visit=False, **kwargs)
        self.target_policy = target_policy
        self.weighted = weighted
        if weighted and "update_weighted" not in dir(self.value_fn):
            raise ValueError("weighted importance sampling needs a value function with update_weighted "
                             "(it keeps the cumulative weights C)")
        if target_policy is None and not weighted:
            raise ValueError("off-policy control uses weighted importance sampling; give weighted=True")
        if self.policy is not None:
            raise ValueError("off-policy trainers follow the behaviour policy; give the evaluated one as target_policy")

    def run_episode(self, epsilon: float) -> float:
        """Generate one behaviour episode, then update backward from its end."""
        episode = self.behaviour_episode(1.0 if self.target_policy is not None else epsilon)
        if self.target_policy is not None:
            self.update_prediction(episode)
        else:
            self.update_control(episode)
        return sum(episode.rewards)

    def uses_epsilon(self) -> bool:
        """Control's behaviour is epsilon-greedy; prediction's is uniformly random."""
        return self.target_policy is None

    def behaviour_episode(self, epsilon: float) -> BehaviourEpisode:
        """Play one episode epsilon-greedily on Q (epsilon 1: uniformly random), recording b's probabilities."""
        env, episode = self.env, BehaviourEpisode()
        state, done = self.start_episode(), False
        while not done:
            legal = self.legal_actions()
            action, key = self.choose(state, epsilon)
            if epsilon >= 1.0:
                probability = 1.0 / len(legal)
            else:
                probability = epsilon_greedy_probability(self.state_values(state), legal.index(action), epsilon)
            episode.states.append(state)
            episode.legal.append(legal)
            episode.actions.append(action)
            episode.keys.append(key)
            episode.probabilities.append(probability)
            state, reward, terminated, truncated, _ = env.step(action)
            episode.rewards.append(reward)
            done = terminated or truncated
        return episode

    def update_prediction(self, episode: BehaviourEpisode) -> None:
        """Move V(S_t) toward G_t with weight rho_{t:T-1}: W * G as a sample (ordinary) or G with weight W."""
        target = self.target_policy
        target_probabilities = [float(target(s) == a) for s, a in zip(episode.states, episode.actions)]
        weights = ratios_to_end(target_probabilities, episode.probabilities)
        returns = monte_carlo_returns(episode.rewards, self.gamma)
        for state, weight, episode_return in zip(episode.states, weights, returns):
            if self.weighted:
                self.learn_weighted(state, episode_return, weight)
            else:
                self.learn(state, weight * episode_return)

    def update_control(self, episode: BehaviourEpisode) -> None:
        """The book's backward loop: update Q(S_t, A_t) with weight W, stop off pi's path, else W /= b."""
        following, weight = 0.0, 1.0
        for t in range(len(episode.rewards) - 1, -1, -1):
            following = self.gamma * following + episode.rewards[t]
            self.learn_weighted(episode.keys[t], following, weight)
            legal = episode.legal[t]
            if episode.actions[t] != legal[greedy(self.value_fn.values(self.keys(episode.states[t], legal)))]:
                return
            weight /= episode.probabilities[t]

    def learn_weighted(self, key: Hashable, target: float, weight: float) -> None:
        """Move `key` toward `target` with importance weight `weight`; record the error."""
        self._td_errors.append(self.value_fn.update_weighted(key, target, weight))

    def agent(self) -> Any:
        """The target policy with its values (prediction), or the greedy agent over Q (control)."""
        if self.target_policy is not None:
            return PolicyAgent(self.target_policy, self.value_fn)
        return super().agent()

    def config(self) -> dict:
        """The settings, with the importance-sampling kind and the target."""
        config = {**super().config(), "importance_sampling": "weighted" if self.weighted else "ordinary"}
        config["target_policy"] = repr(self.target_policy) if self.target_policy is not None else "greedy on Q"
        return config
