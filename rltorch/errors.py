"""The exception types rltorch raises for bad input, unreadable files and impossible transitions."""


class RLTorchError(Exception):
    """A user-facing error: bad options, an unreadable checkpoint, an impossible request."""


class BadTransition(RLTorchError):
    """An env gave a transition rltorch cannot learn from: a reward that is not a finite number, an unhashable state.

    Raised by the trainer before anything learns from the step: the values hold only what the steps before
    taught, so a run can save them. `env`, `episode` (counted from 1), `step` (within the episode, from 1),
    `reward` and `problem` (what was wrong, in words) say where and what.
    """

    def __init__(self, env: str, episode: int, step: int, reward: object, problem: str | None = None,
                 rule: str = "rewards must be finite numbers") -> None:
        shown = reward if isinstance(reward, (int, float)) else repr(reward)
        problem = problem or f"returned the reward {shown}"
        super().__init__(f"env {env} {problem} at step {step} of episode {episode}; {rule}")
        self.env, self.episode, self.step, self.reward, self.problem = env, episode, step, reward, problem
