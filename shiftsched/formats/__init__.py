"""Public benchmark formats: Curtois & Qu and INRC-II readers, checkers and evaluators.

Each importer maps an instance onto the internal problem (``shiftsched.solving.problem``)
so the same solver runs it; each checker and evaluator prices a roster by the format's
own rules, independently of the model, as the audit does for v1 requests.

May import: ``shiftsched.solving``, ``shiftsched.contract`` and ``shiftsched.errors``.
"""
