"""Importers and checkers for public benchmark formats (mapped onto engine.problem)."""
