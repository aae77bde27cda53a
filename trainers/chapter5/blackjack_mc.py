"""Monte Carlo on blackjack (Sutton & Barto, chapter 5), measured against the exact DP answer while it learns.

Methods: prediction (first- or every-visit V of stick-on-20), es (exploring starts), on-policy
(epsilon-soft first-visit control), off-policy-prediction (ordinary or weighted importance
sampling, random behaviour), off-policy-control (weighted importance sampling, section 5.7).
TensorBoard gets train/return, train/epsilon where one is used, and at every evaluation
exact/rms_error, exact/policy_agreement and exact/expected_return. Run with --help for every option.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

import gymnasium as gym

from rltorch.envs.blackjack.solver import BOOK_RULES, GYMNASIUM_RULES
from rltorch.errors import RLTorchError
from rltorch.policies import ConstantSchedule
from rltorch.run.config import RunConfig
from rltorch.run.options import add_output_options, at_most, make_parser, non_negative_int, positive_int, unit_float
from rltorch.run.output import run_cli
from rltorch.run.session import resume_settings
from rltorch.run.training import run_training
from trainers.chapter5.methods import METHODS, make_trainer

DEFAULT_EPSILON = {"on-policy": 0.1, "off-policy-control": 1.0}
MAX_EPISODES, MAX_SEED = 10**10, 2**32 - 1  # upper bounds of --episodes and --seed


def threshold(text: str) -> int:
    """Parse the stick-on sum of the evaluated policy: 12..22 (22: always hit)."""
    value = int(text)
    if not 12 <= value <= 22:
        raise argparse.ArgumentTypeError(f"must be a sum from 12 to 22, got {text}")
    return value


def start_state(text: str) -> tuple[int, int, int]:
    """Parse 'SUM,DEALER,USABLE' such as 13,2,1 (the book's Figure 5.3 state)."""
    try:
        player_sum, dealer, usable = (int(part) for part in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be SUM,DEALER,USABLE such as 13,2,1, got {text!r}") from None
    if not (12 <= player_sum <= 21 and 1 <= dealer <= 10 and usable in (0, 1)):
        raise argparse.ArgumentTypeError(f"needs a sum 12..21, a dealer card 1..10 and usable 0 or 1, got {text!r}")
    return player_sum, dealer, usable


def build_parser() -> argparse.ArgumentParser:
    """The script's options."""
    parser = make_parser(__doc__)
    learning = parser.add_argument_group("learning")
    learning.add_argument("--method", choices=METHODS, default="prediction", help="which Monte Carlo method")
    learning.add_argument("--episodes", type=at_most(positive_int, MAX_EPISODES), default=500_000,
                          help="training episodes (hands)")
    learning.add_argument("--seed", type=at_most(non_negative_int, MAX_SEED), default=0,
                          help="seed of every random choice in the run")
    learning.add_argument("--every-visit", action="store_true", help="every-visit instead of first-visit MC")
    learning.add_argument("--threshold", type=threshold, default=20,
                          help="the evaluated (target) policy sticks on this sum or more")
    learning.add_argument("--importance", choices=("ordinary", "weighted"), default="weighted",
                          help="importance sampling of off-policy-prediction")
    learning.add_argument("--epsilon", type=unit_float,
                          help="constant epsilon of on-policy control (default 0.1) or of off-policy-control's "
                               "behaviour (default 1: uniformly random)")
    learning.add_argument("--start-state", type=start_state, help="start every episode in SUM,DEALER,USABLE")
    learning.add_argument("--env", choices=("rltorch", "gymnasium"), default="rltorch",
                          help="rltorch/Blackjack-v0 (the book's rules) or Gymnasium's Blackjack-v1")
    add_output_options(parser, log_every=1000, eval_every=50_000, eval_games=1000, test_games=0)
    return parser


class EvaluationHistory:
    """Wraps the exact evaluation hook and remembers each result with its episode count."""

    def __init__(self, exact: Any, trainer: Any) -> None:
        self.exact = exact
        self.trainer = trainer
        self.records: list[tuple[int, dict[str, float]]] = []

    def __call__(self, agent: Any) -> dict[str, float]:
        """Evaluate, remember, return the scalars."""
        scalars = self.exact(agent)
        self.records.append((self.trainer.episodes_done, scalars))
        return scalars

    def agreement_milestones(self) -> dict[str, int | None]:
        """First evaluation with no clear disagreement with pi*, and the one from which that held to the end."""
        clear = [(episodes, s["exact/clear_disagreements"] == 0) for episodes, s in self.records
                 if "exact/clear_disagreements" in s]
        first = next((episodes for episodes, ok in clear if ok), None)
        held = None
        for episodes, ok in reversed(clear):
            if not ok:
                break
            held = episodes
        return {"first_agreement_at": first, "agreement_held_from": held}


def build(args: argparse.Namespace) -> Any:
    """The trainer that `args` describe."""
    if args.env == "gymnasium":
        if args.method == "es" or args.start_state:
            raise RLTorchError("Gymnasium's Blackjack-v1 cannot start from a chosen state; use --env rltorch")
        env, rules = gym.make("Blackjack-v1"), GYMNASIUM_RULES
    else:
        env, rules = gym.make("rltorch/Blackjack-v0", disable_env_checker=True), BOOK_RULES
    epsilon = args.epsilon if args.epsilon is not None else DEFAULT_EPSILON.get(args.method)
    return make_trainer(
        args.method, env=env, rules=rules, seed=args.seed, first_visit=not args.every_visit,
        threshold=args.threshold, weighted=args.importance == "weighted", start_state=args.start_state,
        schedule=ConstantSchedule(epsilon) if epsilon is not None else None,
    )


def train(args: argparse.Namespace, argv: list[str] | None = None) -> int:
    """Build the trainer (before any file is made), then take the shared run path with the study's figures."""
    resumed, saved = resume_settings(args, build_parser(), list(sys.argv[1:] if argv is None else argv))
    config = RunConfig.from_settings({"env": "rltorch/Blackjack-v0", "algo": args.method, **vars(args), **saved})
    args = argparse.Namespace(**config.settings)  # the study's own settings, a resumed run's put back
    trainer = build(args)
    history = trainer.exact_eval = EvaluationHistory(trainer.exact_eval, trainer)

    def figures(trainer: Any) -> dict[str, Any]:
        """The exact figures at the end, and when the greedy policy first agreed with pi*."""
        if not history.records or history.records[-1][0] != trainer.episodes_done:
            trainer.log_evaluation(args.eval_games)
        last = {key.split("/")[1]: value for key, value in history.records[-1][1].items()}
        milestones = history.agreement_milestones() if history.exact.policy is None else {}
        return {"method": args.method, "figures": {**last, **milestones}, **last, **milestones}

    label = "Blackjack-v1" if args.env == "gymnasium" else "Blackjack-v0"
    return run_training(trainer, config, label=label, finish=figures, resumed=resumed)


def main(argv: list[str] | None = None) -> int:
    """Parse `argv`, run, and turn rltorch errors into one message and a non-zero exit status."""
    args = build_parser().parse_args(argv)
    return run_cli(lambda: train(args, argv))


if __name__ == "__main__":
    sys.exit(main())
