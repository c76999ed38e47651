"""How bench/campaign.py measures and prints a phase: wall time, rate, peak RSS per process.

Peak RSS is each process's VmHWM, reset at the start of every phase (``/proc/PID/clear_refs``,
Linux), so a phase's figure is its own, not the largest of the run so far. The processes are
this one (everything runs in it: the services, the pool builds and the evaluation jobs, with
Celery eager, and the judging threads) and the PostgreSQL backends serving its connections
(the largest of them; a backend's RSS includes the shared buffers it touched). Where /proc
is not writable the figure is the peak so far. CPU time of this process (every thread) and of
those backends says where a phase's wall time went; the rest is waiting (disk, commits' fsync,
locks) or other load on the machine.
"""

from __future__ import annotations

import os
import resource
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

GIB = 1024.0  # MB
RSS_GOAL_MB = 1 * GIB
TOTAL_GOAL_S = 25 * 60

# The earlier figure of each phase, from the closing notes of the earlier sessions (`issues
# stops`), each from its own benchmark; at the size said there.
EARLIER: dict[str, str] = {
    "generate files": "none (the bench's own synthetic data)",
    "import posts": "33,649 posts/s (1 M posts, import_collection, quiet machine)",
    "import comments": "70,030 comments/s (import_collection --small)",
    "import formulas": "176,042 formulas/s (5 M, import_collection, quiet machine)",
    "import SLT": "54,457 rows/s (import_collection --small; goal >= 150,000)",
    "import topics": "none",
    "upload runs": "108,280 rows/s (ingest_runs, 40 x 100,000 rows, quiet machine)",
    "pools answer": "build 2.34 s, 91 MB (pooling, 100 topics x 40 runs x 1,000 rows)",
    "pools formula": "build 3.25 s, 102 MB (pooling, same size)",
    "pools openqa": "rebuild with nothing new 0.009 s (pooling --small)",
    "assignments": "none",
    "judging": "submit over HTTP p50 27.1 / p95 51.6 ms, 50 assessors (judging_load)",
    "agreement": "103.6 ms, 60,120 judgments, 10 assessors (agreement)",
    "qrels export": "none",
    "evaluation": "40 runs in 5.29 s without significance tests (evaluate)",
}


def _status(pid: int | str) -> dict[str, int]:
    found = {}
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith(("VmHWM", "VmRSS")):
                    found[line.split(":")[0]] = int(line.split()[1])
    except OSError:
        pass
    return found


def _reset_peak(pid: int | str) -> None:
    try:
        with open(f"/proc/{pid}/clear_refs", "w") as refs:
            refs.write("5")
    except OSError:
        pass


def own_peak_mb() -> float:
    kb = _status("self").get("VmHWM")
    if kb is None:
        kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return kb / 1024


def backend_pid() -> int | None:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        return int(cursor.fetchone()[0])


def cpu_seconds(pid: int | str) -> float:
    """User + system CPU time of a process so far (/proc/PID/stat), 0 where unreadable."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@dataclass(frozen=True)
class Backend:
    """What a PostgreSQL backend used: peak RSS (MB) and CPU seconds."""

    peak_mb: float
    cpu: float


def backend_use() -> Backend:
    """The backend serving this thread's connection, since it started (or its peak reset)."""
    pid = backend_pid()
    if pid is None:
        return Backend(0.0, 0.0)
    return Backend(_status(pid).get("VmHWM", 0) / 1024, cpu_seconds(pid))


# Other backends a phase used (its worker threads' connections, each opened in the phase).
_other_backends: list[Backend] = []


def report_backend(use: Backend) -> None:
    _other_backends.append(use)


@dataclass
class Phase:
    name: str
    seconds: float
    count: int
    unit: str
    bench_mb: float
    backend_mb: float | None
    bench_cpu: float = 0.0
    backend_cpu: float = 0.0
    notes: list[str] = field(default_factory=list)

    @property
    def rate(self) -> float:
        return self.count / self.seconds if self.seconds > 0 else float("inf")


