"""In CI every optional part must be present, so no test skips there for want of a tool."""

from __future__ import annotations

import importlib.util
import os
import shutil
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(os.environ.get("CI") != "true", reason="only CI promises every tool")


def test_spark_and_java_are_installed() -> None:
    assert importlib.util.find_spec("pyspark") is not None, "uv sync --all-extras did not install pyspark"
    assert importlib.util.find_spec("pyhive") is not None
    assert shutil.which("java"), "make system-deps should have installed a Java runtime"


def test_chromium_is_installed() -> None:
    assert Path("/usr/bin/chromium").exists(), "make system-deps should have installed Debian's chromium"
