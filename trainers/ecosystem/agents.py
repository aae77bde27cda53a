"""The three tic-tac-toe learners of the SB3 comparison, each trained with a progress bar, timed and evaluated exactly.

MaskablePPO (sb3-contrib) learns through `FlattenObservation` with the env's own action masks; DQN
(Stable-Baselines3) learns through `FlattenObservation` with `illegal_action="lose"`; SARSA is rltorch's
`SARSATrainer` with the course's defaults (Q table, gamma 0.9, alpha 0.1, epsilon 1 -> 0.01 with decay 10,000).
Every agent is then evaluated by `rltorch.external.exact_evaluation`: exact win/draw/loss against the random
opponent and every line of perfect play, the same evaluators rltorch's own agents get.
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import gymnasium as gym
from gymnasium.wrappers import FlattenObservation
from stable_baselines3 import DQN
from stable_baselines3.common.callbacks import BaseCallback
from tqdm import tqdm

from rltorch import QTable, SARSATrainer
from rltorch.envs.tictactoe.env import TicTacToeEnv
from rltorch.external import exact_evaluation, sb3_policy, uniform_random
from rltorch.run.output import refuse_to_run

ENV_ID = "rltorch/TicTacToe-v0"


@dataclass
class Result:
    """One agent's training cost and exact figures (one seat)."""

    agent: str
    library: str
    steps: int
    episodes: int
    seconds: float
    figures: dict[str, Any]
    notes: str = ""
    settings: dict[str, Any] = field(default_factory=dict)

    def row(self) -> dict[str, Any]:
        """The result as JSON-ready data."""
        return {"agent": self.agent, "library": self.library, "steps": self.steps, "episodes": self.episodes,
                "seconds": round(self.seconds, 2), "notes": self.notes, "settings": self.settings, **self.figures}


class ProgressCallback(BaseCallback):
    """An SB3 callback that shows timesteps on a tqdm bar and counts finished episodes."""

    def __init__(self, total: int, description: str, enabled: bool) -> None:
        super().__init__()
        self.bar = tqdm(total=total, desc=description, unit="step", disable=not enabled, dynamic_ncols=True)
        self.episodes = 0

    def _on_step(self) -> bool:
        """Advance the bar to the model's step count; count the episodes that ended."""
        self.episodes += int(sum(self.locals.get("dones", ())))
        self.bar.update(self.model.num_timesteps - self.bar.n)
        return True

    def _on_training_end(self) -> None:
        """Close the bar."""
        self.bar.close()


def make_env(seat: str, illegal_action: str = "raise") -> gym.Env:
    """The registered tic-tac-toe env against the random opponent, flattened for an SB3 MLP policy."""
    return FlattenObservation(gym.make(ENV_ID, seat=seat, illegal_action=illegal_action))


def seat_figures(report: dict[str, Any], seat: str) -> dict[str, Any]:
    """The exact figures of one seat: win, draw, loss (floats and fractions) and the verdict against perfect play."""
    figures = report["seats"][seat]
    keys = ("win", "draw", "loss", "fractions", "never_loses_vs_perfect", "lines_lost_vs_perfect")
    return {key: figures[key] for key in keys}


def evaluate(policy: Any, seat: str) -> dict[str, Any]:
    """Exact figures of `policy` (a callable or an rltorch agent) in `seat`."""
    return seat_figures(exact_evaluation(ENV_ID, policy, env_kwargs={"seat": seat}), seat)


def train_maskable_ppo(args: argparse.Namespace, folder: Path) -> Result:
    """MaskablePPO on the flattened env, masks from the env's `action_masks()`; saved to `folder`."""
    from sb3_contrib import MaskablePPO

    env = make_env(args.seat)
    settings = {"timesteps": args.ppo_steps, "n_steps": args.ppo_n_steps, "batch_size": 64, "seed": args.seed}
    model = MaskablePPO("MlpPolicy", env, n_steps=args.ppo_n_steps, batch_size=64, seed=args.seed, device="cpu")
    callback = ProgressCallback(args.ppo_steps, "MaskablePPO", not args.no_progress)
    start = time.perf_counter()
    model.learn(args.ppo_steps, callback=callback)
    seconds = time.perf_counter() - start
    model.save(folder / "maskable_ppo.zip")
    figures = evaluate(sb3_policy(model, env), args.seat)
    return Result("MaskablePPO", "sb3-contrib", model.num_timesteps, callback.episodes, seconds, figures,
                  "action masks from the env", settings)


