"""Search beyond a single CP-SAT call: a portfolio with a rostering-aware LNS.

- :mod:`shiftsched.solving.search.portfolio` splits the workers between CP-SAT on the full model and
  the neighbourhood search, and shares the incumbent between them;
- :mod:`shiftsched.solving.search.lns` frees part of a roster and re-optimises it with CP-SAT;
- :mod:`shiftsched.solving.search.neighbourhoods` says which parts (employees, windows, shift
  types);
- :mod:`shiftsched.solving.search.adaptive` learns which neighbourhood pays, and how large;
- :mod:`shiftsched.solving.search.progress` records rosters and bounds on one clock;
- :mod:`shiftsched.solving.search.stopping` stops a solver when the caller asks, from another
  thread.
"""
