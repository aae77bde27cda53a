"""The trainer base class: the episode loop, evaluation, logging, checkpoints and progress."""

from __future__ import annotations

import copy
import random
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import gymnasium as gym
from tqdm import tqdm

from rltorch.agents import GreedyAgent
from rltorch.checkpoints import save_checkpoint
from rltorch.keys import StateActionKeys
from rltorch.logger import NullLogger
from rltorch.policies import ExponentialSchedule, Schedule, greedy
from rltorch.values.base import ValueFunction


@dataclass
class Outcomes:
    """Counts of won, lost and drawn (zero-return) episodes."""

    wins: int = 0
    losses: int = 0
    draws: int = 0

    @property
    def games(self) -> int:
        """All episodes counted."""
        return self.wins + self.losses + self.draws

    def add(self, episode_return: float) -> None:
        """Count one episode by the sign of its return."""
        if episode_return > 0:
            self.wins += 1
        elif episode_return < 0:
            self.losses += 1
        else:
            self.draws += 1

    def rates(self) -> dict[str, float]:
        """Win, loss and draw fractions."""
        games = max(self.games, 1)
        return {"win_rate": self.wins / games, "loss_rate": self.losses / games, "draw_rate": self.draws / games}


@dataclass
class _Block:
    """Running sums over one logging block of episodes."""

    returns: float = 0.0
    td_errors: list[float] = field(default_factory=list)
    outcomes: Outcomes = field(default_factory=Outcomes)