def train_dqn(args: argparse.Namespace, folder: Path) -> Result:
    """DQN on the flattened env where an illegal move loses; saved to `folder`."""
    env = make_env(args.seat, illegal_action="lose")
    settings = {"timesteps": args.dqn_steps, "learning_starts": 1000, "buffer_size": 50_000,
                "exploration_fraction": 0.3, "target_update_interval": 1000, "seed": args.seed}
    model = DQN("MlpPolicy", env, learning_starts=1000, buffer_size=50_000, exploration_fraction=0.3,
                target_update_interval=1000, seed=args.seed, device="cpu")
    callback = ProgressCallback(args.dqn_steps, "DQN", not args.no_progress)
    start = time.perf_counter()
    model.learn(args.dqn_steps, callback=callback)
    seconds = time.perf_counter() - start
    model.save(folder / "dqn.zip")
    policy = sb3_policy(model, env)
    figures = evaluate(policy, args.seat)
    notes = (f'illegal_action="lose"; greedy choice illegal in {policy.illegal_choices} of the {policy.calls} '
             "positions evaluated" + (" (its best legal move played there)" if policy.illegal_choices else ""))
    return Result("DQN", "Stable-Baselines3", model.num_timesteps, callback.episodes, seconds, figures, notes,
                  settings)


def train_sarsa(args: argparse.Namespace, folder: Path) -> Result:
    """rltorch's SARSA with the course defaults (the README's seeded run for seat X, seed 0, 100,000 episodes)."""
    trainer = SARSATrainer(TicTacToeEnv(seat=args.seat), QTable(alpha=0.1), gamma=0.9, seed=args.seed)
    start = time.perf_counter()
    trainer.train(args.sarsa_episodes, eval_every=0, progress=not args.no_progress)
    seconds = time.perf_counter() - start
    trainer.save(folder / "sarsa.pt")
    settings = {"episodes": args.sarsa_episodes, "table": "q", "alpha": 0.1, "gamma": 0.9,
                "epsilon": "1.0 -> 0.01, decay 10000", "seed": args.seed}
    return Result("SARSA", "rltorch", trainer.steps_done, trainer.episodes_done, seconds,
                  evaluate(trainer.agent(), args.seat), f"Q table, {len(trainer.value_fn):,} entries", settings)


def random_reference(seat: str) -> Result:
    """The uniform random player's exact figures: the bar every learner must clear."""
    return Result("uniform random", "-", 0, 0, 0.0, evaluate(uniform_random, seat), "reference, no training")


def markdown_table(results: list[Result]) -> str:
    """The results as a Markdown table: cost of training, exact outcome against random, verdict against perfect."""
    lines = ["| agent | library | training steps | episodes | seconds | win | draw | loss | vs perfect play | notes |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for result in results:
        figures = result.figures
        lost = figures["lines_lost_vs_perfect"]
        verdict = "never loses" if figures["never_loses_vs_perfect"] else (
            "loses" if lost is None else f"loses {lost} line{'s' * (lost != 1)}")
        cost = ("-", "-", "-") if not result.steps else (
            f"{result.steps:,}", f"{result.episodes:,}", f"{result.seconds:.{1 if result.seconds >= 1 else 2}f}")
        lines.append(f"| {result.agent} | {result.library} | {' | '.join(cost)} | {figures['win']:.4f} "
                     f"| {figures['draw']:.4f} | {figures['loss']:.4f} (exact {figures['fractions']['loss']}) "
                     f"| {verdict} | {result.notes} |")
    return "\n".join(lines)


if __name__ == "__main__":
    refuse_to_run(__file__, "sb3_comparison.py", "trainers/ecosystem/sb3_comparison.py")
