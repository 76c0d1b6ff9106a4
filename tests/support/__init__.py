"""Helpers shared by the test suites (a loopback HTTP server that serves a mirror, mirror builders)."""
