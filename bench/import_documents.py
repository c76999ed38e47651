"""Benchmark: import 1,000,000 JSONL documents of ~1 KB into PostgreSQL, beside
a raw COPY of the same rows, then import the same file again and a newer version of it.

Generates the collection (bench/document_dump.py, streaming, to a temp dir) and imports it with
``documents_import`` (what ``import_documents`` runs) into a scratch database. Prints docs/s
and the peak memory (RSS) after each step, to show it stays flat whatever the size:

- parsing alone, in the same process: reading, JSON, checks, checksum and COPY-text formatting
  of every document, without a database (the Python half of the import);
- the import (a fresh collection: one streaming COPY straight into the document table);
- the physical limit, in the same run: a raw ``COPY`` of the same rows, already in COPY text,
  into a scratch table with the document table's columns: bare, and with its indexes (primary
  key and the unique (collection, docno));
- the same file again (skipped unread: hashed, not parsed), and a newer version (1% changed,
  1% new) through the staging table and the checksum merge, with its phases.

Target: >= 50,000 docs/s for the import, with flat memory.

    .venv/bin/python bench/import_documents.py [--small] [--documents N]

The scratch database is ``<DATABASE_URL's name>_bench_documents`` (created and dropped here);
DATABASE_URL defaults to postgres://postgres@127.0.0.1:5432/qrelsmith.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))


def _scratch_database() -> str:
    url = os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/qrelsmith")
    parts = urlsplit(url)
    return urlunsplit(parts._replace(path="/" + parts.path.lstrip("/") + "_bench_documents"))


def _admin(url: str, sql: str) -> None:
    import psycopg2

    admin = urlunsplit(urlsplit(url)._replace(path="/postgres"))
    conn = psycopg2.connect(admin)
    try:
        conn.autocommit = True
        with conn.cursor() as cursor:
            cursor.execute(sql)
    finally:
        conn.close()


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _report(label: str, docs: int, seconds: float, cpu: tuple[float, float] | None = None) -> float:
    rate = docs / seconds if seconds else float("inf")
    used = ""
    if cpu is not None:
        ours, server = cpu
        used = f"   CPU: Python {ours:6.2f} s, PostgreSQL {server:6.2f} s"
    print(
        f"{label:<40} {docs:>10,} docs {seconds:8.2f} s {rate:>10,.0f} docs/s"
        f"   peak RSS so far {_peak_mb():7.1f} MB{used}",
        flush=True,
    )
    return rate


class _Cpu:
    """CPU seconds spent by this process and by its PostgreSQL backend (same machine: read from
    /proc) over a block: on a loaded machine, wall time says little, CPU time still does."""

    def __init__(self) -> None:
        from django.db import connection

        connection.ensure_connection()
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_backend_pid()")
            self.backend = int(cursor.fetchone()[0])

    def _server(self) -> float:
        try:
            fields = Path(f"/proc/{self.backend}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            return float("nan")
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def __enter__(self) -> _Cpu:
        self.start = (time.process_time(), self._server())
        return self

    def __exit__(self, *_: object) -> None:
        self.used = (time.process_time() - self.start[0], self._server() - self.start[1])


def parse_only(path: Path, copy_text: Path | None = None) -> int:
    """Every document parsed, checked, fingerprinted and formatted as a COPY line, as the
    import does, without a database; written to ``copy_text`` when given."""
    from collection.core.formats.documents import DocumentFile, DocumentProblems, read_documents
    from collection.core.formats.documents.copy_lines import copy_line_formatter

    line = copy_line_formatter(1)
    problems = DocumentProblems(path)
    count = 0
    with DocumentFile(path) as handle:
        if copy_text is None:
            for record in read_documents(handle, "jsonl", problems):
                line(record)
                count += 1
        else:
            with copy_text.open("w", encoding="utf-8", buffering=1 << 20) as out:
                for record in read_documents(handle, "jsonl", problems):
                    out.write(line(record))
                    count += 1
    assert not problems, problems.messages()[:3]
    return count


def raw_copy(copy_text: Path, *, indexes: bool) -> int:
    """COPY the rows, already in COPY text, into a fresh regular table with the document
    table's columns: bare, or with its indexes. Rolled back afterwards."""
    from django.db import connection, transaction

    like = "INCLUDING ALL" if indexes else "INCLUDING DEFAULTS INCLUDING IDENTITY"
    columns = "collection_id, docno, title, body, body_format, url, metadata, checksum"
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(f"CREATE TABLE raw_documents (LIKE collection_document {like})")
        with copy_text.open(encoding="utf-8") as source:
            cursor.cursor.copy_expert(
                f"COPY raw_documents ({columns}) FROM STDIN", source, size=1 << 20
            )
        cursor.execute("SELECT count(*) FROM raw_documents")
        count = int(cursor.fetchone()[0])
        transaction.set_rollback(True)
    return count


