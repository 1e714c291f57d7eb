"""Benchmarks of the engine: baselines, suites and reports."""
