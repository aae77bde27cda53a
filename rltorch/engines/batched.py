"""Many independent runs of a tabular method at once: one batch of lanes stepped in lockstep on a finite model.

`BatchedEngine(model).run(algorithm, alphas, episodes)` runs one lane per entry of `alphas` (each its
own step size; SARSA, Expected SARSA and Q-learning lanes may be mixed by giving one algorithm name
per lane), every lane `episodes` episodes long, with values as tensors `[lanes, S, A]` (Double Q:
`[lanes, 2, S, A]`; TD(0): `[lanes, S]`) starting at 0. Every lane steps in lockstep from the
model's transition arrays, starts its next episode on its own when one ends, and stops when it has
done its episodes. Sums of rewards and lengths of every episode come back as `[lanes, episodes]`.

Randomness: lane l follows the stream of global run `run_index[l]` (default 0..L-1) under `seed`
(`rltorch.engines.draws.CounterDraws`), so a run's results do not depend on the batch it is in;
or `draws` injects any `DrawSource`. Fed the numbers a per-step trainer draws, in the order listed
in `rltorch.engines.onestep` and `rltorch.engines.nstep`, a lane equals the trainer float for float
(`tests/test_batched_engine.py` checks all six methods). No time limit is applied.

Backends: `torch` steps the lanes in lockstep as tensors (any device); `numba` runs SARSA,
Expected SARSA and Q-learning lanes on the CPU one loop per lane (`rltorch.engines.numba_control`),
with identical results and ~30x the speed there; `auto` (the default) takes numba for those
methods on the CPU when it is installed and no `draws` are injected, torch otherwise.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import torch

from rltorch.engines import numba_control
from rltorch.engines.draws import CounterDraws, DrawSource, run_keys
from rltorch.engines.episodes import Lanes
from rltorch.engines.nstep import NStepSARSAKernel
from rltorch.engines.onestep import CONTROL_CODES, ControlKernel, DoubleQKernel, Kernel, PredictionKernel
from rltorch.engines.tensors import ModelTensors
from rltorch.errors import RLTorchError
from rltorch.mdp.model import FiniteModel

ALGORITHMS = ("sarsa", "expected-sarsa", "qlearning", "double-qlearning", "nstep-sarsa", "td-prediction")
BACKENDS = ("auto", "torch", "numba")
SEGMENTS = 100  # progress reports of the numba backend per batch
CHECK_EVERY = 64  # lockstep iterations between looks at which lanes are live (a device sync)
MIN_COMPACT = 4096  # batches smaller than this never drop their finished lanes


def resolve_device(device: str | torch.device) -> torch.device:
    """`cpu`, `cuda` (checked) or `auto` (cuda when available)."""
    name = str(device)
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if name.startswith("cuda") and not torch.cuda.is_available():
        raise RLTorchError("device cuda was asked for, but torch sees no CUDA device")
    if not name.startswith(("cpu", "cuda")):
        raise RLTorchError(f"device must be cpu, cuda or auto, got {name!r}")
    return torch.device(name)


@dataclass
class BatchResult:
    """What a batch learned: per-lane settings, `[lanes, episodes]` returns and lengths, final values, timing."""

    algorithms: list[str]
    alphas: torch.Tensor
    run_index: torch.Tensor
    returns: torch.Tensor
    lengths: torch.Tensor
    values: torch.Tensor | None
    iterations: int
    seconds: float

    @property
    def steps(self) -> int:
        """Agent steps taken over all lanes."""
        return int(self.lengths.sum())

    @property
    def steps_per_second(self) -> float:
        """Agent steps per second of wall time."""
        return self.steps / max(self.seconds, 1e-9)


class BatchedEngine:
    """Runs batches of independent lanes of one method on `model` (see module); `threads`: the numba backend's."""

    def __init__(self, model: FiniteModel, *, device: str | torch.device = "cpu", dtype: torch.dtype = torch.float64,
                 backend: str = "auto", threads: int = 1) -> None:
        if backend not in BACKENDS:
            raise RLTorchError(f"backend must be one of {', '.join(BACKENDS)}, got {backend!r}")
        self.device = resolve_device(device)
        self.model, self.backend, self.threads = model, backend, threads
        self.tensors = ModelTensors(model, self.device, dtype)
        if backend == "numba" and (self.device.type != "cpu" or dtype != torch.float64):
            raise RLTorchError("the numba backend runs on the CPU in float64")

    def uses_numba(self, names: Sequence[str], draws: DrawSource | None) -> bool:
        """Whether a batch of these methods runs on the numba backend (raises where `numba` was asked for in vain)."""
        fits = set(names) <= set(CONTROL_CODES) and draws is None
        if self.backend == "numba":
            numba_control.require()
            if not fits:
                raise RLTorchError("the numba backend runs SARSA, Expected SARSA and Q-learning with its own draws")
            return True
        return (self.backend == "auto" and fits and self.device.type == "cpu" and self.tensors.dtype == torch.float64
                and numba_control.available())

    def run(self, algorithm: str | Sequence[str], alphas: float | Sequence[float] | torch.Tensor, episodes: int, *,
            epsilon: float = 0.1, gamma: float = 1.0, n: int = 1, policy: torch.Tensor | None = None, seed: int = 0,
            run_index: Sequence[int] | torch.Tensor | None = None, draws: DrawSource | None = None,
            keep_values: bool = True, progress: Callable[[int], None] | None = None,
            max_iterations: int | None = None) -> BatchResult:
        """Run one lane per step size for `episodes` episodes each; `progress(episodes done)` is called as it goes."""
        started = time.perf_counter()
        alpha = self._alphas(alphas)
        names = _algorithm_names(algorithm, len(alpha))
        _check_settings(episodes, epsilon, gamma, n)
        run_index = torch.arange(len(alpha)) if run_index is None else torch.as_tensor(run_index, dtype=torch.long)
        if run_index.shape != (len(alpha),):
            raise RLTorchError(f"run_index must give one global run index per lane ({len(alpha)})")
        if self.uses_numba(names, draws):
            returns, lengths, values = self._run_numba(names, alpha, episodes, epsilon, gamma, seed, run_index,
                                                       progress)
            return BatchResult(names, alpha, run_index, returns, lengths, values if keep_values else None, 0,
                               time.perf_counter() - started)
        draws = draws if draws is not None else CounterDraws(seed, run_index, self.device)
        lanes = Lanes(len(alpha), episodes, self.device, self.tensors.dtype)
        kernel = self._kernel(names, lanes, draws, alpha, epsilon, gamma, n, policy)
        values, iterations = drive(kernel, keep_values, progress, max_iterations)
        returns, lengths = lanes.results()
        return BatchResult(names, alpha, run_index, returns, lengths, values, iterations,
                           time.perf_counter() - started)

    def _run_numba(self, names: list[str], alpha: torch.Tensor, episodes: int, epsilon: float, gamma: float,
                   seed: int, run_index: torch.Tensor,
                   progress: Callable[[int], None] | None) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """The batch on the numba backend, advanced in segments of episodes: returns, lengths, Q."""
        codes = [CONTROL_CODES[name] for name in names]
        lanes = numba_control.NumbaControl(self.model, codes, alpha.numpy(), run_keys(seed, run_index), episodes,
                                           epsilon, gamma, self.threads)
        segment = max(1, -(-episodes // SEGMENTS))
        for until in range(segment, episodes + segment, segment):
            lanes.advance(until)
            if progress is not None:
                progress(lanes.episodes_done())
        return torch.from_numpy(lanes.returns), torch.from_numpy(lanes.lengths), torch.from_numpy(lanes.q)

    def _alphas(self, alphas: float | Sequence[float] | torch.Tensor) -> torch.Tensor:
        """The step sizes as a [lanes] tensor, each in (0, 1]."""
        alpha = torch.as_tensor(alphas, dtype=self.tensors.dtype).reshape(-1).to(self.device)
        if alpha.numel() == 0 or not bool(((alpha > 0) & (alpha <= 1)).all()):
            raise RLTorchError("give at least one step size, each in (0, 1]")
        return alpha

    def _kernel(self, names: list[str], lanes: Lanes, draws: DrawSource, alpha: torch.Tensor, epsilon: float,
                gamma: float, n: int, policy: torch.Tensor | None) -> Kernel:
        """The lockstep kernel of the batch's method."""
        common = (self.tensors, lanes, draws, alpha, epsilon, gamma)
        method = names[0]
        if method in CONTROL_CODES:
            codes = torch.tensor([CONTROL_CODES[name] for name in names], device=self.device)
            return ControlKernel(*common, codes=codes)
        if method == "double-qlearning":
            return DoubleQKernel(*common)
        if method == "nstep-sarsa":
            return NStepSARSAKernel(*common, n=n)
        return PredictionKernel(*common, policy=self._policy(policy))

    def _policy(self, policy: torch.Tensor | None) -> torch.Tensor:
        """The evaluated policy [S, A], checked: probabilities on legal actions summing to 1 in every decision state."""
        if policy is None:
            raise RLTorchError("td-prediction needs a policy: a [states, actions] tensor of probabilities")
        pi = torch.as_tensor(policy, dtype=torch.float64).cpu()
        legal = self.tensors.legal.cpu()
        if pi.shape != legal.shape:
            raise RLTorchError(f"the policy must have shape {tuple(legal.shape)}, got {tuple(pi.shape)}")
        decision = legal.any(dim=1)
        if bool((pi < 0).any()) or bool((pi[~legal] > 0).any()):
            raise RLTorchError("the policy gives negative or illegal-action probabilities")
        if not torch.allclose(pi[decision].sum(dim=1), torch.ones(int(decision.sum()), dtype=torch.float64)):
            raise RLTorchError("the policy's probabilities must sum to 1 in every state with legal actions")
        return pi


def _algorithm_names(algorithm: str | Sequence[str], count: int) -> list[str]:
    """One known algorithm name per lane; only the control methods SARSA / Expected SARSA / Q-learning may mix."""
    names = [algorithm] * count if isinstance(algorithm, str) else list(algorithm)
    if len(names) != count:
        raise RLTorchError(f"{len(names)} algorithm names for {count} step sizes: give one per lane")
    unknown = sorted(set(names) - set(ALGORITHMS))
    if unknown:
        raise RLTorchError(f"unknown algorithm {unknown[0]!r}; choose from {', '.join(ALGORITHMS)}")
    if len(set(names)) > 1 and not set(names) <= set(CONTROL_CODES):
        raise RLTorchError(f"only {', '.join(CONTROL_CODES)} lanes can share a batch")
    return names


def _check_settings(episodes: int, epsilon: float, gamma: float, n: int) -> None:
    """Episodes >= 1, epsilon and gamma in [0, 1], n >= 1."""
    if isinstance(episodes, bool) or not isinstance(episodes, int) or episodes < 1:
        raise RLTorchError(f"episodes must be an int >= 1, got {episodes!r}")
    if not 0.0 <= epsilon <= 1.0 or not 0.0 <= gamma <= 1.0:
        raise RLTorchError(f"epsilon and gamma must be in [0, 1], got {epsilon!r} and {gamma!r}")
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise RLTorchError(f"n must be an int >= 1, got {n!r}")


def drive(kernel: Kernel, keep_values: bool, progress: Callable[[int], None] | None,
          max_iterations: int | None) -> tuple[torch.Tensor | None, int]:
    """Step `kernel` until every lane is done, dropping finished lanes from big batches; the values and iterations."""
    lanes = kernel.lanes
    total = lanes.count
    out = torch.zeros((total, *kernel.values().shape[1:]), dtype=kernel.values().dtype,
                      device=kernel.values().device) if keep_values else None
    kernel.begin()
    iterations, dropped_episodes = 0, 0
    while True:
        for _ in range(CHECK_EVERY):
            kernel.step()
        iterations += CHECK_EVERY
        live = lanes.active
        live_count = int(live.sum())
        if progress is not None:
            progress(dropped_episodes + lanes.done_episodes())
        if live_count == 0:
            break
        if max_iterations is not None and iterations >= max_iterations:
            raise RLTorchError(f"{live_count} lanes still running after {iterations} lockstep iterations")
        if lanes.count >= MIN_COMPACT and live_count <= lanes.count // 2:
            finished = torch.nonzero(~live).flatten()
            if out is not None:
                out[lanes.ids[finished]] = kernel.values()[finished]
            dropped_episodes += lanes.episodes * int(finished.numel())
            kernel.select(torch.nonzero(live).flatten())
    if out is not None:
        out[lanes.ids] = kernel.values()
    return out, iterations
