"""Helpers of the Python client's tests: a real svc server, a recording proxy, forged tokens."""
