"""Timefold Solver on v1 requests: a baseline of the benchmarks, never used by the engine.

Only :mod:`~benchmarks.timefold_model.domain`, :mod:`~benchmarks.timefold_model.rules`
and :mod:`~benchmarks.timefold_model.run` import Timefold (and start its JVM); the
refusal, the translation and the pricing are plain Python, so they work and are tested
where the optional ``timefold`` extra is not installed.
"""
