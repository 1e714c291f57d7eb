"""Paying per request: the x402 and mpp gateways, their settings, and the retry of
settlements held earlier."""