class Phases:
    """Runs and prints the phases; keeps them for the summary."""

    def __init__(self) -> None:
        self.done: list[Phase] = []
        self.peaks: dict[str, float] = {"bench process": 0.0, "PostgreSQL backend": 0.0}

    def run(self, name: str, unit: str, action: Callable[[], tuple[int, list[str]]]) -> Any:
        """``action()`` returns (items done, note lines); printed as soon as it ends."""
        backend = backend_pid()
        _other_backends.clear()
        _reset_peak("self")
        if backend is not None:
            _reset_peak(backend)
        backend_cpu = cpu_seconds(backend) if backend is not None else 0.0
        bench_cpu = time.process_time()
        start = time.perf_counter()
        count, notes = action()
        seconds = time.perf_counter() - start
        bench_cpu = time.process_time() - bench_cpu
        after = backend_pid()
        if after == backend and after is not None:
            backend_cpu = cpu_seconds(after) - backend_cpu
        else:  # the connection was reopened: count the new backend's work
            backend_cpu = cpu_seconds(after) if after is not None else 0.0
        backend_kb = max(
            (_status(pid).get("VmHWM", 0) for pid in {backend, after} if pid is not None),
            default=0,
        )
        backend_mb = max([backend_kb / 1024, *(b.peak_mb for b in _other_backends)]) or None
        backend_cpu += sum(b.cpu for b in _other_backends)
        phase = Phase(
            name, seconds, count, unit, own_peak_mb(), backend_mb, bench_cpu, backend_cpu, notes
        )
        self.done.append(phase)
        self.peaks["bench process"] = max(self.peaks["bench process"], phase.bench_mb)
        self.peaks["PostgreSQL backend"] = max(
            self.peaks["PostgreSQL backend"], phase.backend_mb or 0.0
        )
        self._print(phase)
        return phase

    @staticmethod
    def _print(phase: Phase) -> None:
        backend = f"{phase.backend_mb:6.0f}" if phase.backend_mb else "     -"
        print(
            f"phase {phase.name:<16} {phase.seconds:9.2f} s {phase.count:>12,} {phase.unit:<10} "
            f"{phase.rate:>12,.0f}/s  RSS bench {phase.bench_mb:6.0f} MB, PG backend {backend} MB",
            flush=True,
        )
        for note in phase.notes:
            print(f"    {note}", flush=True)
        print(
            f"    CPU: bench process {phase.bench_cpu:.2f} s, PostgreSQL backends "
            f"{phase.backend_cpu:.2f} s (of {phase.seconds:.2f} s wall on {os.cpu_count()} CPUs)",
            flush=True,
        )
        print(f"    earlier: {EARLIER.get(phase.name, 'none')}", flush=True)

    def summary(self, database_bytes: int, generated: str) -> None:
        total = sum(p.seconds for p in self.done if p.name != generated)
        with_files = sum(p.seconds for p in self.done)
        print(
            f"\n{'phase':<18} {'wall s':>9} {'share':>6} {'bench CPU s':>12} {'PG CPU s':>9} "
            f"{'bench MB':>9} {'PG MB':>7}"
        )
        for p in self.done:
            backend = f"{p.backend_mb:7.0f}" if p.backend_mb else "      -"
            share = p.seconds / with_files if with_files else 0.0
            print(
                f"{p.name:<18} {p.seconds:9.2f} {share:6.1%} {p.bench_cpu:12.2f} "
                f"{p.backend_cpu:9.2f} {p.bench_mb:9.0f} {backend}"
            )
        verdict = "met" if total < TOTAL_GOAL_S else "MISSED"
        print(
            f"whole rehearsal (every phase but '{generated}'): {total:,.1f} s = "
            f"{total / 60:.1f} min (goal < 25 min: {verdict}); with the files generated: "
            f"{with_files / 60:.1f} min"
        )
        worst = max(self.peaks.values())
        peaks = ", ".join(f"{name} {mb:,.0f} MB" for name, mb in self.peaks.items())
        verdict = "met" if worst < RSS_GOAL_MB else "MISSED"
        print(f"peak RSS per process: {peaks} (goal: no process > 1 GB: {verdict})")
        print(f"database size at the end: {database_bytes / 2**20:,.0f} MB (pg_database_size)")
        load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
        print(f"load average at the end: {load} on {os.cpu_count()} CPUs")
