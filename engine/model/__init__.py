"""Request -> CP-SAT model, one module per constraint family (see build.FAMILIES)."""