class _Phases:
    """A Django execute wrapper adding up the staged import's set-based statements."""

    def __init__(self) -> None:
        self.spent: dict[str, float] = {}

    def __call__(self, execute, sql, params, many, context):  # type: ignore[no-untyped-def]
        start = time.perf_counter()
        try:
            return execute(sql, params, many, context)
        finally:
            if "HAVING count(*) > 1" in sql:
                name = "repeated-docno check"
            elif sql.startswith("CREATE TEMPORARY TABLE") and "_changes" in sql:
                name = "join finding changes"
            elif sql.startswith("INSERT INTO") and "ON CONFLICT" in sql:
                name = "merge (insert/update)"
            elif sql.startswith("ANALYZE"):
                name = "analyze"
            else:
                name = ""
            if name:
                self.spent[name] = self.spent.get(name, 0.0) + time.perf_counter() - start


def run(folder: Path, count: int) -> None:
    from django.db import connection

    from bench.document_dump import write_documents
    from collection.services.document_import import documents_import

    first, newer, copy_text = folder / "v1.jsonl", folder / "v2.jsonl", folder / "rows.copy"
    start = time.perf_counter()
    write_documents(first, count)
    expected = write_documents(newer, count, newer=0.02)
    size = first.stat().st_size
    print(
        f"generated {count:,} documents ({size / 2**20:,.0f} MiB, {size / count:,.0f} bytes "
        f"each) and a newer version in {time.perf_counter() - start:.1f} s; "
        f"peak RSS {_peak_mb():.1f} MB",
        flush=True,
    )
    start = time.perf_counter()
    parsed = parse_only(first)
    parse_seconds = time.perf_counter() - start
    _report("parse + check + checksum + format only", parsed, parse_seconds)

    start = time.perf_counter()
    with _Cpu() as cpu:
        record = documents_import(collection="bench", source=first)
    seconds = time.perf_counter() - start
    assert record.counts["added"] == count, record.counts
    ours = _report("import (documents_import, fresh)", count, seconds, cpu.used)
    import_cpu = cpu.used

    parse_only(first, copy_text)
    start = time.perf_counter()
    with _Cpu() as cpu:
        raw_copy(copy_text, indexes=False)
    bare = _report("raw COPY, bare table", count, time.perf_counter() - start, cpu.used)
    start = time.perf_counter()
    with _Cpu() as cpu:
        raw_copy(copy_text, indexes=True)
    indexed = _report(
        "raw COPY, with the table's indexes", count, time.perf_counter() - start, cpu.used
    )
    copy_text.unlink()
    # Python parses while PostgreSQL stores (two processes): on two idle cores the import
    # takes about the larger of the two CPU times.
    idle = count / max(import_cpu)
    print(
        f"import / raw COPY (bare): {bare / ours:.2f}x the time; import / raw COPY with "
        f"indexes: {indexed / ours:.2f}x the time\n"
        f"target >= 50,000 docs/s: {'met' if ours >= 50_000 else 'MISSED'} ({ours:,.0f} "
        f"docs/s wall); by CPU time (docs / the busier process's CPU seconds, the rate on "
        f"two idle cores): {idle:,.0f} docs/s",
        flush=True,
    )

    start = time.perf_counter()
    again = documents_import(collection="bench", source=first)
    assert again.skipped
    _report("same file again (skipped unread)", count, time.perf_counter() - start)

    phases = _Phases()
    start = time.perf_counter()
    with connection.execute_wrapper(phases):
        update = documents_import(collection="bench", source=newer)
    seconds = time.perf_counter() - start
    counts = update.counts
    assert (counts["added"], counts["updated"]) == (expected.added, expected.updated), counts
    _report("newer file (staging + merge)", expected.rows, seconds)
    rest = seconds - sum(phases.spent.values())
    spent = ", ".join(f"{name} {value:.2f} s" for name, value in phases.spent.items())
    print(
        f"  {counts['added']:,} added, {counts['updated']:,} updated, "
        f"{counts['unchanged']:,} unchanged; of the time: parse + COPY into staging "
        f"{rest:.2f} s, {spent}"
    )
    print(f"peak RSS of the whole run: {_peak_mb():.1f} MB", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--documents", type=int, default=1_000_000)
    parser.add_argument("--small", action="store_true", help="20,000 documents")
    args = parser.parse_args()
    count = 20_000 if args.small else args.documents
    url = _scratch_database()
    name = urlsplit(url).path.lstrip("/")
    _admin(url, f'DROP DATABASE IF EXISTS "{name}"')
    _admin(url, f'CREATE DATABASE "{name}"')
    os.environ["DATABASE_URL"] = url
    os.environ.setdefault("REDIS_URL", "redis://127.0.0.1:6379/0")
    os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings.dev"
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection

    try:
        call_command("migrate", verbosity=0)
        with tempfile.TemporaryDirectory(prefix="qs-bench-docs-") as folder:
            run(Path(folder), count)
    finally:
        connection.close()
        _admin(url, f'DROP DATABASE IF EXISTS "{name}"')


if __name__ == "__main__":
    main()
