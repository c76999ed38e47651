"""Benchmark: 100 runs x 50 topics x 1,000 rows with string docnos, 6 trec_eval measures,
against trec_eval 9 itself and two peers; then 1,000 runs in flat memory.

The runs (docnos such as ``FBIS3-10082``; graded qrels, ~400 judged documents a topic) are
scored with ``map``, ``P_10``, ``ndcg_cut_10``, ``recip_rank``, ``bpref`` and ``Rprec``
(means as ``trec_eval -c``) in one process by:

- qrelsmith (``evaluation.core.runfiles.evaluate_run_files_measures``: read, score, drop, each run);
- trec_eval 9, the C program, one process per run (``--trec-eval PATH``, or built with make
  from the source in pytrec_eval-terrier's sdist when that sdist carries it): ours must equal
  its printed figures (4 decimals) for every run and measure;
- ir_measures 0.4.3 (pytrec_eval underneath) and ranx, each on its own readers: their largest
  difference from ours is printed (a tenth of the runs have scores that differ below float32
  precision, and rounded scores make ties: both are where tools part ways).

Then 1,000 runs (the first 100 are the files above) are evaluated in a child process: its peak
memory (goal under 300 MB) next to a 100-run child's, and its first 100 runs' figures equal to
the 100 computed separately. Install the peers with ``pip install -e '.[bench]'``.

    .venv/bin/python bench/evaluate_measures.py [--small] [--runs N] [--big N] [--trec-eval PATH]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench.trec_eval_build import trec_eval_binary  # noqa: E402
from evaluation.core.runfiles import default_workers, evaluate_run_files_measures  # noqa: E402

MEASURES = ["map", "P_10", "ndcg_cut_10", "recip_rank", "bpref", "Rprec"]
TREC_EVAL_ARGS = ["-m", "map", "-m", "P.10", "-m", "ndcg_cut.10", "-m", "recip_rank"]
TREC_EVAL_ARGS += ["-m", "bpref", "-m", "Rprec"]
IR_NAMES = ["AP", "P@10", "nDCG@10", "RR", "Bpref", "Rprec"]  # the same, as ir_measures names
RANX_NAMES = ["map", "precision@10", "ndcg@10", "mrr", "bpref", "r-precision"]
UNIVERSE = 5_000  # candidate documents a topic
LOADAVG = Path("/proc/loadavg")
PREFIXES = ("FBIS3", "FT911", "LA0101", "FR940104", "clueweb12-0000tw")
Figures = dict[str, list[float]]  # run file -> means in MEASURES order


def docno(topic: int, n: int) -> str:
    return f"{PREFIXES[(topic + n) % len(PREFIXES)]}-{topic:03d}{n:05d}"


def write_files(
    folder: Path, runs: int, topics: int, rows: int, judged: int, seed: int
) -> tuple[Path, list[Path]]:
    """Qrels and ``runs`` run files; run r is the same file whatever ``runs`` is."""
    rng = random.Random(seed)
    pools: dict[int, list[str]] = {}
    universe = {t: [docno(t, n) for n in range(UNIVERSE)] for t in range(1, topics + 1)}
    with (folder / "qrels.txt").open("w") as qrels:
        for t in range(1, topics + 1):
            pools[t] = rng.sample(universe[t], judged)
            for doc in pools[t]:
                grade = rng.choices((0, 1, 2), weights=(90, 7, 3))[0]
                qrels.write(f"{t}\t0\t{doc}\t{grade}\n")
    paths = []
    for r in range(runs):
        run_rng = random.Random(seed * 100_003 + r)
        path = folder / f"run{r:04d}.txt"
        with path.open("w") as out:
            out.write(run_text(run_rng, r, topics, rows, pools, universe))
        paths.append(path)
    return folder / "qrels.txt", paths


def run_text(
    rng: random.Random,
    r: int,
    topics: int,
    rows: int,
    pools: dict[int, list[str]],
    universe: dict[int, list[str]],
) -> str:
    lines = []
    for t in range(1, topics + 1):
        if r % 10 == 9 and t % 25 == 0:
            continue  # a few runs miss a topic: trec_eval -c scores it
        picked = dict.fromkeys(rng.sample(pools[t], min(len(pools[t]), rows // 3)))
        for doc in rng.sample(universe[t], rows):
            if len(picked) >= rows:
                break
            picked[doc] = None
        docs = list(picked)
        rng.shuffle(docs)
        for rank, doc in enumerate(docs, 1):
            if r % 10 == 3:  # scores a double tells apart and float32 does not
                score = f"{1000.0 + (rows - rank) * 1e-5:.5f}"
            else:
                score = f"{round(50.0 - rank / 11.0, 1)}"  # rounding makes ties
            lines.append(f"{t} Q0 {doc} {rank} {score} team{r}\n")
    return "".join(lines)


def _cpu() -> float:
    """CPU seconds of this process and its finished children (trec_eval's processes): on a
    shared, loaded machine a fairer measure than wall time."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


class Clock:
    def __enter__(self) -> Clock:
        self.wall, self.cpu = time.perf_counter(), _cpu()
        return self

    def __exit__(self, *exc: object) -> None:
        self.wall, self.cpu = time.perf_counter() - self.wall, _cpu() - self.cpu


def ours(qrels: Path, runs: list[Path], precision: str = "double") -> tuple[Clock, Figures]:
    with Clock() as clock:
        rows = evaluate_run_files_measures(
            qrels,
            runs,
            MEASURES,
            kind="document",
            precision=precision,  # type: ignore[arg-type]
        )
    return clock, {str(r["file"]): [r["measures"][m] for m in MEASURES] for r in rows}  # type: ignore[index]


def trec_eval(binary: Path, qrels: Path, runs: list[Path]) -> tuple[Clock, Figures]:
    found: Figures = {}
    with Clock() as clock:
        for path in runs:
            out = subprocess.run(
                [str(binary), "-c", *TREC_EVAL_ARGS, str(qrels), str(path)],
                check=True,
                capture_output=True,
                text=True,
            ).stdout
            means = {f[0]: float(f[2]) for f in (line.split() for line in out.splitlines())}
            found[path.name] = [means[m] for m in MEASURES]
    return clock, found


def ir_measures_peer(qrels: Path, runs: list[Path]) -> tuple[Clock, Figures]:
    import ir_measures

    measures = [ir_measures.parse_measure(n) for n in IR_NAMES]
    found: Figures = {}
    with Clock() as clock:
        evaluator = ir_measures.evaluator(measures, ir_measures.read_trec_qrels(str(qrels)))
        for path in runs:
            agg = evaluator.calc_aggregate(ir_measures.read_trec_run(str(path)))
            found[path.name] = [float(agg[m]) for m in measures]
    return clock, found


def ranx_peer(qrels: Path, runs: list[Path]) -> tuple[Clock, Figures]:
    from ranx import Qrels, Run, evaluate

    found: Figures = {}
    with Clock() as clock:
        judged = Qrels.from_file(str(qrels), kind="trec")
        for path in runs:
            run = Run.from_file(str(path), kind="trec")
            scores = evaluate(judged, run, RANX_NAMES, make_comparable=True)
            found[path.name] = [float(scores[m]) for m in RANX_NAMES]  # type: ignore[index]
    return clock, found


def close_scores(name: str) -> bool:
    """Whether run file ``name`` has scores closer than float32 tells apart (see run_text)."""
    return int(name.removeprefix("run").removesuffix(".txt")) % 10 == 3


def largest_difference(a: Figures, b: Figures, *, close: bool | None = None) -> tuple[float, str]:
    """Largest difference over the runs (only those with or without close scores if given)."""
    worst, where = 0.0, ""
    for name, values in a.items():
        if close is not None and close_scores(name) != close:
            continue
        for m, x, y in zip(MEASURES, values, b[name], strict=True):
            if abs(x - y) > worst:
                worst, where = abs(x - y), f"{name} {m}"
    return worst, where


def printed_differences(a: Figures, b: Figures, *, close: bool | None = None) -> int:
    """Figures that differ as trec_eval prints them (4 decimals), over the runs with or
    without float32-close scores if ``close`` is given."""
    return sum(
        f"{x:.4f}" != f"{y:.4f}"
        for name in a
        if close is None or close_scores(name) == close
        for x, y in zip(a[name], b[name], strict=True)
    )


def trec_eval_version(binary: Path) -> tuple[str, str]:
    """(version, how it compares scores): up to 9.0.7 trec_eval kept scores as float32."""
    out = subprocess.run([str(binary), "--version"], capture_output=True, text=True)
    version = (out.stdout + out.stderr).split()[-1]
    parts = tuple(int(p) for p in version.split(".") if p.isdigit())
    return version, "float32" if parts < (9, 0, 8) else "double"


# ``manage.py evaluate`` itself, in a fresh process. It scores runs in worker processes, so
# its peak is that of the whole tree: the proportional set size (PSS: a page shared by the
# forked workers counted once) of the process and its children, sampled every 20 ms, and the
# process's own high-water mark (VmHWM, reset by exec; ru_maxrss is not). Output goes to a
# file, not kept in memory.
CHILD = """
import io, json, os, sys, threading, time
sys.path.insert(0, {repo!r})
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.dev")

def pss(pid):
    try:
        with open(f"/proc/{{pid}}/smaps_rollup") as f:
            return next(int(l.split()[1]) for l in f if l.startswith("Pss:"))
    except (OSError, StopIteration):
        return 0

def tree():
    me = os.getpid()
    kids = []
    for task in os.listdir(f"/proc/{{me}}/task"):
        with open(f"/proc/{{me}}/task/{{task}}/children") as f:
            kids += f.read().split()
    return pss(me) + sum(pss(int(k)) for k in kids)

peak, done = [0], threading.Event()
def sample():
    while not done.wait(0.02):
        peak[0] = max(peak[0], tree())
threading.Thread(target=sample, daemon=True).start()
import django
django.setup()
from django.core.management import call_command
with open({out!r}, "w") as out:
    call_command("evaluate", *{runs!r}, "--qrels", {qrels!r}, "--task", "document",
        *[a for m in {measures!r} for a in ("--measure", m)], "--format", "json", stdout=out)
done.set()
hwm = next(l for l in open("/proc/self/status") if l.startswith("VmHWM"))
print(peak[0] / 1024, int(hwm.split()[1]) / 1024)
"""


def child(qrels: Path, runs: list[Path]) -> tuple[float, float, float, Figures]:
    """``manage.py evaluate`` in a fresh process: (wall s, peak MB of it and its workers,
    its own peak MB, figures)."""
    out = qrels.parent / "evaluate.json"
    code = CHILD.format(
        repo=str(REPO),
        qrels=str(qrels),
        runs=[str(p) for p in runs],
        measures=MEASURES,
        out=str(out),
    )
    with Clock() as clock:
        peaks = subprocess.run(
            [sys.executable, "-c", code], check=True, capture_output=True, text=True
        ).stdout.split()
    rows = json.loads(out.read_text())
    figures = {Path(str(r["file"])).name: [r["measures"][m] for m in MEASURES] for r in rows}
    return clock.wall, float(peaks[0]), float(peaks[1]), figures


def compare_peers(qrels: Path, runs: list[Path], binary: Path | None, why: str) -> None:
    n = len(runs)
    our_clock, our = ours(qrels, runs)
    timings = [(f"qrelsmith evaluate ({default_workers()} workers)", our_clock)]
    if binary is not None:
        version, precision = trec_eval_version(binary)
        clock, theirs = trec_eval(binary, qrels, runs)
        timings.append((f"trec_eval {version} (one process per run)", clock))
        same = our if precision == "double" else ours(qrels, runs, precision)[1]
        differ = printed_differences(same, theirs)
        print(
            f"  ours (--score-precision {precision}, as trec_eval {version} compares scores) "
            f"against trec_eval {version}: {differ} of {n * len(MEASURES)} printed figures "
            f"differ ({'identical' if not differ else 'NOT identical'})"
        )
        if precision != "double":
            print(
                f"  ours as doubles (trec_eval 9.0.8+) against trec_eval {version}: "
                f"{printed_differences(our, theirs)} differ, all on the runs with "
                f"float32-close scores: {printed_differences(our, theirs, close=False) == 0}"
            )
    else:
        print(f"  trec_eval 9: not run ({why})")
    for name, peer in (("ir_measures 0.4.3", ir_measures_peer), ("ranx", ranx_peer)):
        try:
            clock, theirs = peer(qrels, runs)
        except ImportError:
            print(f"  {name}: not installed (pip install -e '.[bench]')")
            continue
        timings.append((f"{name} (numba compiles on 1st call)" if name == "ranx" else name, clock))
        worst, where = largest_difference(our, theirs)
        apart, _ = largest_difference(our, theirs, close=False)
        print(
            f"  {name}: largest difference from ours {worst:.4f} ({where}); "
            f"{apart:.2e} over the runs whose scores float32 holds apart"
        )
    print(f"  {'':36} {'wall s':>8} {'ms/run':>8} {'CPU s':>8} {'ms/run':>8}")
    for name, clock in timings:
        print(
            f"  {name:36} {clock.wall:8.2f} {1000 * clock.wall / n:8.1f} "
            f"{clock.cpu:8.2f} {1000 * clock.cpu / n:8.1f}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", action="store_true", help="10 runs x 10 topics x 200 rows")
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--big", type=int, default=1000, help="runs of the memory check")
    parser.add_argument("--topics", type=int, default=50)
    parser.add_argument("--rows", type=int, default=1000)
    parser.add_argument("--judged", type=int, default=400)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--trec-eval", type=Path, help="a trec_eval 9 binary (else built)")
    args = parser.parse_args()
    if args.small:
        args.runs, args.big, args.topics, args.rows, args.judged = 10, 40, 10, 200, 80
    with tempfile.TemporaryDirectory() as tmp:
        binary, why = trec_eval_binary(args.trec_eval, Path(tmp) / "trec_eval")
        folder = Path(tmp) / "files"
        folder.mkdir()
        qrels, paths = write_files(folder, args.big, args.topics, args.rows, args.judged, args.seed)
        print(
            f"evaluate_measures bench: {args.runs} runs x {args.topics} topics x {args.rows} "
            f"rows (string docnos), qrels {args.topics} topics x {args.judged} judged; "
            f"measures {', '.join(MEASURES)}"
        )
        print(f"  load average: {LOADAVG.read_text().strip()} ({os.cpu_count()} CPUs)")
        compare_peers(qrels, paths[: args.runs], binary, why)
        small_wall, small_peak, small_own, small = child(qrels, paths[: args.runs])
        big_wall, big_peak, big_own, big = child(qrels, paths)
        same = all(big[name] == figures for name, figures in small.items())
        tree = f"with its {default_workers()} workers"
        print(
            f"  {args.runs:>5} runs in a child process: {small_wall:6.1f} s, peak "
            f"{small_peak:.0f} MB {tree} (PSS), {small_own:.0f} MB the process alone (VmHWM)"
        )
        print(
            f"  {args.big:>5} runs in a child process: {big_wall:6.1f} s, peak {big_peak:.0f} MB "
            f"{tree} (goal < 300 MB), {big_own:.0f} MB alone; first {args.runs} runs' figures "
            f"equal to the {args.runs} computed separately: {'yes' if same else 'NO'}"
        )
        print(f"  load average after: {LOADAVG.read_text().strip()}")
        if not same or big_peak >= 300:
            sys.exit("memory goal missed or figures differ")


if __name__ == "__main__":
    main()
