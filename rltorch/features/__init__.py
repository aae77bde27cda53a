"""State features for linear value functions: aggregation, polynomial and Fourier bases, tile coding."""

from rltorch.features.aggregation import StateAggregation
from rltorch.features.base import FEATURES, Box, Features, as_states, features_from_config, register_features
from rltorch.features.fourier import FourierBasis
from rltorch.features.polynomial import PolynomialBasis
from rltorch.features.tiles import TileCoder

__all__ = [
    "FEATURES",
    "Box",
    "Features",
    "FourierBasis",
    "PolynomialBasis",
    "StateAggregation",
    "TileCoder",
    "as_states",
    "features_from_config",
    "register_features",
]
