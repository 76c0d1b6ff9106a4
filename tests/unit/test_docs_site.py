"""The project's docs site builds strictly: any MkDocs warning (a broken internal link or anchor, a page
left out of the nav) fails it; the configuration page lists every settings variable, and the performance
page carries the benchmark record or says it is missing."""

from __future__ import annotations

import html
import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from pipelines.settings import PROJECT_ROOT, SETTINGS_TABLE, SETTINGS_VARS

DOCS = PROJECT_ROOT / "docs"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site")
    built = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(DOCS / "mkdocs.yml"), "-d", str(out)],
        cwd=PROJECT_ROOT,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert built.returncode == 0, built.stderr
    assert "WARNING" not in built.stderr, built.stderr
    return out


def _text(page: Path) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", page.read_text(encoding="utf-8")))


def test_every_page_of_the_nav_is_built(site: Path) -> None:
    pages = [*sorted(p.stem for p in (DOCS / "pages").glob("*.md")), "configuration", "performance"]
    for page in pages:
        assert (site / f"{page}.html").exists(), page


def test_the_configuration_page_lists_every_settings_variable(site: Path) -> None:
    text = _text(site / "configuration.html")
    assert [v for v in SETTINGS_VARS if v not in text] == []
    assert all(var.meaning and var.docs_default for var in SETTINGS_TABLE)  # the help text lives in the table
    assert all(var.type.kind.replace("`", "") in text for var in SETTINGS_TABLE)  # and each one's type
    assert len(set(SETTINGS_VARS)) == len(SETTINGS_VARS)


def test_the_performance_page_is_the_bench_record(site: Path) -> None:
    text = _text(site / "performance.html")
    assert "make bench" in text
    record = PROJECT_ROOT / "benchmarks" / "results" / "latest.md"
    if record.exists():
        first_heading = next(
            line.lstrip("# ").strip() for line in record.read_text().splitlines() if line.startswith("#")
        )
        assert first_heading in text
    else:
        assert "missing" in text


def test_a_missing_bench_record_is_said(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    spec = importlib.util.spec_from_file_location("_docs_hooks", DOCS / "hooks.py")
    assert spec is not None and spec.loader is not None
    hooks = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hooks)
    monkeypatch.setattr(hooks, "BENCH_RECORD", tmp_path / "latest.md")
    assert "`benchmarks/results/latest.md` is missing" in hooks.performance_page()
    (tmp_path / "latest.md").write_text("# Results\n\nsee [the run](20261129.md)\n")
    page = hooks.performance_page()
    assert "## Results" in page and "the run (`benchmarks/results/20261129.md`)" in page


def test_the_docs_say_what_is_not_how_it_came_to_be() -> None:
    sources = [*(DOCS / "pages").glob("*.md"), DOCS / "configuration.in.md", PROJECT_ROOT / "README.md"]
    pattern = re.compile(r"\bissue \d+|#\d{1,2}\b|DESIGN " + "§|previous stop|first design", re.IGNORECASE)
    found = [f"{p.name}: {m.group(0)}" for p in sources for m in pattern.finditer(p.read_text())]
    assert found == []


def test_the_readme_is_a_front_door() -> None:
    readme = (PROJECT_ROOT / "README.md").read_text()
    assert len(readme.splitlines()) <= 250
    assert readme.index("make run") < readme.index("make test")
    assert "SYNTHETIC" in readme and "CC-BY-4.0" in readme
    for link in re.findall(r"\]\((docs/[^)#]+)", readme):
        assert (PROJECT_ROOT / link).exists(), link
