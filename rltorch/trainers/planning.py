"""Planning with a learned model: Tabular Dyna-Q (Sutton & Barto section 8.2)."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any, ClassVar

from rltorch.options import Option
from rltorch.targets import q_learning_target
from rltorch.trainers.td import OneStepTrainer

# (S, A) -> (R, S', terminated, the legal actions in S'): the last outcome seen, as a deterministic model keeps it
Outcome = tuple[float, Hashable, bool, tuple[int, ...]]


class DynaQTrainer(OneStepTrainer):
    """Tabular Dyna-Q (section 8.2): Q-learning on each real step, then `planning_steps` updates from the model.

    The model remembers the last outcome of every (S, A) met (deterministic, as the book's box assumes; on a
    stochastic env the latest sample stands for all) with the legal actions of S', so planning can take
    max_a Q(S', a) over them. Planning draws remembered pairs uniformly with the trainer's generator from
    the list of pairs in the order they were first met. Only real steps' TD errors are logged.
    """

    algorithm = "dyna-q"
    options: ClassVar[tuple[Option, ...]] = (
        Option("planning_steps", int, 5, "Dyna-Q: planning updates from the learned model after each real step",
               minimum=0, maximum=10**5),)

    def __init__(self, *args: Any, planning_steps: int = 5, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if isinstance(planning_steps, bool) or not isinstance(planning_steps, int) or planning_steps < 0:
            raise ValueError(f"planning_steps must be an int >= 0, got {planning_steps!r}")
        self.planning_steps = planning_steps
        self.model: dict[tuple[Hashable, int], Outcome] = {}
        self.remembered: list[tuple[Hashable, int]] = []
        self.planning_updates = 0

    def learn_step(self, state: Hashable, action: int, key: Hashable, reward: float, next_state: Hashable,
                   terminated: bool, epsilon: float) -> None:
        """After (b) choosing and (c) acting: (d) direct Q-learning update, (e) model update, (f) planning."""
        next_legal = () if terminated else tuple(self.legal_actions())
        self.learn(key, self.q_target(reward, next_state, terminated, next_legal))
        self.remember(state, action, (reward, next_state, terminated, next_legal))
        self.plan()

    def q_target(self, reward: float, next_state: Hashable, terminated: bool, next_legal: Sequence[int]) -> float:
        """R + gamma max_a Q(S', a) over the legal a in S', or R at the end."""
        next_values = () if terminated else self.value_fn.values(self.keys(next_state, next_legal))
        return q_learning_target(reward, next_values, self.gamma, terminated)

    def remember(self, state: Hashable, action: int, outcome: Outcome) -> None:
        """Model(S, A) <- R, S' (a pair met for the first time joins the end of the list planning draws from)."""
        pair = (state, int(action))
        if pair not in self.model:
            self.remembered.append(pair)
        self.model[pair] = outcome

    def plan(self) -> None:
        """`planning_steps` Q-learning updates, each on a uniformly drawn remembered (S, A) and its modelled outcome."""
        remembered, model, rng, update = self.remembered, self.model, self.rng, self.value_fn.update
        for _ in range(self.planning_steps):
            state, action = remembered[rng.randrange(len(remembered))]
            reward, next_state, terminated, next_legal = model[state, action]
            update(self.keys(state, (action,))[0], self.q_target(reward, next_state, terminated, next_legal))
            self.planning_updates += 1

    def config(self) -> dict:
        """The settings, with the number of planning steps."""
        return {**super().config(), "planning_steps": self.planning_steps}

    def checkpoint(self) -> dict:
        """The base checkpoint, with the model as a list of (S, A, R, S', terminated, legal in S'), first met first."""
        model = [(state, action, *self.model[state, action]) for state, action in self.remembered]
        return {**super().checkpoint(), "dyna": {"model": model, "planning_updates": self.planning_updates}}

    def restore(self, checkpoint: dict) -> DynaQTrainer:
        """Put the base state back, then the model (in its order) and the planning count."""
        super().restore(checkpoint)
        state = checkpoint.get("dyna", {})
        self.model.clear()
        self.remembered.clear()
        for pair_state, action, reward, next_state, terminated, next_legal in state.get("model", ()):
            self.remember(pair_state, action, (reward, next_state, bool(terminated), tuple(next_legal)))
        self.planning_updates = int(state.get("planning_updates", 0))
        return self
