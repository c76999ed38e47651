"""What hostile run files cost the run reader: time and peak memory for each refusal.

``.venv/bin/python bench/hostile_runs.py [--small]``

No database: the pure reader (``pooling.core.formats.read_run``) with the default limits, on files
built in memory: one line of 50 MB, 2 GB gzip bombs (a repeated row, blank lines, rows between
blank lines), 100 MB of valid-looking TREC lines whose docnos the collection (an empty one, as
a lookup) does not have, and for comparison a valid 100-topic x 1,000-row run. Peak memory is
Python's allocations while reading (tracemalloc), the file's own bytes excluded.
Targets: each refusal within 1 s and 20 MB, whatever the file's size.
"""

from __future__ import annotations

import argparse
import gzip
import io
import sys
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from pooling.core.formats import ParsedRun, RunContext, read_run  # noqa: E402

MB = 1_000_000
TOPICS = frozenset(str(n) for n in range(1, 3001))


def bomb(line: bytes, expanded: int) -> bytes:
    member = gzip.compress(line * (MB // len(line)), compresslevel=9)
    return member * (expanded // MB)


def document_lines(size: int = 0, topics: int = 0) -> bytes:
    """TREC lines of a document run, 1,000 to a topic: ``size`` bytes or ``topics`` topics."""
    rows, written, topic = [], 0, 1
    while written < size or topic <= topics:
        block = b"".join(
            b"%d Q0 doc-%d-%d %d %d.5 t\n" % (topic, topic, rank, rank, 2000 - rank)
            for rank in range(1, 1001)
        )
        rows.append(block)
        written += len(block)
        topic += 1
    return b"".join(rows)


def measure(name: str, data: bytes, context: RunContext | None = None) -> None:
    def read() -> ParsedRun:
        return read_run(io.BytesIO(data), name=name, context=context, tag="t")

    start = time.perf_counter()
    run = read()
    seconds = time.perf_counter() - start
    tracemalloc.start()
    read()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    first = run.errors[0] if run.errors else None
    said = f"line {first.line}: {first.message[:60]}" if first else f"ok, {len(run.columns):,} rows"
    print(
        f"{name:<34} {len(data) / MB:8.1f} MB  {seconds:6.3f} s  peak {peak / MB:6.1f} MB  {said}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", action="store_true", help="1/10 of the sizes")
    scale = 10 if parser.parse_args().small else 1
    documents = RunContext(
        task_kind="document", topics=TOPICS, document_docnos=lambda docnos: set(), collection="c"
    )
    everything = RunContext(
        task_kind="document", topics=TOPICS, document_docnos=lambda docnos: docnos, collection="c"
    )
    cases: list[tuple[str, Callable[[], bytes], RunContext | None]] = [
        ("one line", lambda: b"1 " + b"7" * (50 * MB // scale), None),
        (
            "gzip bomb: one row repeated",
            lambda: bomb(b"A.1 501 1 0.9 t\n", 2000 * MB // scale),
            None,
        ),
        ("gzip bomb: blank lines", lambda: bomb(b"\n", 2000 * MB // scale), None),
        (
            "gzip bomb: rows among blank lines",
            lambda: bomb(b"A.1 501 1 0.9 t\n" + b"\n" * 5000, 2000 * MB // scale),
            None,
        ),
        (
            "one topic far past 1,000 rows",
            lambda: b"".join(
                b"1 Q0 d%d %d 0.5 t\n" % (n, n % 1000 + 1) for n in range(2_500_000 // scale)
            ),
            everything,
        ),
        ("unknown docnos", lambda: document_lines(size=100 * MB // scale), documents),
        ("valid 100 x 1,000 rows (reference)", lambda: document_lines(topics=100), everything),
    ]
    print(f"{'file':<34} {'bytes':>11}  {'time':>8}  {'peak':>12}  outcome")
    for name, build, context in cases:
        measure(name, build(), context)


if __name__ == "__main__":
    main()
