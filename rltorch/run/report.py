"""What a run reports at its end: speed, the final greedy test, table size and the exact figures, as data and text."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rltorch.agents import GreedyAgent
from rltorch.run.config import RunConfig
from rltorch.run.envs import context_of
from rltorch.run.prediction import describe_errors
from rltorch.trainers import Trainer


def final_metrics(trainer: Trainer, config: RunConfig, seconds: float, extra: dict[str, Any]) -> dict:
    """The run's figures: speed, the final greedy test, table size and the exact report.

    A prediction run has no greedy policy to test: its figures are the exact value errors of its v̂ instead.
    """
    if trainer.predicts_state_values:
        errors = trainer.exact_eval(trainer.agent()) if trainer.exact_eval is not None else None
        metrics = {**run_metrics(trainer, seconds, extra), "policy": repr(getattr(trainer, "policy", None)),
                   "exact": None, "value_errors": None}
        if errors is not None:
            metrics["value_errors"] = {tag.removeprefix("exact/"): value for tag, value in errors.items()}
        return metrics
    games = config.test_games
    stats = trainer.test(games) if games else None
    context = context_of(trainer)
    report = context.exact.report if context.exact is not None else None
    reachable = context.reachable_keys
    metrics = run_metrics(trainer, seconds, extra)
    if reachable is not None and metrics["table_size"] is not None:
        metrics["reachable_keys"] = reachable(getattr(trainer.keys, "kind", "q"))
    if stats is not None:
        metrics.update(test_episodes=stats.episodes, test_mean_return=stats.mean_return,
                       test_mean_length=stats.mean_length)
        if stats.outcomes is not None:
            metrics.update(test_wins=stats.outcomes.wins, test_losses=stats.outcomes.losses,
                           test_draws=stats.outcomes.draws)
    agent = trainer.agent()
    metrics["exact"] = report(agent) if report is not None and isinstance(agent, GreedyAgent) else None
    return metrics


def run_metrics(trainer: Trainer, seconds: float, extra: dict[str, Any]) -> dict[str, Any]:
    """What every run reports, the final test aside: env, algorithm, episodes, speed and table size."""
    return {
        "env": trainer.config()["env_id"] or trainer.config()["env"],
        "algorithm": trainer.algorithm,
        "episodes": trainer.episodes_done,
        "seconds": round(seconds, 3),
        "episodes_per_second": round(extra["episodes_this_run"] / max(seconds, 1e-9), 1),
        "table_size": len(trainer.value_fn) if hasattr(trainer.value_fn, "__len__") else None,
        **extra,
    }


def format_metrics(trainer: Trainer, metrics: dict[str, Any]) -> str:
    """The report a person reads at the end of a run."""
    resumed = metrics["episodes"] - metrics["episodes_this_run"]
    lines = [f"{metrics['episodes_this_run']:,} episodes in {metrics['seconds']:.1f} s "
             f"({metrics['episodes_per_second']:,.0f} episodes/s)"
             + (f", {metrics['episodes']:,} in all after resuming at {resumed:,}" if resumed else "")]
    if "test_episodes" in metrics:
        line = (f"test, {metrics['test_episodes']:,} greedy episodes: mean return {metrics['test_mean_return']:.3f}, "
                f"mean length {metrics['test_mean_length']:.1f}")
        if "test_wins" in metrics:
            line += f"; wins {metrics['test_wins']}, losses {metrics['test_losses']}, draws {metrics['test_draws']}"
        lines.append(line)
    if metrics["table_size"] is not None:
        reachable = f" (of {metrics['reachable_keys']:,} keys reachable)" if metrics.get("reachable_keys") else ""
        lines.append(f"table: {metrics['table_size']:,} entries{reachable}")
    if metrics.get("figures"):
        lines.append("figures: " + ", ".join(f"{key.replace('_', ' ')} {_short(value)}"
                                             for key, value in metrics["figures"].items()))
    if metrics.get("value_errors"):
        lines.append(describe_errors({f"exact/{tag}": value for tag, value in metrics["value_errors"].items()},
                                     metrics["policy"]))
    if metrics["exact"] is not None:
        exact = context_of(trainer).exact
        describe = exact.describe if exact is not None else None
        lines.append("exact evaluation of the greedy policy:")
        lines.append(describe(metrics["exact"]) if describe is not None else str(metrics["exact"]))
    lines.append(f"checkpoint: {metrics['checkpoint']}")
    log_dir = Path(metrics["log_dir"])
    lines.append(f"TensorBoard: tensorboard --logdir {log_dir.parent}  (run {log_dir.name})")
    return "\n".join(lines)


def _short(value: Any) -> str:
    """A number in a few significant digits; anything else as it is."""
    return f"{value:.4g}" if isinstance(value, float) else str(value)
