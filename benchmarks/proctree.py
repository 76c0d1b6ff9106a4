"""Run one command and measure it: wall time and the peak resident memory of its whole process tree.

The tree (the child, its children, theirs — a dbt subprocess, a JVM) is found every ``interval`` seconds
from ``/proc/<pid>/task/<tid>/children`` (or, on kernels without that file, from every process's parent
in ``/proc/<pid>/stat``), and the ``VmRSS`` of its members is summed: ``peak_tree_rss`` is the largest sum
seen. Sampling can miss a spike shorter than the interval, so the exact high-water mark of the largest
single process (``ru_maxrss`` from ``wait4``) is reported beside it; the tree peak is never below it.

A child's ``ru_maxrss`` starts at the peak of the process it was forked from: Linux counts the image the child
ran before ``exec``, which is this process's (a copy, or with vfork this very memory). Once the benchmark
itself has held 2.4 GB (the calibration's queries run in it), every stage after would report at least that.
So ``ru_maxrss`` counts only when it exceeds this process's own peak read just after the spawn (which
allocates before it forks: the environment and arguments encoded for exec) by more than
``INHERITED_SLACK_KIB`` (the kernel's resident counts are approximate); otherwise the sampled tree peak stands
alone.
"""

from __future__ import annotations

import contextlib
import os
import resource
import signal
import subprocess
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

PROC = Path("/proc")
DEFAULT_INTERVAL_S = 0.05
# A child's ru_maxrss within this of the spawner's peak is the inherited image.
INHERITED_SLACK_KIB = 64 * 1024


@dataclass(frozen=True)
class ProcessRun:
    """What one measured command did."""

    returncode: int
    spawned_at: float  # time.monotonic() just before the process was started
    exited_at: float  # time.monotonic() when it was reaped
    peak_tree_rss: int  # bytes, the largest sampled sum of VmRSS over the process tree
    max_process_rss: int  # bytes, ru_maxrss of the largest process of the tree (exact; 0: not known)
    samples: int
    cpu_s: float  # user + system CPU seconds of the process and the children it waited for (wait4)
    timed_out: bool

    @property
    def wall_s(self) -> float:
        return self.exited_at - self.spawned_at

    @property
    def peak_rss(self) -> int:
        """The tree's peak: the sampled sum, never below the exact peak of its largest process."""
        return max(self.peak_tree_rss, self.max_process_rss)


def _read(path: Path) -> str:
    try:
        return path.read_text()
    except OSError:  # the process ended between listing and reading
        return ""


def vm_rss(pid: int) -> int:
    """Resident memory of ``pid`` in bytes (0 when it is gone or a zombie)."""
    for line in _read(PROC / str(pid) / "status").splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    return 0


def _children_from_task_files(pid: int) -> list[int] | None:
    tasks = PROC / str(pid) / "task"
    try:
        tids = list(tasks.iterdir())
    except OSError:
        return []
    found: list[int] = []
    for tid in tids:
        children = tid / "children"
        if not children.exists():
            return None  # the kernel has no CONFIG_PROC_CHILDREN
        found += [int(c) for c in _read(children).split()]
    return found


def _parents() -> dict[int, int]:
    parents: dict[int, int] = {}
    for entry in PROC.iterdir():
        if entry.name.isdigit():
            stat = _read(entry / "stat")
            if stat:  # "pid (comm) state ppid ..."; comm may hold spaces and parentheses
                parents[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
    return parents


def tree_pids(root: int) -> list[int]:
    """``root`` and all its descendants that are alive now."""
    pids, todo = [root], [root]
    parents: dict[int, int] | None = None
    while todo:
        pid = todo.pop()
        children = _children_from_task_files(pid)
        if children is None:
            parents = parents if parents is not None else _parents()
            children = [c for c, p in parents.items() if p == pid]
        pids += children
        todo += children
    return pids


def tree_rss(root: int) -> int:
    return sum(vm_rss(pid) for pid in tree_pids(root))


def _kill_tree(proc: subprocess.Popen[bytes]) -> None:
    """Kill the measured process group (the stage started its own session)."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)


def measure(
    argv: Sequence[str],
    *,
    env: Mapping[str, str],
    cwd: Path,
    log_path: Path,
    timeout_s: float,
    interval_s: float = DEFAULT_INTERVAL_S,
) -> ProcessRun:
    """Run ``argv`` (stdout and stderr to ``log_path``), sampling its tree's memory until it exits."""
    log_path.parent.mkdir(parents=True, exist_ok=True)
    peak = samples = 0
    timed_out = False
    with open(log_path, "wb") as log:
        spawned_at = time.monotonic()
        proc = subprocess.Popen(
            list(argv), env=dict(env), cwd=cwd, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )
        inherited = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB, a floor of the child's
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid == proc.pid:
                exited_at = time.monotonic()
                break
            peak = max(peak, tree_rss(proc.pid))
            samples += 1
            if not timed_out and time.monotonic() - spawned_at > timeout_s:
                timed_out = True
                _kill_tree(proc)
            time.sleep(interval_s)
    proc.returncode = os.waitstatus_to_exitcode(status)  # reaped by wait4: keep Popen from waiting again
    _kill_tree(proc)  # nothing of the stage may outlive it (an orphaned grandchild would skew the next one)
    return ProcessRun(
        returncode=proc.returncode,
        spawned_at=spawned_at,
        exited_at=exited_at,
        peak_tree_rss=peak,
        max_process_rss=usage.ru_maxrss * 1024 if usage.ru_maxrss > inherited + INHERITED_SLACK_KIB else 0,
        samples=samples,
        cpu_s=usage.ru_utime + usage.ru_stime,
        timed_out=timed_out,
    )
