"""``pipelines/`` uses only Dagster's public API, read from the source with ``ast``:

- no import of a private module or name of a Dagster package (``dagster._core…``, ``from dagster_dbt import _x``);
- no read of a private attribute (``_name``) of anything but the object's own class: ``obj._x``, ``super()._x``,
  ``getattr(obj, "_x")``, and, in a class derived from a Dagster class, ``self._x`` that the class does not
  define itself (a subclass may override a hook; it does not reach into its base);
- none of the members Dagster keeps for itself under public-looking names (``NOT_PUBLIC``).

An upgrade of Dagster may change what is private without notice; this keeps the code off it. One module is
exempt: a storage plugin for dagster.yaml (Dagster's documented way to change its event log) has to derive from
a class in ``dagster._core``, as Dagster's own plugins do. Its own tests fail when Dagster changes what it uses.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

from pipelines.settings import PROJECT_ROOT

DAGSTER_PACKAGES = ("dagster", "dagster_dbt", "dagster_webserver", "dagster_graphql", "dagster_pipes")
# Members without an underscore that Dagster does not publish (not in its API docs, no `@public`): the job's
# asset layer and node handles, a log record's raw metadata, a DagsterEvent's payload, job subsetting.
NOT_PUBLIC = frozenset(
    {
        "asset_layer",
        "dagster_meta",
        "event_specific_data",
        "get_subset",
        "node_handle",
        "resolve_implicit_global_asset_job_def",
    }
)


# module -> the tests that fail when Dagster changes the internals it uses
STORAGE_PLUGINS = {"pipelines/defs/event_log_storage.py": "tests/unit/test_event_log_storage.py"}


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _dagster_module(module: str) -> bool:
    return module.split(".", 1)[0] in DAGSTER_PACKAGES


class _Reader(ast.NodeVisitor):
    def __init__(self, path: Path) -> None:
        self.path = path
        self.dagster_names: set[str] = set()  # names this module binds to Dagster modules or their members
        self.found: list[str] = []
        self.own: list[
            set[str] | None
        ] = []  # per enclosing class: names it defines, or None if not Dagster's

    def _flag(self, node: ast.AST, what: str) -> None:
        self.found.append(f"{self.path}:{node.lineno}: {what}")

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            if _dagster_module(alias.name):
                self.dagster_names.add((alias.asname or alias.name).split(".", 1)[0])
                if any(_private(part) for part in alias.name.split(".")):
                    self._flag(node, f"imports Dagster's private module {alias.name}")

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        module = node.module or ""
        if node.level == 0 and _dagster_module(module):
            if any(_private(part) for part in module.split(".")):
                self._flag(node, f"imports from Dagster's private module {module}")
            for alias in node.names:
                self.dagster_names.add(alias.asname or alias.name)
                if _private(alias.name):
                    self._flag(node, f"imports Dagster's private name {module}.{alias.name}")

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        bases = {_root_name(base) for base in node.bases}
        dagster_based = bool(bases & self.dagster_names)
        defined = {target.id for statement in node.body for target in _defined_names(statement)}
        self.own.append(defined if dagster_based else None)
        self.generic_visit(node)
        self.own.pop()

    def visit_Attribute(self, node: ast.Attribute) -> None:
        owner = node.value
        if node.attr in NOT_PUBLIC:
            self._flag(node, f"reads .{node.attr}, which Dagster does not publish")
        elif _private(node.attr):
            if isinstance(owner, ast.Name) and owner.id in ("self", "cls"):
                defined = self.own[-1] if self.own else None
                if defined is not None and node.attr not in defined:
                    self._flag(
                        node, f"reads {owner.id}.{node.attr}, private to the Dagster class it derives from"
                    )
            else:
                self._flag(node, f"reads the private attribute .{node.attr} of another object")
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        if (
            isinstance(node.func, ast.Name)
            and node.func.id in ("getattr", "hasattr", "setattr")
            and len(node.args) >= 2
            and isinstance(node.args[1], ast.Constant)
            and isinstance(node.args[1].value, str)
            and (_private(node.args[1].value) or node.args[1].value in NOT_PUBLIC)
        ):
            self._flag(node, f"{node.func.id}(…, {node.args[1].value!r})")
        self.generic_visit(node)


def _root_name(node: ast.expr) -> str:
    while isinstance(node, ast.Attribute):
        node = node.value
    return node.id if isinstance(node, ast.Name) else ""


def _defined_names(statement: ast.stmt) -> Iterator[ast.Name]:
    if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        yield ast.Name(id=statement.name)
    elif isinstance(statement, ast.Assign):
        yield from (t for t in statement.targets if isinstance(t, ast.Name))
    elif isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name):
        yield statement.target


def private_dagster_uses(root: Path, package: str = "pipelines") -> list[str]:
    """``path:line: what`` for every use of Dagster's private API in the modules under ``root/package``."""
    found: list[str] = []
    for path in sorted((root / package).rglob("*.py")):
        reader = _Reader(path.relative_to(root))
        reader.visit(ast.parse(path.read_text(encoding="utf-8"), str(path)))
        found += reader.found
    return found


