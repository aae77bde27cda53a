"""`RunConfig`: every setting of one training run, fixed once where the command line is read (CleanRL's `Args`).

The parser's flat namespace becomes a frozen dataclass at the CLI boundary; builders read its typed fields,
never the namespace. The algorithm's own options and the value function's are the ones their classes
declare (`Trainer.options`, `ValueFunctionKind.options`), gathered into `algo_options` and
`value_fn_options`. `--resume` restores a config from the checkpoint's settings (`restored`).
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rltorch.options import Option

PATHS = ("log_dir", "checkpoint", "json", "resume")  # settings that are paths (saved as text)


@dataclass(frozen=True)
class RunConfig:
    """One run's settings: what learns, on what, how it explores, and where its outputs go."""

    env: str
    algo: str
    episodes: int
    seed: int = 0
    gamma: float = 0.9
    alpha: float = 0.1
    values: str = "q"
    value_fn: str = "table"
    threads: int = 1
    epsilon_schedule: str = "exponential"
    epsilon_start: float = 1.0
    epsilon_final: float = 0.01
    epsilon_decay: float = 10_000.0
    env_options: dict[str, Any] = field(default_factory=dict)
    algo_options: dict[str, Any] = field(default_factory=dict)
    value_fn_options: dict[str, Any] = field(default_factory=dict)
    run_name: str | None = None
    log_dir: Path = Path("runs")
    log_every: int = 100
    eval_every: int = 0
    eval_games: int = 100
    test_games: int = 0
    checkpoint: Path | None = None
    json: Path | None = None
    no_progress: bool = False
    overwrite: bool = False
    resume: Path | None = None
    settings: dict[str, Any] = field(default_factory=dict, repr=False)  # the flat settings it was read from

    @classmethod
    def from_settings(cls, settings: dict[str, Any], algo_options: tuple[Option, ...] = (),
                      value_fn_options: tuple[Option, ...] = ()) -> RunConfig:
        """The config of flat settings (argparse destinations), with the declared options gathered."""
        settings = {key: Path(value) if key in PATHS and isinstance(value, str) else value
                    for key, value in settings.items()}
        env_options = {key.removeprefix("env__"): value for key, value in settings.items() if key.startswith("env__")}
        env_options.update(dict(settings.get("env_option") or []))
        if settings.get("max_episode_steps") is not None:  # 0: no time limit (`rltorch.run.envs.make_env`)
            env_options["max_episode_steps"] = settings["max_episode_steps"]
        known = {name for name in cls.__dataclass_fields__ if name not in ("env_options", "settings")}
        typed = {key: value for key, value in settings.items() if key in known}
        typed.setdefault("env", "")
        typed.setdefault("algo", "")
        typed.setdefault("episodes", 0)
        return cls(**typed, env_options=env_options,
                   algo_options={o.name: settings.get(o.name, o.default) for o in algo_options},
                   value_fn_options={o.name: settings.get(o.name, o.default) for o in value_fn_options},
                   settings=dict(settings))

    @classmethod
    def from_namespace(cls, args: argparse.Namespace, **declared: tuple[Option, ...]) -> RunConfig:
        """The config of a parsed command line (see `from_settings` for `declared`)."""
        return cls.from_settings(vars(args), **declared)

    def restored(self, saved: dict[str, Any], **declared: tuple[Option, ...]) -> RunConfig:
        """This config with a resumed checkpoint's settings put back (they win over the command line's)."""
        return self.from_settings({**self.settings, **saved}, **declared)

    def saved_settings(self, keep_out: set[str]) -> dict[str, Any]:
        """The flat settings as plain data for a checkpoint, leaving out those a resumed run takes anew."""
        return {key: str(value) if isinstance(value, Path) else value for key, value in self.settings.items()
                if key not in keep_out}

    def namespace(self) -> argparse.Namespace:
        """The flat settings as a namespace, for code that reads options of its own (a sweep's, a study's)."""
        return argparse.Namespace(**self.settings)

    def hyperparameters(self) -> dict[str, str]:
        """Every setting as text, for TensorBoard's hyperparameter table."""
        return {key: str(value) for key, value in self.settings.items()}
