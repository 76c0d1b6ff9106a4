"""Helpers shared by the test suites (a loopback HTTP server that serves a mirror, mirror builders, the dbt
fixture warehouse, validation helpers, …): test modules import what they share from here, never from one
another (``tests/unit/test_architecture.py``)."""
