"""The trainer base class: the episode loop, evaluation, logging, checkpoints and progress."""

from __future__ import annotations

import copy
import random
from collections.abc import Callable, Hashable, Sequence
from math import isfinite
from typing import Any, ClassVar

import gymnasium as gym

from rltorch.agents import GreedyAgent
from rltorch.callbacks import Callback, Evaluation, FunctionCallback, ProgressBar
from rltorch.errors import BadTransition
from rltorch.keys import StateActionKeys
from rltorch.logger import NullLogger
from rltorch.options import Option, declared_values
from rltorch.policies import ExponentialSchedule, Schedule, greedy
from rltorch.trainers.saving import Checkpointing
from rltorch.trainers.stats import Block, EpisodeStats, Outcomes, play_greedy
from rltorch.values.base import ValueFunction


class Trainer(Checkpointing):
    """Runs episodes of one algorithm on a Gymnasium env (with `legal_actions()` where not every action is legal).

    Subclasses implement `run_episode(epsilon)` in the order the book's pseudo-code reads; they
    call `choose` to act, `step` to move the env, and `learn` to move the value function toward a target.
    """

    algorithm = "trainer"
    options: ClassVar[tuple[Option, ...]] = ()  # the algorithm's own settings: constructor keywords, and flags

    @classmethod
    def arguments(cls, settings: dict[str, Any], env: gym.Env) -> dict[str, Any]:
        """The constructor keywords of the declared options' values in `settings` (ValueError if they clash)."""
        return declared_values(cls.options, settings)

    weighted_updates: ClassVar[bool] = False  # needs a value function with `update_weighted` (a weighted table)
    # learns v̂(s) of a fixed policy, keyed by the states: no greedy policy, so evaluations log the exact figures
    predicts_state_values: ClassVar[bool] = False
    keeps_traces: ClassVar[bool] = False  # an eligibility trace over the weights: a linear function or a table

    @classmethod
    def step_size(cls, alpha: float, settings: dict[str, Any]) -> float | None:
        """The table's step size for `--alpha` and the declared options' values (None: sample averages)."""
        return alpha

    def __init__(
        self,
        env: gym.Env,
        value_fn: ValueFunction,
        keys: Callable[[Hashable, list[int]], list[Hashable]] | None = None,
        gamma: float = 0.9,
        schedule: Schedule | None = None,
        seed: int = 0,
        logger: Any = None,
        eval_env: gym.Env | None = None,
        exact_eval: Callable[[Any], dict[str, float]] | None = None,
    ) -> None:
        if not 0.0 <= gamma <= 1.0:
            raise ValueError(f"gamma must be in [0, 1], got {gamma}")
        self.env = env
        self.value_fn = value_fn
        self.keys = keys if keys is not None else StateActionKeys()
        self.gamma = gamma
        self.schedule = schedule if schedule is not None else ExponentialSchedule()
        self.seed = seed
        self.rng = random.Random(seed)
        self.logger = logger if logger is not None else NullLogger()
        self.eval_env = eval_env if eval_env is not None else copy.deepcopy(env)
        self.exact_eval = exact_eval
        self.is_game = bool(getattr(env.unwrapped, "is_game", False))
        self.episodes_done = 0
        self.steps_done = 0
        self.env_id: str | None = None  # the id the env was made from, when it differs from its spec's (module:Id)
        self.stop_requested = False  # set (e.g. by a signal handler) to stop at the next episode boundary
        self.legal_actions = legal_actions_of(env)
        self._set_block(Block.empty(self.is_game))
        self._episode_start = 0  # steps_done when the current episode began
        self._callbacks: list[Callback] = []  # those of the `train` call under way
        self._stop_from_eval = False
        self.last_block: dict[str, float] = {}  # the means of the last logged block
        env.reset(seed=seed)
        self.eval_env.reset(seed=seed + 1)

    # --- what subclasses use -------------------------------------------------------------
    def run_episode(self, epsilon: float) -> float:
        """Play and learn from one episode; return its undiscounted return."""
        raise NotImplementedError

    def step(self, action: int) -> tuple[Any, float, bool, bool, dict]:
        """Take `action` in the training env (and count the step); every transition a trainer learns from passes here.

        A reward that is not a finite number, or an observation that cannot be a key (unhashable), raises
        `BadTransition` before anything learns from it.
        """
        self.steps_done += 1
        result = self.env.step(action)
        try:
            finite = isfinite(result[1])
        except TypeError:
            finite = False
        if not finite:
            raise self._bad_transition(result[1])
        try:
            hash(result[0])
        except TypeError:
            raise self._bad_transition(result[1], f"returned an unhashable observation ({type(result[0]).__name__})",
                                       "tabular keys need hashable observations") from None
        return result

    def _bad_transition(self, reward: Any, *problem: str) -> BadTransition:
        """The error for the step just taken (see `BadTransition`): the problem and the rule it breaks."""
        return BadTransition(self.env_name(), self.episodes_done + 1, self.steps_done - self._episode_start, reward,
                             *problem)

    def env_name(self) -> str:
        """The training env's id (its class name when it has none), as messages name it."""
        spec = self.env.spec
        return self.env_id or (spec.id if spec is not None else type(self.env.unwrapped).__name__)

    def choose(self, state: Hashable, epsilon: float) -> tuple[int, Hashable]:
        """Pick an action epsilon-greedily; return it and its key.

        This is `rltorch.policies.epsilon_greedy` (same draws from the same generator), reading
        the values only when it exploits.
        """
        legal, rng = self.legal_actions(), self.rng
        if not legal:
            raise self._bad_transition(None, "offers no legal action", "a state that goes on needs an action")
        if rng.random() < epsilon:
            action = legal[rng.randrange(len(legal))]
            return action, self.keys(state, (action,))[0]
        keys = self.keys(state, legal)
        index = greedy(self.value_fn.values(keys), rng)
        return legal[index], keys[index]

    def choose_among(self, legal: list[int], keys: list[Hashable], epsilon: float) -> tuple[int, Hashable]:
        """`choose` for a caller that already holds the state's legal actions and their keys (same draws)."""
        rng = self.rng
        index = rng.randrange(len(legal)) if rng.random() < epsilon else greedy(self.value_fn.values(keys), rng)
        return legal[index], keys[index]

    def uses_epsilon(self) -> bool:
        """Whether the schedule's epsilon drives the actions (and so is logged); a fixed policy's trainer says no."""
        return True

    def state_values(self, state: Hashable) -> list[float]:
        """The values of the keys of every legal action in `state`."""
        return self.value_fn.values(self.keys(state, self.legal_actions()))

    def learn(self, key: Hashable, target: float) -> None:
        """Move `key` toward `target` and record the TD error for logging."""
        self._td_errors.append(self.value_fn.update(key, target))

    # --- the loop --------------------------------------------------------------------------
    def train(
        self,
        episodes: int,
        *,
        log_every: int = 100,
        eval_every: int = 5000,
        eval_games: int = 500,
        progress: bool = True,
        callback: Callable[[Trainer], bool | None] | None = None,
        callbacks: Sequence[Callback] = (),
    ) -> Trainer:
        """Run `episodes` more episodes, logging blocks and calling callbacks on a schedule counted from episode 0.

        The means of a block are logged at every multiple of `log_every` (and at the last episode asked for).
        The callbacks (`rltorch.callbacks`) are, in order: an `Evaluation` every `eval_every` episodes (0:
        none) of `eval_games` games, a `ProgressBar` when `progress`, `callback(trainer)` at every logged block,
        then `callbacks`; any returning False stops. A stop request (`stop_requested`, set by a signal handler)
        ends training at the next episode boundary without logging the unfinished block: its sums stay in the
        trainer and its checkpoint, so a resumed run logs what a straight run logs, at the same episodes.
        """
        if episodes < 0 or log_every < 1 or eval_every < 0:
            raise ValueError("episodes must be >= 0, log_every >= 1 and eval_every >= 0")
        self._callbacks = [*([Evaluation(eval_every, eval_games)] if eval_every else []),
                           *([ProgressBar()] if progress else []),
                           *([FunctionCallback(callback)] if callback is not None else []), *callbacks]
        end, self._stop_from_eval = self.episodes_done + episodes, False
        for each in self._callbacks:
            each.on_start(self, end)
        try:
            self._loop(end, log_every)
        finally:
            for each in self._callbacks:
                each.on_end(self)
            self._callbacks = []
        return self

    def _loop(self, end: int, log_every: int) -> None:
        """Run blocks up to `end`, stopping at every boundary of the block schedule and the callbacks."""
        everies = [log_every, *(each.every for each in self._callbacks if each.every)]
        while self.episodes_done < end:
            boundary = min(end, *(_next_multiple(self.episodes_done, every) for every in everies))
            self._run_block(boundary)
            if self.episodes_done < boundary:
                return  # stopped inside a block
            if not self._boundary(end, log_every) or self.stop_requested:
                return

    def _boundary(self, end: int, log_every: int) -> bool:
        """Log the block where the schedule says, then call the callbacks due here; whether training goes on."""
        done = self.episodes_done
        logged = done % log_every == 0 or done == end
        if logged:
            self._log_block()
        go_on = True
        for each in self._callbacks:
            if each.due(done, logged) and each.on_block(self) is False:
                go_on = False
        return go_on and not self._stop_from_eval

    def _set_block(self, block: Block) -> None:
        """Make `block` the one the next episodes and updates add to."""
        self._block = block
        self._td_errors = block.td_errors

    def _run_block(self, block_end: int) -> None:
        """Run episodes up to `block_end`, adding to the block sums."""
        schedule, run_episode, stats = self.schedule, self.run_episode, self._block.stats
        for episode in range(self.episodes_done, block_end):
            if self.stop_requested:
                return
            steps = self._episode_start = self.steps_done
            stats.add(run_episode(schedule(episode)), self.steps_done - steps)
            self.episodes_done = episode + 1

    def _log_block(self) -> None:
        """Write the block's means to the logger (and keep them as `last_block`), then start a new block."""
        block, step = self._block, self.episodes_done
        scalars = block.scalars()
        if self.uses_epsilon():
            scalars["train/epsilon"] = self.schedule(step)
        scalars.update(self.value_fn.diagnostics())
        self.logger.scalars(scalars, step)
        self.last_block = scalars
        self._set_block(Block.empty(self.is_game))

    # --- evaluation and saving ------------------------------------------------------------
    def agent(self) -> GreedyAgent:
        """The greedy agent over the current value function."""
        return GreedyAgent(self.value_fn, self.keys)

    def test(self, episodes: int, max_steps: int = 10_000) -> EpisodeStats:
        """Play `episodes` greedy episodes on the evaluation env; their returns, lengths (and outcomes).

        A greedy policy can loop forever on an env without a time limit: an episode is cut after `max_steps`.
        """
        stats = EpisodeStats(outcomes=Outcomes() if self.is_game else None)
        return play_greedy(self.agent(), self.eval_env, legal_actions_of(self.eval_env), episodes, stats, max_steps)

    def log_evaluation(self, episodes: int) -> dict[str, float]:
        """Log the mean return (and outcome rates) of `episodes` greedy episodes, and the exact figures.

        Prediction (`predicts_state_values`) plays none: its policy's returns are its training returns already.
        """
        scalars = {} if self.predicts_state_values else self.test(episodes).scalars("eval")
        if self.exact_eval is not None:
            scalars.update(self.exact_eval(self.agent()))
        self.logger.scalars(scalars, self.episodes_done)
        self.logger.histogram("value/histogram", self.value_fn.histogram_values(), self.episodes_done)
        for each in self._callbacks:
            if each.on_eval(self, scalars) is False:
                self._stop_from_eval = True
        return scalars

    def config(self) -> dict[str, Any]:
        """The settings that describe this run: the env, the algorithm and its parameters."""
        spec = self.env.spec
        return {
            "algorithm": self.algorithm,
            "env": type(self.env.unwrapped).__name__,
            "env_id": self.env_id or (spec.id if spec is not None else None),
            "env_kwargs": dict(spec.kwargs) if spec is not None else {},
            "env_class": f"{type(self.env.unwrapped).__module__}:{type(self.env.unwrapped).__qualname__}",
            "gamma": self.gamma,
            "seed": self.seed,
            "keys": getattr(self.keys, "kind", type(self.keys).__name__),
            "schedule": repr(self.schedule),
            "value_fn": repr(self.value_fn),
        }


def _next_multiple(episode: int, every: int) -> int:
    """The first multiple of `every` after `episode`."""
    return (episode // every + 1) * every


def legal_actions_of(env: gym.Env) -> Callable[[], list[int]]:
    """The env's `legal_actions` method, or every action of a Discrete space."""
    legal_actions = getattr(env.unwrapped, "legal_actions", None)
    if legal_actions is not None:
        return legal_actions
    all_actions = list(range(int(env.action_space.n)))
    return lambda: all_actions
