"""Search beyond a single CP-SAT call: a portfolio with a rostering-aware LNS.

- :mod:`engine.search.portfolio` splits the workers between CP-SAT on the full model and
  the neighbourhood search, and shares the incumbent between them;
- :mod:`engine.search.lns` frees part of a roster and re-optimises it with CP-SAT;
- :mod:`engine.search.neighbourhoods` says which parts (employees, windows, shift types);
- :mod:`engine.search.adaptive` learns which neighbourhood pays, and how large;
- :mod:`engine.search.progress` records rosters and bounds on one clock;
- :mod:`engine.search.stopping` stops a solver when the caller asks, from another thread.
"""
