"""Request -> CP-SAT model. Each constraint family declares itself once
(:class:`engine.model.family.RuleFamily`, in the module that posts it);
``engine.model.registry.FAMILIES`` lists them and ``build`` posts them in that order.

The penalty weights the families use are the product's table, ``engine.weights``.
"""
