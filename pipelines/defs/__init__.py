"""Dagster-only code: the only package (with definitions.py, run.py and cli.py) that imports dagster."""
