"""Importers and checkers for public benchmark formats (mapped onto shiftsched.solving.problem)."""
