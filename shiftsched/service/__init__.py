"""The HTTP service around the engine: the v1 contract, API keys, billing and jobs.

The engine never imports this package; everything here is a thin face over it plus the
state a service needs (accounts, keys, unit ledger, job records) in `shiftsched.service.store`.
"""
