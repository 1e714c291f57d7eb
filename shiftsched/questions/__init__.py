"""Questions a roster raises: review, explain, why-not, recommend, sick calls, variants.

Each module answers one question by reading the audit or by trying a change and
re-planning: ``review`` (audit and compare), ``explain`` (could a shortage be filled),
``why`` (why is this cell so), ``recommend`` and ``sick_call`` (who could take a slot),
``edit`` (a hand edit judged at once), ``validation`` (what the solver will make of a
request), ``variants``, ``relax``, ``tradeoff`` and ``fair_share`` (what a rule costs and
who carries it). ``inquiry`` holds their request and response shapes.

May import: ``shiftsched.periods``, ``shiftsched.checking``, ``shiftsched.solving``,
``shiftsched.contract``, ``shiftsched.errors``.
"""
