"""Importing the validation stack in a bare subprocess — as Dagster's multiprocess executor starts its step
workers — must work. (pyspark without its `connect` dependencies calls sys.exit(0) when Great Expectations
imports it from a process whose __main__ has no __file__, which silently killed every check step in the UI.)"""

from __future__ import annotations

import subprocess
import sys


def test_great_expectations_imports_in_a_bare_subprocess() -> None:
    done = subprocess.run(
        [sys.executable, "-c", "import great_expectations, pipelines.validate.validation; print('imported')"],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0 and done.stdout.strip().endswith("imported"), done.stderr[-2000:]
