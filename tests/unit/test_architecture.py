"""The layering the code promises (docs/pages/architecture.md), read from the source with ``ast``:

- the packages are stacked in ``LAYERS``, bottom first, in the order the data flows: a module imports only
  modules of lower layers, or of its own folder (or itself, for a top-level module) — never a later layer,
  nor another folder or module of its own layer; every module of the packages is in exactly one entry of one
  layer (a new folder or top-level module fails until it is placed). Imports inside functions count;
- only ``pipelines/defs/``, ``pipelines/definitions.py``, ``pipelines/run.py`` and ``pipelines/cli.py``
  import Dagster (``dagster``, ``dagster_dbt``, …): the library under them runs without it;
- no import cycle among the project's modules, counting imports inside functions (a cycle hidden by a
  function-level import is still a cycle);
- only ``pipelines/settings.py`` reads the process environment;
- no module under ``tests/`` imports from a ``test_*.py`` module (at any depth, relative imports included):
  helpers the modules share live in ``tests/support/``, fixtures they share in a ``conftest.py``.
"""

from __future__ import annotations

import ast
from collections.abc import Collection, Iterator, Mapping
from pathlib import Path

import pytest

from pipelines.settings import PROJECT_ROOT

PACKAGES = ("pipelines", "expectations")

# The layers of PACKAGES, bottom first. Each entry is a folder (``/`` at the end: every module under it) or a
# module file; docs/pages/architecture.md says what each holds.
Layers = tuple[tuple[str, ...], ...]
LAYERS: Layers = (
    ("pipelines/__init__.py", "pipelines/settings.py"),
    # shared helpers: the one atomic file write, the run's progress display, the run's log file
    ("pipelines/atomic_write.py", "pipelines/progress.py", "pipelines/run_log.py"),
    ("pipelines/families/",),
    ("pipelines/sources/",),
    ("pipelines/sample/",),
    ("pipelines/lake/",),
    ("expectations/",),
    ("pipelines/validate/",),
    ("pipelines/spark/",),
    ("pipelines/warehouse/",),
    ("pipelines/analysis/",),  # the fits: distributions the reports draw and the export transforms re-draw
    ("pipelines/report/", "pipelines/export/", "pipelines/docs_server.py"),
    ("pipelines/status.py",),
    ("pipelines/defs/",),
    ("pipelines/definitions.py",),
    ("pipelines/run.py",),
    ("pipelines/cli.py",),
)
TEST_PACKAGES = ("tests",)
DAGSTER_ALLOWED = ("pipelines/defs/", "pipelines/definitions.py", "pipelines/run.py", "pipelines/cli.py")
ENVIRONMENT_ALLOWED = ("pipelines/settings.py",)


def project_modules(packages: Collection[str] = PACKAGES, root: Path = PROJECT_ROOT) -> dict[str, Path]:
    """Dotted module name → file, for every module of the project's packages (or of ``packages`` under
    ``root``)."""
    out = {}
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            parts = path.relative_to(root).with_suffix("").parts
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            out[name] = path
    return out


