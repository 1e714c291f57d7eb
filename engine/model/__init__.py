"""Request -> CP-SAT model, one module per constraint family (``build`` lists them).

The penalty weights the families use are the product's table, ``engine.weights``.
"""
