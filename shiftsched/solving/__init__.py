"""Solving: the internal problem, the CP-SAT model, and every search that finds a roster.

``problem`` turns a parsed request into integer-indexed data; ``model/`` posts one
descriptor per rule family; ``greedy`` builds a starting roster; ``search/`` runs the
portfolio (CP-SAT beside a rostering LNS); ``decompose/`` gives the column-generation
bound; ``solve`` ties them together and reads the roster back. ``diagnose`` and
``conflicts`` live here too: a solve that finds no roster diagnoses it by re-solving
relaxed models, so the diagnosis is part of solving, not of checking.

May import: ``shiftsched.contract`` and ``shiftsched.errors``. Never the audit
(``shiftsched.checking``): the model and its referee share no code.
"""
