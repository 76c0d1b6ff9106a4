# trace-warehouse — `make run` builds the warehouse from the embedded sample, `make test` runs every test.
# Everything installs from this repository's own files: uv (bootstrapped into .tools/ if missing) and uv.lock.

SHELL := /bin/bash
PORT ?=  # the UI's port for `make dev` (default: $DAGSTER_PORT, else the settings' default)
UV_VERSION := 0.13.9
UV := $(shell command -v uv 2>/dev/null || echo $(CURDIR)/.tools/bin/uv)
PYTEST_ARGS ?=
# Two workers (the machine's two cores); tests/conftest.py groups the modules that share a built warehouse.
PYTEST_WORKERS ?= 2

.PHONY: help install generated system-deps run dev test lint format clean bench bench-smoke

help:
	@echo "make run     install, then build every asset from the sample (offline) into ./warehouse"
	@echo "make test    install, then run the whole test suite"
	@echo "make dev     the Dagster UI on 127.0.0.1 (\$$DAGSTER_PORT or PORT=...), the docs server (project docs too) beside it"
	@echo "make lint    ruff and sqlfluff"
	@echo "make system-deps  Debian's Chromium (browser tests) and a Java runtime (Spark); make test/dev run it"
	@echo "make bench   every benchmark at scale 1.0 on this commit (~1 h) -> benchmarks/results/latest.md, history/"
	@echo "make generated  write the committed generated files again (dbt's profiles.yml, the raw dbt sources)"
	@echo "make clean   delete ./warehouse's generated contents"

$(CURDIR)/.tools/bin/uv:
	python3 -m venv .tools
	.tools/bin/pip install --quiet "uv==$(UV_VERSION)"

.venv/.installed: pyproject.toml uv.lock | $(UV)
	$(UV) sync --frozen --all-extras
	@touch $@

# Files generated from the code and committed (a test fails when one differs from what its module writes): dbt's
# profile from the settings table (pipelines/settings.py), the raw and quarantine dbt sources from the family
# registry and the suites. `make install` writes them when their inputs changed, `make generated` always.
PROFILE_INPUTS := pipelines/settings.py pipelines/warehouse/profiles.py
SOURCES_INPUTS := $(wildcard pipelines/families/*.py) pipelines/warehouse/dbt_sources.py pipelines/lake/quarantine.py $(shell find expectations -name '*.py')
GENERATED := dbt_project/profiles.yml dbt_project/models/staging/_raw__sources.yml

dbt_project/profiles.yml: $(PROFILE_INPUTS) | .venv/.installed
	$(UV) run --frozen python -m pipelines.warehouse.profiles

dbt_project/models/staging/_raw__sources.yml: $(SOURCES_INPUTS) | .venv/.installed
	$(UV) run --frozen python -m pipelines.warehouse.dbt_sources

generated: | .venv/.installed
	$(UV) run --frozen python -m pipelines.warehouse.profiles
	$(UV) run --frozen python -m pipelines.warehouse.dbt_sources

# dagster-dbt reads dbt's manifest when the definitions load: `dbt parse` makes it (no database opened).
DBT_FILES := $(shell find dbt_project -path dbt_project/target -prune -o -type f \( -name '*.sql' -o -name '*.yml' -o -name '*.csv' \) -print)
dbt_project/target/duckdb/manifest.json: .venv/.installed $(DBT_FILES)
	$(UV) run --frozen python -m pipelines.warehouse.dbt_build

dbt_project/target/spark/manifest.json: .venv/.installed $(DBT_FILES)
	$(UV) run --frozen python -m pipelines.warehouse.dbt_build --engine spark

# System packages the tests and the UI's Spark target need, from Debian: Chromium (Playwright drives it; its own
# browser download does not work offline) and a Java runtime (Spark). Installed with apt when run as root;
# otherwise the exact command is printed and the target fails.
CHROMIUM_EXECUTABLE ?= /usr/bin/chromium
APT_PACKAGES := $(if $(wildcard $(CHROMIUM_EXECUTABLE)),,chromium) $(if $(shell command -v java),,openjdk-17-jre-headless)
APT_INSTALL := apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends
system-deps:
ifneq ($(strip $(APT_PACKAGES)),)
	@if [ "$$(id -u)" -eq 0 ]; then \
		echo "installing system packages: $(strip $(APT_PACKAGES))"; \
		$(APT_INSTALL) $(strip $(APT_PACKAGES)); \
	else \
		echo "missing system packages: $(strip $(APT_PACKAGES)). Install them as root, then run make again:" >&2; \
		echo "  sudo sh -c '$(APT_INSTALL) $(strip $(APT_PACKAGES))'" >&2; \
		exit 1; \
	fi
endif

install: .venv/.installed $(GENERATED) dbt_project/target/duckdb/manifest.json dbt_project/target/spark/manifest.json

run: install
	$(UV) run --frozen trace-warehouse run

dev: install system-deps
	@$(UV) run --frozen python -m pipelines.docs_server
	$(UV) run --frozen trace-warehouse dev $(if $(PORT),--port $(PORT))

test: install system-deps
	$(UV) run --frozen pytest -n $(PYTEST_WORKERS) --dist loadgroup --no-loadscope-reorder $(PYTEST_ARGS)

# sqlfluff's dbt templater compiles the models for the duckdb target. It reads the .sqlfluff of the directory
# it runs in (dbt_project/), and the profile opens $WAREHOUSE_DIR/trace.duckdb: an empty temporary one.
lint: install
	$(UV) run --frozen ruff check .
	$(UV) run --frozen ruff format --check .
	lint_warehouse=$$(mktemp -d) && trap 'rm -rf "$$lint_warehouse"' EXIT && cd dbt_project \
		&& WAREHOUSE_DIR=$$lint_warehouse TRACE_ENGINE=duckdb $(UV) run --frozen sqlfluff lint models

format: install
	$(UV) run --frozen ruff format .
	$(UV) run --frozen ruff check --fix .

BENCH_ARGS ?=

bench: install
	$(UV) run --frozen python -m benchmarks.harness --scale 1.0 --runs 3 $(BENCH_ARGS)

bench-smoke: install
	$(UV) run --frozen python -m benchmarks.harness --scale 0.01 --runs 1 --results-dir benchmarks/results/smoke $(BENCH_ARGS)

clean:
	find warehouse -mindepth 1 -maxdepth 1 ! -name README.md ! -name .gitkeep -exec rm -rf {} +
