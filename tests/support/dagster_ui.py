"""The real Dagster UI for tests: ``trace-warehouse dev`` on a free 127.0.0.1 port, in its own process group.

``dagster dev`` started from a non-interactive shell ignores SIGINT/SIGTERM and spawns a webserver, a
daemon and code servers (and run workers), so :func:`dagster_ui` starts it with ``start_new_session=True``
and, on exit, signals the whole process group: SIGTERM, a bounded wait, then SIGKILL. Its output goes to
a log file (kept as a test artifact); start-up failures quote the log's tail.

Also here: a minimal GraphQL client (:meth:`DagsterUI.graphql`) for *wait conditions* — whether the code
location has loaded, a run's status — never to launch anything.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

PROJECT_ROOT = Path(__file__).resolve().parents[2]

RUN_DONE = frozenset({"SUCCESS", "FAILURE", "CANCELED"})


class DagsterUIError(RuntimeError):
    """The UI did not come up, or a wait condition was not met in time; the message says why."""


def free_port() -> int:
    """A port that was free on 127.0.0.1 a moment ago (the kernel's pick)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def log_tail(path: Path, lines: int = 40) -> str:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return "(no log)"
    return "\n".join(text.splitlines()[-lines:]) or "(empty log)"


@dataclass
class DagsterUI:
    url: str
    port: int
    log_path: Path
    process: subprocess.Popen[bytes]
    docs_url: str  # the docs server `trace-warehouse dev` starts beside the UI

    def log_tail(self, lines: int = 40) -> str:
        return log_tail(self.log_path, lines)

    def graphql(self, query: str, variables: Mapping[str, Any] | None = None, timeout: float = 10) -> dict:
        body = json.dumps({"query": query, "variables": dict(variables or {})}).encode()
        req = urllib.request.Request(
            f"{self.url}/graphql", data=body, headers={"Content-Type": "application/json"}, method="POST"
        )
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            payload = json.load(resp)
        if payload.get("errors"):
            raise DagsterUIError(f"GraphQL errors: {payload['errors']}")
        return payload["data"]

    def wait_for_code_locations(self, timeout: float = 60) -> list[str]:
        """Wait until every code location has loaded; fail with the load error if one did not."""
        query = """{ workspaceOrError { __typename ... on Workspace { locationEntries {
            name loadStatus locationOrLoadError { __typename ... on PythonError { message } } } } } }"""
        deadline = time.monotonic() + timeout
        last: object = None
        while time.monotonic() < deadline:
            self._check_alive()
            ws = self.graphql(query)["workspaceOrError"]
            entries = ws.get("locationEntries") or []
            last = entries or ws
            for e in entries:
                err = e.get("locationOrLoadError") or {}
                if err.get("__typename") == "PythonError":
                    raise DagsterUIError(f"code location {e['name']} failed to load:\n{err.get('message')}")
            if entries and all(e["loadStatus"] == "LOADED" for e in entries):
                return [e["name"] for e in entries]
            time.sleep(0.5)
        raise DagsterUIError(f"code locations not loaded after {timeout:.0f}s: {last}\n{self.log_tail()}")

    def run_ids(self) -> set[str]:
        data = self.graphql("{ runsOrError(limit: 100) { ... on Runs { results { runId } } } }")
        return {r["runId"] for r in data["runsOrError"]["results"]}

    def runs_of_asset(self, asset_path: list[str]) -> list[dict]:
        """Runs (newest first) whose asset selection includes the asset ``asset_path``."""
        data = self.graphql(
            "{ runsOrError(limit: 50) { ... on Runs { results { runId status assetSelection { path } } } } }"
        )
        return [
            r
            for r in data["runsOrError"]["results"]
            if any(k["path"] == asset_path for k in r.get("assetSelection") or [])
        ]

    def wait_for_new_run(self, asset_path: list[str], known: set[str], timeout: float = 30) -> str:
        """The id of the first run of ``asset_path`` not in ``known`` (e.g. just launched from the UI)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self._check_alive()
            new = [r["runId"] for r in self.runs_of_asset(asset_path) if r["runId"] not in known]
            if new:
                return new[0]
            time.sleep(0.5)
        raise DagsterUIError(f"no new run of {'/'.join(asset_path)} within {timeout:.0f}s")

    def wait_for_run(self, run_id: str, timeout: float = 120) -> str:
        """Wait until the run has finished; return its status (SUCCESS, FAILURE or CANCELED)."""
        query = """query($id: ID!) { runOrError(runId: $id) { __typename ... on Run { status } } }"""
        deadline = time.monotonic() + timeout
        status = "?"
        while time.monotonic() < deadline:
            self._check_alive()
            status = self.graphql(query, {"id": run_id})["runOrError"].get("status", "?")
            if status in RUN_DONE:
                return status
            time.sleep(1)
        raise DagsterUIError(f"run {run_id} still {status} after {timeout:.0f}s\n{self.log_tail()}")

    def run_errors(self, run_id: str) -> str:
        """The run's error events, for a failure message."""
        data = self.graphql(
            """query($id: ID!) { logsForRun(runId: $id) { __typename ... on EventConnection {
                 events { __typename ... on MessageEvent { message level } } } } }""",
            {"id": run_id},
        )
        events = (data["logsForRun"] or {}).get("events") or []
        return "\n".join(e["message"] for e in events if e.get("level") in ("ERROR", "CRITICAL"))[-4000:]

    def _check_alive(self) -> None:
        if self.process.poll() is not None:
            raise DagsterUIError(
                f"trace-warehouse dev exited with {self.process.returncode}\n--- log tail ---\n{self.log_tail()}"
            )


def _server_info(url: str) -> dict | None:
    try:
        with urllib.request.urlopen(f"{url}/server_info", timeout=2) as resp:
            return json.load(resp) if resp.status == 200 else None
    except (urllib.error.URLError, OSError, ValueError):
        return None


def _kill_group(proc: subprocess.Popen[bytes], grace: float) -> None:
    """SIGTERM the process group, wait up to ``grace`` seconds for it to empty, then SIGKILL it."""
    pgid = proc.pid  # start_new_session: the leader's pid is the group id
    for sig, wait in ((signal.SIGTERM, grace), (signal.SIGKILL, 5.0)):
        try:
            os.killpg(pgid, sig)
        except ProcessLookupError:
            break
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline:
            proc.poll()  # reap the leader so that an exited group is really gone
            try:
                os.killpg(pgid, 0)
            except ProcessLookupError:
                return
            time.sleep(0.1)
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=5)