class Trainer:
    """Runs episodes of one algorithm on a Gymnasium env that also offers `legal_actions()`.

    Subclasses implement `run_episode(epsilon)` in the order the book's pseudo-code reads and
    call `choose` to act and `learn` to move the value function toward a target.
    """

    algorithm = "trainer"

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
        exact_eval: Callable[[GreedyAgent], dict[str, float]] | None = None,
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
        self.episodes_done = 0
        self.legal_actions = _legal_actions_of(env)
        self._block = _Block()
        self._td_errors = self._block.td_errors
        env.reset(seed=seed)
        self.eval_env.reset(seed=seed + 1)

    # --- what subclasses use -------------------------------------------------------------
    def run_episode(self, epsilon: float) -> float:
        """Play and learn from one episode; return its undiscounted return."""
        raise NotImplementedError

    def choose(self, state: Hashable, epsilon: float) -> tuple[int, Hashable]:
        """Pick an action epsilon-greedily; return it and its key.

        This is `rltorch.policies.epsilon_greedy` (same draws from the same generator), reading
        the values only when it exploits.
        """
        legal, rng = self.legal_actions(), self.rng
        if rng.random() < epsilon:
            action = legal[rng.randrange(len(legal))]
            return action, self.keys(state, (action,))[0]
        keys = self.keys(state, legal)
        index = greedy(self.value_fn.values(keys), rng)
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
    ) -> Trainer:
        """Run `episodes` more episodes; a `callback` returning False after a block stops early."""
        if episodes < 0 or log_every < 1:
            raise ValueError("episodes must be >= 0 and log_every >= 1")
        end = self.episodes_done + episodes
        with tqdm(total=episodes, unit="ep", disable=not progress, dynamic_ncols=True) as bar:
            while self.episodes_done < end:
                start, block_end = self.episodes_done, min(end, self.episodes_done + log_every)
                self._run_block(block_end)
                bar.update(block_end - start)
                self._log_block(bar)
                if eval_every and self.episodes_done % eval_every == 0:
                    self.log_evaluation(eval_games)
                if callback is not None and callback(self) is False:
                    break
        return self

    def _run_block(self, block_end: int) -> None:
        """Run episodes up to `block_end`, adding to the block sums."""
        schedule, run_episode = self.schedule, self.run_episode
        returns = [run_episode(schedule(episode)) for episode in range(self.episodes_done, block_end)]
        block = self._block
        block.returns += sum(returns)
        for episode_return in returns:
            block.outcomes.add(episode_return)
        self.episodes_done = block_end

    def _log_block(self, bar: tqdm) -> None:
        """Write the block's means to the logger and the progress bar, then start a new block."""
        block, step = self._block, self.episodes_done
        games = max(block.outcomes.games, 1)
        epsilon = self.schedule(step)
        scalars = {
            "train/return": block.returns / games,
            "train/epsilon": epsilon,
            "train/win_rate": block.outcomes.wins / games,
            "train/td_error": sum(map(abs, block.td_errors)) / max(len(block.td_errors), 1),
        }
        if not self.uses_epsilon():
            del scalars["train/epsilon"]
        scalars.update(self.value_fn.diagnostics())
        self.logger.scalars(scalars, step)
        postfix = {"eps": f"{epsilon:.3f}"} if self.uses_epsilon() else {}
        bar.set_postfix(**postfix, win=f"{block.outcomes.wins / games:.2f}", refresh=False)
        self._block = _Block()
        self._td_errors = self._block.td_errors

    # --- evaluation and saving ------------------------------------------------------------
    def agent(self) -> GreedyAgent:
        """The greedy agent over the current value function."""
        return GreedyAgent(self.value_fn, self.keys)

    def test(self, games: int) -> Outcomes:
        """Play `games` greedy episodes on the evaluation env; count wins, losses and draws."""
        agent, env = self.agent(), self.eval_env
        legal_actions = _legal_actions_of(env)
        greedy_action: dict[Hashable, int] = {}  # the values are frozen during a test
        outcomes = Outcomes()
        for _ in range(games):
            state, _ = env.reset()
            total, done = 0.0, False
            while not done:
                action = greedy_action.get(state)
                if action is None:
                    action = greedy_action[state] = agent.act(state, legal_actions())
                state, reward, terminated, truncated, _ = env.step(action)
                total += reward
                done = terminated or truncated
            outcomes.add(total)
        return outcomes

    def log_evaluation(self, games: int) -> dict[str, float]:
        """Log `eval/win_rate`, `eval/loss_rate`, `eval/draw_rate` of `games` greedy episodes, and exact figures."""
        scalars = {f"eval/{name}": rate for name, rate in self.test(games).rates().items()}
        if self.exact_eval is not None:
            scalars.update(self.exact_eval(self.agent()))
        self.logger.scalars(scalars, self.episodes_done)
        self.logger.histogram("value/histogram", self.value_fn.histogram_values(), self.episodes_done)
        return scalars

    def config(self) -> dict[str, Any]:
        """The settings that describe this run."""
        return {
            "algorithm": self.algorithm,
            "env": type(self.env.unwrapped).__name__,
            "gamma": self.gamma,
            "seed": self.seed,
            "keys": getattr(self.keys, "kind", type(self.keys).__name__),
            "schedule": repr(self.schedule),
            "value_fn": repr(self.value_fn),
        }

    def checkpoint(self) -> dict[str, Any]:
        """Everything needed to play or resume: agent, config, values, episodes, schedule, RNG state.

        `value_fn_state` is the value function's `state_dict()`, which alone loads with
        `weights_only=True` into a value function built from `value_fn_config`.
        """
        return {
            "agent": self.agent(),
            "config": self.config(),
            "value_fn_config": self.value_fn.config(),
            "value_fn_state": self.value_fn.state_dict(),
            "episodes": self.episodes_done,
            "schedule": self.schedule,
            "rng_state": self.rng.getstate(),
        }

    def save(self, path: str | Path) -> Path:
        """Save the checkpoint atomically with `torch.save`."""
        return save_checkpoint(path, self.checkpoint())


def _legal_actions_of(env: gym.Env) -> Callable[[], list[int]]:
    """The env's `legal_actions` method, or every action of a Discrete space."""
    legal_actions = getattr(env.unwrapped, "legal_actions", None)
    if legal_actions is not None:
        return legal_actions
    all_actions = list(range(int(env.action_space.n)))
    return lambda: all_actions
