"""What an env may offer rltorch beyond Gymnasium's `reset` and `step`, as small typed protocols.

Every capability is optional, and an env offers one by having the method (or attribute): no base class
to inherit, no registration. `rltorch.envs.context.EnvContext` resolves them once per run; the run layer
and `rltorch.external` read them there.

- rules: `HasLegalActions`, `HasAfterstates` (afterstate keys), `HasModel` (a finite model: exact answers);
- exact evaluation of a learner: `ExactEvaluation` (the env's own; an env with a finite model gets the
  generic one of `rltorch.mdp.evaluation` without it), and `ExactPolicyEvaluation` (anyone's policy);
- pictures: `GridWorld` (a grid layout, as a model: offered by the env, or by an adapter in
  `rltorch.envs.grid` for Gymnasium's own grid worlds);
- extras: `Game` (win/draw/loss by the sign of the return), `DeclaresOptions` (an env class's
  constructor options), `HasEncoder` (network features), `HasFeatureBounds` (the box state features scale),
  `HasStartStates` (exploring starts), `HasEvaluationEnv`,
  `SelfPlay`, `CountsReachableKeys` and `PlaysInTerminal`.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from fractions import Fraction
from typing import TYPE_CHECKING, Any, ClassVar, Protocol, runtime_checkable

if TYPE_CHECKING:
    import gymnasium as gym

    from rltorch.envs.grid import GridLayout
    from rltorch.mdp.model import FiniteModel
    from rltorch.options import Option

# a policy's exact answer in a position: {action: probability} (one action with probability 1 when deterministic)
Distribution = Callable[[Hashable, Sequence[int]], Mapping[int, Fraction]]


@runtime_checkable
class HasLegalActions(Protocol):
    """The actions allowed now (every action of the space, without it)."""

    def legal_actions(self) -> list[int]:
        """The legal actions in the current state."""


@runtime_checkable
class HasAfterstates(Protocol):
    """The position right after our move, before the world answers (`--values afterstate` keys)."""

    def afterstate(self, state: Hashable, action: int) -> Hashable:
        """The afterstate of taking `action` in `state`."""


@runtime_checkable
class HasModel(Protocol):
    """A finite model: states, legal actions, transitions, start distribution (Gymnasium's toy text has `P`)."""

    def model(self) -> FiniteModel:
        """The env's finite model."""


@runtime_checkable
class ExactEvaluation(Protocol):
    """The env's own exact figures of a greedy agent: TensorBoard scalars, a report, and the report as text."""

    def exact_scalars(self, agent: Any) -> dict[str, float]:
        """`exact/...` (or `eval/exact_...`) scalars of the agent's greedy play ({} where none apply)."""

    def exact_report(self, agent: Any) -> dict[str, Any] | None:
        """The exact figures as a report (None where these rules have no exact answer)."""

    def format_exact_report(self, report: dict[str, Any]) -> str:
        """The report as lines of text."""


@runtime_checkable
class ExactPolicyEvaluation(Protocol):
    """Exact figures of anyone's policy, deterministic or not (`rltorch.external.exact_evaluation`)."""

    def exact_policy_report(self, distribution: Distribution) -> dict[str, Any]:
        """The report of the policy that answers `distribution(observation, legal_actions)`."""


@runtime_checkable
class GridWorld(Protocol):
    """A grid world's layout, for pictures of values and greedy actions."""

    def grid_layout(self) -> GridLayout:
        """Rows, columns, the cell of each state, each action's direction, marked cells."""


@runtime_checkable
class Game(Protocol):
    """Returns are +1 win, 0 draw, -1 loss (by their sign): tests and evaluations count outcomes."""

    is_game: bool


@runtime_checkable
class DeclaresOptions(Protocol):
    """An env class's own constructor options, as data (`rltorch train` offers each as `--name`)."""

    options: ClassVar[tuple[Option, ...]]


@runtime_checkable
class HasEncoder(Protocol):
    """Features of an observation for networks."""

    def encoder(self) -> Any:
        """The encoder (None: use the observation space's generic one)."""


@runtime_checkable
class HasFeatureBounds(Protocol):
    """The box that state features (aggregation, bases, tiles) scale the non-terminal states into, per dimension.

    Without it they use the observation space's bounds, which may include states that are never coded (terminals).
    """

    def feature_bounds(self) -> tuple[Sequence[float], Sequence[float]]:
        """(low, high): the states' box, one number per dimension."""


@runtime_checkable
class HasStartStates(Protocol):
    """The states exploring starts draw from (`--algo mc-es`)."""

    def start_states(self) -> list[Hashable]:
        """Every state an episode may be started in."""


@runtime_checkable
class HasEvaluationEnv(Protocol):
    """The env tests and evaluations play, when not a copy of the training env."""

    def evaluation_env(self) -> gym.Env:
        """A new evaluation env."""


@runtime_checkable
class SelfPlay(Protocol):
    """An opponent that learns from the learner."""

    def refresh_opponent(self, value_fn: Any, keys: Any, episodes_done: int) -> None:
        """Refresh the opponent from the learner's values (when it is due)."""


@runtime_checkable
class CountsReachableKeys(Protocol):
    """How many keys a learner can meet (reported beside the table's size)."""

    def reachable_keys(self, kind: str) -> int:
        """The number of reachable keys of `kind` ("q" or "afterstate")."""


@runtime_checkable
class PlaysInTerminal(Protocol):
    """A game a person plays against an agent in the terminal (`rltorch play`)."""

    def play_in_terminal(self, agent: Any, seat: str | None = None) -> None:
        """Play one session against `agent`; the person takes `seat` (asked when None)."""
