"""Value functions: tables and networks behind one interface, `forward(keys)` and `fit(keys, targets)`."""

from rltorch.values.base import ValueFunction
from rltorch.values.double import DoubleQ, DoubleQTables
from rltorch.values.encoders import Encoder, PairEncoder, SpaceEncoder, space_encoder
from rltorch.values.linear import LinearValueFunction
from rltorch.values.networks import QNetwork, VNetwork
from rltorch.values.ntuple import NTupleNetwork
from rltorch.values.tables import QTable, Table, VTable
from rltorch.values.weighted import WeightedQTable, WeightedVTable

__all__ = [
    "DoubleQ",
    "DoubleQTables",
    "Encoder",
    "LinearValueFunction",
    "SpaceEncoder",
    "PairEncoder",
    "NTupleNetwork",
    "QNetwork",
    "QTable",
    "Table",
    "VNetwork",
    "VTable",
    "ValueFunction",
    "WeightedQTable",
    "WeightedVTable",
    "space_encoder",
]
