"""``make test`` runs on two xdist workers with ``--dist loadgroup`` (tests/conftest.py groups the modules):
if the groups stop reaching xdist's scheduler (as with pytest 9.2 and pytest-xdist 3.8), a module's tests
are spread over both workers and its module-scoped warehouse is built twice, or its ordered tests fail."""

from __future__ import annotations

import pytest


def test_this_module_is_one_xdist_group(request: pytest.FixtureRequest) -> None:
    if not getattr(request.config.option, "loadgroup", False):  # set on xdist's workers
        pytest.skip("not run with --dist loadgroup (make test PYTEST_WORKERS=0, or plain pytest)")
    assert request.node.nodeid.endswith("@tests/unit/test_parallel_groups.py"), request.node.nodeid
