"""Off-policy Monte Carlo with importance sampling: prediction (ordinary or weighted) and control (weighted)."""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Any

from rltorch.agents import PolicyAgent
from rltorch.importance import epsilon_greedy_probability, ratios_to_end
from rltorch.policies import greedy
from rltorch.targets import monte_carlo_returns
from rltorch.trainers.mc import MonteCarloTrainer


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


class OffPolicyMonteCarlo(MonteCarloTrainer):
    """The shared core of off-policy Monte Carlo: behaviour episodes with b's probabilities, and weighted updates.

    Every visit counts, as in the book's off-policy algorithms (section 5.5 onward).
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, first_visit=False, **kwargs)

    def behaviour_episode(self, epsilon: float) -> BehaviourEpisode:
        """Play one episode epsilon-greedily on Q (epsilon 1: uniformly random), recording b's probabilities."""
        episode = BehaviourEpisode()
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
            state, reward, terminated, truncated, _ = self.step(action)
            episode.rewards.append(reward)
            done = terminated or truncated
        return episode

    def learn_weighted(self, key: Hashable, target: float, weight: float) -> None:
        """Move `key` toward `target` with importance weight `weight`; record the error."""
        self._td_errors.append(self.value_fn.update_weighted(key, target, weight))


class OffPolicyMCPrediction(OffPolicyMonteCarlo):
    """V of a target policy from uniformly random behaviour, by importance sampling (section 5.5).

    V(S_t), keyed by states, moves toward G_t with the weight rho_{t:T-1}. Ordinary importance
    sampling (`weighted=False`) is the sample average of the targets W * G (use a table with
    `alpha=None`); weighted importance sampling is the weighted average of G with weights W (a value
    function with `update_weighted`, from `rltorch.values.weighted`).
    """

    algorithm = "mc-offpolicy-prediction"

    def __init__(self, *args: Any, target_policy: Callable[[Hashable], int], weighted: bool = True,
                 **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.target_policy = target_policy
        self.weighted = weighted
        if weighted and "update_weighted" not in dir(self.value_fn):
            raise ValueError("weighted importance sampling needs a value function with update_weighted "
                             "(it keeps the cumulative weights C)")

    def run_episode(self, epsilon: float) -> float:
        """One uniformly random behaviour episode, then the update."""
        episode = self.behaviour_episode(1.0)
        self.update_prediction(episode)
        return sum(episode.rewards)

    def update_prediction(self, episode: BehaviourEpisode) -> None:
        """V(S_t) moves toward G_t with weight rho_{t:T-1}: W * G as a sample (ordinary) or G with weight W."""
        target = self.target_policy
        target_probabilities = [float(target(s) == a) for s, a in zip(episode.states, episode.actions, strict=True)]
        weights = ratios_to_end(target_probabilities, episode.probabilities)
        returns = monte_carlo_returns(episode.rewards, self.gamma)
        for state, weight, episode_return in zip(episode.states, weights, returns, strict=True):
            if self.weighted:
                self.learn_weighted(state, episode_return, weight)
            else:
                self.learn(state, weight * episode_return)

    def uses_epsilon(self) -> bool:
        """The behaviour is uniformly random: no epsilon."""
        return False

    def agent(self) -> Any:
        """The target policy with its values."""
        return PolicyAgent(self.target_policy, self.value_fn)

    def config(self) -> dict:
        """The settings, with the importance-sampling kind and the target."""
        kind = "weighted" if self.weighted else "ordinary"
        return {**super().config(), "importance_sampling": kind, "target_policy": repr(self.target_policy)}


class OffPolicyMCControl(OffPolicyMonteCarlo):
    """Off-policy MC control (section 5.7): weighted importance sampling toward the greedy policy on Q.

    The behaviour b is epsilon-greedy on Q (epsilon from the schedule; 1: uniformly random); pi is
    greedy on Q (first best action among ties). Backward through the episode: Q(S_t, A_t) moves
    toward G_t with weight W (`update_weighted`); the loop stops where A_t is not pi's action, else
    W <- W / b(A_t | S_t). pi breaks ties by the first index on purpose: the book's box breaks them
    "consistently", and W's update (pi(A_t | S_t) = 1) needs a deterministic pi; b's ties break at
    random (it acts through `choose`), and its recorded b(A_t | S_t) shares the greedy mass among them.
    """

    algorithm = "mc-offpolicy"
    weighted_updates = True  # the value function keeps the cumulative importance weights C (step W / C)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if "update_weighted" not in dir(self.value_fn):
            raise ValueError("off-policy control needs a value function with update_weighted (a WeightedQTable)")

    def run_episode(self, epsilon: float) -> float:
        """One behaviour episode, then the book's backward loop."""
        episode = self.behaviour_episode(epsilon)
        self.update_control(episode)
        return sum(episode.rewards)

    def update_control(self, episode: BehaviourEpisode) -> None:
        """Update Q(S_t, A_t) with weight W backward from the end; stop off pi's path, else W /= b."""
        following, weight = 0.0, 1.0
        for t in range(len(episode.rewards) - 1, -1, -1):
            following = self.gamma * following + episode.rewards[t]
            self.learn_weighted(episode.keys[t], following, weight)
            legal = episode.legal[t]
            if episode.actions[t] != legal[greedy(self.value_fn.values(self.keys(episode.states[t], legal)))]:
                break
            weight /= episode.probabilities[t]

    def config(self) -> dict:
        """The settings, with the importance-sampling kind."""
        return {**super().config(), "importance_sampling": "weighted", "target_policy": "greedy on Q"}