def test_pipelines_use_only_dagsters_public_api() -> None:
    found = private_dagster_uses(PROJECT_ROOT)
    assert [use for use in found if use.split(":", 1)[0] not in STORAGE_PLUGINS] == []
    for module, tests in STORAGE_PLUGINS.items():
        assert any(use.startswith(f"{module}:") for use in found), f"{module} needs no exemption any more"
        assert (PROJECT_ROOT / tests).is_file()


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        (
            "from dagster._core.storage.tags import PARTITION_NAME_TAG\n",
            "private module dagster._core.storage.tags",
        ),
        ("import dagster._utils\n", "private module dagster._utils"),
        ("from dagster_dbt import _internal\n", "private name dagster_dbt._internal"),
        ("def f(record):\n    return record._meta\n", "private attribute ._meta"),
        ("def f(record):\n    return record.dagster_meta\n", "dagster_meta, which Dagster does not publish"),
        ("def f(job):\n    return job.asset_layer\n", "asset_layer"),
        ("def f(ev):\n    return ev.event_specific_data.error\n", "event_specific_data"),
        ("def f(x):\n    return getattr(x, '_cli_version')\n", "getattr(…, '_cli_version')"),
        (
            "from dagster_dbt import DbtCliResource\n"
            "class R(DbtCliResource):\n    def v(self):\n        return self._cli_version\n",
            "reads self._cli_version, private to the Dagster class",
        ),
        (
            "from dagster_dbt import DbtCliResource\n"
            "class R(DbtCliResource):\n    @property\n    def _cli_version(self):\n        return super()._cli_version\n",
            "private attribute ._cli_version of another object",
        ),
    ],
)
def test_a_private_use_is_found_and_named(tmp_path: Path, source: str, expected: str) -> None:
    (tmp_path / "pipelines").mkdir()
    (tmp_path / "pipelines" / "module.py").write_text(source, encoding="utf-8")
    found = private_dagster_uses(tmp_path)
    assert len(found) == 1 and found[0].startswith("pipelines/module.py:") and expected in found[0], found


def test_public_uses_and_own_private_names_pass(tmp_path: Path) -> None:
    """A class's own private members, a subclass overriding a hook it defines, and the public API pass."""
    (tmp_path / "pipelines").mkdir()
    (tmp_path / "pipelines" / "module.py").write_text(
        "import dagster as dg\n"
        "from dagster_dbt import DbtCliResource\n"
        "class Mine:\n    def __init__(self):\n        self._n = 1\n    def n(self):\n        return self._n\n"
        "class R(DbtCliResource):\n    @property\n    def _cli_version(self):\n        return self._answer()\n"
        "    def _answer(self):\n        return dg.AssetKey('x').to_user_string()\n",
        encoding="utf-8",
    )
    assert private_dagster_uses(tmp_path) == []