def imported_names(
    path: Path, modules: Collection[str] = (), name: str | None = None
) -> Iterator[tuple[str, int]]:
    """Every module an ``import`` names (at any depth of the file), with its line. ``from a import b``
    names ``a.b`` when that is one of ``modules`` (a submodule), else ``a``. Relative imports (``from .x import
    y``, ``from . import x``) are resolved against ``name``, the dotted module name of ``path``; without it
    they are skipped."""
    package = None
    if name is not None:
        package = (name if path.name == "__init__.py" else name.rpartition(".")[0]).split(".")
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            yield from ((alias.name, node.lineno) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and (node.level == 0 or package is not None):
            base = node.module
            if node.level:
                base = ".".join(
                    package[: len(package) - node.level + 1] + ([node.module] if node.module else [])
                )
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                yield (sub if sub in modules else base), node.lineno


def imports_of_test_modules(modules: Mapping[str, Path]) -> list[tuple[str, int, str]]:
    """(importer, line, imported), once each and sorted, for every import, among ``modules``, of a module
    whose file is ``test_*.py``."""
    return sorted(
        {
            (name, line, target)
            for name, path in modules.items()
            for target, line in imported_names(path, modules, name)
            if target in modules and target != name and modules[target].name.startswith("test_")
        }
    )


def import_graph(modules: Mapping[str, Path]) -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        for target, _ in imported_names(path, modules):
            if target in modules and target != name:
                graph[name].add(target)
    return graph


def cycles(graph: Mapping[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def relative(path: Path) -> str:
    return path.relative_to(PROJECT_ROOT).as_posix()


def layer_violations(root: Path, layers: Layers, packages: Collection[str] | None = None) -> list[str]:
    """What breaks the layer order ``layers`` in the modules of ``packages`` under ``root`` (default: the
    packages the entries name), as sorted lines: an entry that names no module; a module in no entry, or in
    several; and each import of a project module (at any depth of the file, relative ones resolved) whose
    target is in a later layer, or in another entry of the importer's own layer."""
    packages = sorted(packages or {entry.split("/")[0] for layer in layers for entry in layer})
    modules = project_modules(packages, root)
    rels = {name: path.relative_to(root).as_posix() for name, path in modules.items()}
    entries = [(index, entry) for index, layer in enumerate(layers) for entry in layer]

    def holds(entry: str, rel: str) -> bool:
        return rel == entry or (entry.endswith("/") and rel.startswith(entry))

    found: list[str] = []
    place: dict[str, tuple[int, str]] = {}  # module → (layer, entry)
    for name, rel in rels.items():
        holders = [(index, entry) for index, entry in entries if holds(entry, rel)]
        if len(holders) == 1:
            place[name] = holders[0]
        elif holders:
            found.append(f"{rel}: in several entries of the layers: {_entries(holders)}")
        else:
            parts = rel.split("/")
            unplaced = f"{parts[0]}/{parts[1]}/" if len(parts) > 2 else rel
            found.append(f"{unplaced}: in no layer (add it to the layer it belongs to)")
    found += [
        f"{entry}: layer {index} names no module"
        for index, entry in entries
        if not any(holds(entry, rel) for rel in rels.values())
    ]
    for name, (here, unit) in place.items():
        for target, line in imported_names(modules[name], modules, name):
            if target not in place or target == name:
                continue
            there, other = place[target]
            if there > here:
                found.append(
                    f"{rels[name]}:{line} imports {target}: layer {here} ({unit}) imports the later layer "
                    f"{there} ({other})"
                )
            elif there == here and other != unit:
                found.append(
                    f"{rels[name]}:{line} imports {target}: {unit} imports {other}, another entry of its "
                    f"own layer {here}"
                )
    return sorted(set(found))


def _entries(holders: list[tuple[int, str]]) -> str:
    return ", ".join(f"{entry} (layer {index})" for index, entry in holders)


def _write_tree(root: Path, files: Mapping[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


TOY_LAYERS: Layers = (
    ("app/__init__.py", "app/base.py"),
    ("app/low/",),
    ("app/mid/", "app/side.py"),
    ("app/high/",),
)
TOY_TREE = {
    "app/__init__.py": "",
    "app/base.py": "X = 1\n",
    "app/low/__init__.py": "",
    "app/low/a.py": "from app.base import X\n",
    "app/low/b.py": "from app.low import a\nfrom . import a as again\n",
    "app/mid/__init__.py": "",
    "app/mid/m.py": "import app.low.a\nfrom ..low.b import again\n",
    "app/side.py": "from app import base\n",
    "app/high/__init__.py": "",
    "app/high/h.py": "from app.mid import m\nfrom app import side\nimport app.base\n",
}


def test_the_layer_checker_passes_a_tree_whose_imports_all_run_down(tmp_path: Path) -> None:
    _write_tree(tmp_path, TOY_TREE)
    assert layer_violations(tmp_path, TOY_LAYERS) == []


def test_the_layer_checker_names_a_back_edge_hidden_in_a_function(tmp_path: Path) -> None:
    _write_tree(tmp_path, {**TOY_TREE, "app/low/b.py": "import os\n\ndef f():\n    from app.high import h\n"})
    assert layer_violations(tmp_path, TOY_LAYERS) == [
        "app/low/b.py:4 imports app.high.h: layer 1 (app/low/) imports the later layer 3 (app/high/)"
    ]


def test_the_layer_checker_resolves_a_relative_back_edge(tmp_path: Path) -> None:
    _write_tree(tmp_path, {**TOY_TREE, "app/mid/m.py": "from ..high import h\n"})
    assert layer_violations(tmp_path, TOY_LAYERS) == [
        "app/mid/m.py:1 imports app.high.h: layer 2 (app/mid/) imports the later layer 3 (app/high/)"
    ]


def test_the_layer_checker_refuses_an_import_within_one_layer_across_its_entries(tmp_path: Path) -> None:
    _write_tree(tmp_path, {**TOY_TREE, "app/side.py": "from app.mid.m import again\n"})
    assert layer_violations(tmp_path, TOY_LAYERS) == [
        "app/side.py:1 imports app.mid.m: app/side.py imports app/mid/, another entry of its own layer 2"
    ]


def test_the_layer_checker_names_what_no_layer_holds(tmp_path: Path) -> None:
    _write_tree(tmp_path, {**TOY_TREE, "app/new/__init__.py": "", "app/new/n.py": "", "app/loose.py": ""})
    layers = (*TOY_LAYERS, ("app/gone/",), ("app/low/a.py",))
    assert layer_violations(tmp_path, layers) == [
        "app/gone/: layer 4 names no module",
        "app/loose.py: in no layer (add it to the layer it belongs to)",
        "app/low/a.py: in several entries of the layers: app/low/ (layer 1), app/low/a.py (layer 5)",
        "app/new/: in no layer (add it to the layer it belongs to)",
    ]


def test_every_import_runs_down_the_layers() -> None:
    """Every module of the packages is in one layer of ``LAYERS``, and imports only lower layers or its own
    folder."""
    assert sorted({entry.split("/")[0] for layer in LAYERS for entry in layer}) == sorted(PACKAGES)
    assert layer_violations(PROJECT_ROOT, LAYERS, PACKAGES) == []


def test_the_cycle_finder_finds_a_cycle_through_a_function_level_import(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("import b\n")
    (tmp_path / "b.py").write_text("def f():\n    from c import x\n")
    (tmp_path / "c.py").write_text("from a import y\nimport d\n")
    (tmp_path / "d.py").write_text("")
    modules = {p.stem: p for p in tmp_path.glob("*.py")}
    assert cycles(import_graph(modules)) == [["a", "b", "c"]]


def test_only_the_dagster_layer_imports_dagster() -> None:
    offenders = [
        f"{relative(path)}:{line} imports {target}"
        for path in project_modules().values()
        if not relative(path).startswith(DAGSTER_ALLOWED)
        for target, line in imported_names(path)
        if target.split(".")[0] == "dagster" or target.startswith("dagster_")
    ]
    assert offenders == []


def test_no_import_cycles() -> None:
    assert cycles(import_graph(project_modules())) == []


def reads_environment(path: Path) -> list[int]:
    """Lines that touch the process environment: ``os.environ``, ``os.getenv``, ``os.putenv``, or
    ``environ``/``getenv`` imported from ``os``."""
    lines = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Attribute) and node.attr in ("environ", "getenv", "putenv", "environb"):
            if isinstance(node.value, ast.Name) and node.value.id == "os":
                lines.append(node.lineno)
        elif (
            isinstance(node, ast.ImportFrom)
            and node.module == "os"
            and any(a.name in ("environ", "getenv", "putenv", "environb") for a in node.names)
        ):
            lines.append(node.lineno)
    return lines


@pytest.mark.parametrize("source", ["import os\nx = os.environ['A']\n", "from os import getenv\n"])
def test_the_environment_finder_sees_a_read(tmp_path: Path, source: str) -> None:
    path = tmp_path / "m.py"
    path.write_text(source)
    assert reads_environment(path)


def test_only_settings_reads_the_environment() -> None:
    offenders = [
        f"{relative(path)}:{line}"
        for path in project_modules().values()
        if relative(path) not in ENVIRONMENT_ALLOWED
        for line in reads_environment(path)
    ]
    assert offenders == []


def test_the_test_import_finder_sees_every_form(tmp_path: Path) -> None:
    package = tmp_path / "suite"
    (package / "sub").mkdir(parents=True)
    files = {
        "__init__.py": "",
        "helpers.py": "X = 1\n",
        "test_a.py": "from suite.helpers import X\n",  # from a helper module: fine
        "test_b.py": "import os\n\ndef test_b():\n    from suite.test_a import X\n",  # inside a function
        "test_c.py": "from . import test_a\n",
        "conftest.py": "import suite.test_a as a\n",
        "sub/__init__.py": "",
        "sub/test_d.py": "from ..test_a import X\n",
        "sub/test_e.py": "from suite import helpers, test_b\n",
    }
    for name, text in files.items():
        (package / name).write_text(text)
    found = imports_of_test_modules(project_modules(["suite"], tmp_path))
    assert found == [
        ("suite.conftest", 1, "suite.test_a"),
        ("suite.sub.test_d", 1, "suite.test_a"),
        ("suite.sub.test_e", 1, "suite.test_b"),
        ("suite.test_b", 4, "suite.test_a"),
        ("suite.test_c", 1, "suite.test_a"),
    ]


def test_no_test_module_imports_from_a_test_module() -> None:
    """A module under ``tests/`` imports what it shares with others from ``tests/support/`` (or gets it as a
    fixture of a ``conftest.py``), never from another ``test_*.py`` module."""
    modules = project_modules(TEST_PACKAGES)
    scanned = [path for path in modules.values() if path.name.startswith("test_")]
    assert len(scanned) > 50, scanned  # the whole suite was read, not an empty or misplaced folder
    assert "tests.integration.conftest" in modules and "tests.support" in modules
    offenders = [
        f"{relative(modules[name])}:{line} imports {target}"
        for name, line, target in imports_of_test_modules(modules)
    ]
    assert offenders == []
