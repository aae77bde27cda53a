"""The exception types rltorch raises for bad input, unreadable files and impossible transitions."""


class RLTorchError(Exception):
    """A user-facing error: bad options, an unreadable checkpoint, an impossible request."""


class BadTransition(RLTorchError):
    """An env gave a transition rltorch cannot learn from (a reward that is NaN, infinite or not a number).

    Raised by the trainer before anything learns from the step: the values hold only what the steps before
    taught, so a run can save them. `env`, `episode` (counted from 1), `step` (within the episode, from 1)
    and `reward` say where.
    """

    def __init__(self, env: str, episode: int, step: int, reward: object) -> None:
        shown = reward if isinstance(reward, (int, float)) else repr(reward)
        super().__init__(f"env {env} returned the reward {shown} at step {step} of episode {episode}; "
                         "rewards must be finite numbers")
        self.env, self.episode, self.step, self.reward = env, episode, step, reward
