"""On-policy prediction with approximation (Sutton & Barto chapter 9): gradient MC, semi-gradient TD(0) and n-step TD.

The tabular prediction trainers already are these methods once their value function is a
`rltorch.values.LinearValueFunction`: `learn(S_t, target)` is `fit`, the semi-gradient step
w += α (target − v̂(S_t)) ∇v̂(S_t). The classes here name them as the book does and fix what the book fixes.
"""

from __future__ import annotations

from typing import Any

from rltorch.trainers.mc import MCPrediction
from rltorch.trainers.nstep import NStepTDPrediction
from rltorch.trainers.prediction import TDPrediction


class GradientMC(MCPrediction):
    """Gradient Monte Carlo (section 9.3): after each episode, w moves toward G_t at every step t = 0..T-1 in turn."""

    algorithm = "gradient-mc"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, first_visit=False, **kwargs)


class SemiGradientTD(TDPrediction):
    """Semi-gradient TD(0) (section 9.3): after each step, w moves toward R + γ v̂(S') (R alone at the end)."""

    algorithm = "semi-gradient-td"


class NStepSemiGradientTD(NStepTDPrediction):
    """n-step semi-gradient TD (section 9.4): S_τ moves toward G_{τ:τ+n}, bootstrapping from v̂(S_{τ+n})."""

    algorithm = "nstep-semi-gradient-td"
