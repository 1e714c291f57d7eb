"""What a request may run and what it costs: admission, units held and settled, and
solves paid per request (x402, mpp)."""