@contextlib.contextmanager
def dagster_ui(
    warehouse_dir: Path,
    log_path: Path,
    *,
    dagster_home: Path | None = None,
    env: Mapping[str, str] | None = None,
    startup_timeout: float = 90,
    stop_grace: float = 10,
) -> Iterator[DagsterUI]:
    """``trace-warehouse dev`` on a free port for ``warehouse_dir``; yields once ``/server_info`` answers.

    ``DAGSTER_HOME`` defaults to ``<warehouse_dir>/.dagster``; the process output goes to ``log_path``. The
    docs server beside the UI gets a free port too (``DagsterUI.docs_url``).
    """
    port, docs_port = free_port(), free_port()
    url = f"http://127.0.0.1:{port}"
    full_env = {
        **os.environ,
        "TRACE_DOCS_PORT": str(docs_port),
        "WAREHOUSE_DIR": str(warehouse_dir),
        "DAGSTER_HOME": str(dagster_home or warehouse_dir / ".dagster"),
        "PYTHONUNBUFFERED": "1",
        **(env or {}),
    }
    log_path.parent.mkdir(parents=True, exist_ok=True)
    with log_path.open("wb") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "pipelines.cli", "dev", "--port", str(port)],
            cwd=PROJECT_ROOT,
            env=full_env,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    ui = DagsterUI(
        url=url, port=port, log_path=log_path, process=proc, docs_url=f"http://127.0.0.1:{docs_port}"
    )
    try:
        deadline = time.monotonic() + startup_timeout
        while _server_info(url) is None:
            ui._check_alive()
            if time.monotonic() > deadline:
                raise DagsterUIError(
                    f"{url}/server_info did not answer within {startup_timeout:.0f}s\n"
                    f"--- log tail ({log_path}) ---\n{ui.log_tail()}"
                )
            time.sleep(0.25)
        yield ui
    finally:
        _kill_group(proc, stop_grace)
