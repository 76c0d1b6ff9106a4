"""Suites of the AcmeTrace file families (one module per family)."""
