"""The roster explorer's sections as functions (notebooks/explore.py calls them).

Each module is one section of the notebook: ``sources`` (datasets and uploads),
``solved`` (the solve, its audit and the tables and files of the roster shown),
``hand_edit``, ``sick_call``, ``shortages``, ``compare`` and ``next_period``. They compute
and put into words; the notebook's cells keep only the widgets and the layout, so what a
section shows can be tested without marimo. ``shiftsched.present`` re-exports them.
"""
