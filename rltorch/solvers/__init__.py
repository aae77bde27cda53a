"""Exact solvers: the truth that learned values and policies are measured against."""
