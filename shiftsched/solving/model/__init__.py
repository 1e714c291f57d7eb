"""Request -> CP-SAT model. Each constraint family declares itself once
(:class:`shiftsched.solving.model.family.RuleFamily`, in the module that posts it);
``shiftsched.solving.model.registry.FAMILIES`` lists them and ``build`` posts them in that order.

The penalty weights the families use are the product's table, ``shiftsched.solving.weights``.
"""
