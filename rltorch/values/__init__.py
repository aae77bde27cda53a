"""Value functions: tables now, networks behind the same interface."""

from rltorch.values.base import ValueFunction
from rltorch.values.tables import QTable, Table, VTable

__all__ = ["QTable", "Table", "VTable", "ValueFunction"]
