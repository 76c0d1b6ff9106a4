"""Suites of the BurstGPT file families (one module per family)."""
