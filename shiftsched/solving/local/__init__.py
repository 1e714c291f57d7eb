"""The compiled local search: millions of small moves a minute beside CP-SAT.

``arrays`` reads the built CP-SAT model into flat arrays (its rows, the definitions of its
auxiliaries, the cells of the roster); ``kernels`` evaluates a change of variables
incrementally, with a journal to take it back; ``moves`` draws the moves and accepts them
by late acceptance; ``compiled`` compiles both with numba on first use; ``search`` is the
object a caller drives: load a roster, run moves, read the best roster back.

Because it evaluates the model itself, every rule family the model posts (its history
seam included) is priced and checked exactly as CP-SAT prices and checks it, with no
second statement of the rules to drift.

May import: ``shiftsched.solving.model`` and numpy (numba inside ``compiled`` only).
"""
