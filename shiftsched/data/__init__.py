"""Request bodies built in code: one builder for tests and datasets, and seeded synthetic requests.

May import: ``shiftsched.contract`` only.
"""
