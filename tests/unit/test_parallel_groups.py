"""``make test`` runs on two xdist workers with ``--dist loadgroup`` (tests/conftest.py groups the modules):
if the groups stop reaching xdist's scheduler (as with pytest 9.2 and pytest-xdist 3.8), a module's tests
are spread over the workers and its module-scoped warehouse is built twice, or its ordered tests fail."""

from __future__ import annotations

from pathlib import Path

import pytest


def test_this_module_is_one_xdist_group(request: pytest.FixtureRequest) -> None:
    if not getattr(request.config.option, "loadgroup", False):  # set on xdist's workers
        pytest.skip("not run with --dist loadgroup (make test PYTEST_WORKERS=0, or plain pytest)")
    assert request.node.nodeid.endswith("@tests/unit/test_parallel_groups.py"), request.node.nodeid


def test_every_long_group_names_a_module_or_a_shared_group() -> None:
    from tests.conftest import LONG_GROUPS_FIRST, SHARED_BUILDS, SPARK_GROUP

    root = Path(__file__).resolve().parents[2]
    shared = (SPARK_GROUP, *SHARED_BUILDS)
    stale = [name for name in LONG_GROUPS_FIRST if name not in shared and not (root / name).is_file()]
    assert not stale, f"LONG_GROUPS_FIRST names no module: {stale}"
