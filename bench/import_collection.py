"""Benchmark: import a collection of 1,000,000 posts and 5,000,000 formula instances (with
500,000 comments and an SLT file) into PostgreSQL, then import it again and import a newer dump.

Generates a Stack Exchange ``Posts.xml`` and ``Comments.xml``, an ARQMath v3 formula index and
its SLT TSV (bench/collection_dump.py, streaming, to a temp dir), and a newer dump with 1% of
rows new or changed. Imports them with ``collection_import`` (the ledger path that
``import_collection`` runs) into a scratch database, and prints rows/s and peak memory:

- the first import, file by file: posts, comments, formulas (with the time of index builds and
  foreign-key checks), SLT (with where its time goes: parsing + COPY into the MathML table,
  its foreign-key check, visual ids recomputed);
- the physical limit, in the same run: a raw ``COPY`` of the same formula rows, already in COPY
  text, into a bare copy of the formula table (no indexes, no foreign keys), and, for context,
  into one with the formula table's indexes;
- a re-import of the same files (old files, known by their stat), the same again after the
  files were touched (every file hashed), and the newer dump (added, updated, unchanged rows).

Targets: formulas >= 300,000 rows/s and within 2x of raw COPY; posts >= 30,000 rows/s; SLT
>= 150,000 rows/s; a re-import of the same files under 10% of the first import's time; peak
memory under 500 MB at any size.

    .venv/bin/python bench/import_collection.py [--small] [--posts N] [--formulas N]

The scratch database is ``<DATABASE_URL's name>_bench`` (created and dropped here);
DATABASE_URL defaults to postgres://postgres@127.0.0.1:5432/qrelsmith.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))


def _scratch_database() -> str:
    url = os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/qrelsmith")
    parts = urlsplit(url)
    name = parts.path.lstrip("/") + "_bench"
    return urlunsplit(parts._replace(path="/" + name))


def _admin(url: str, sql: str) -> None:
    import psycopg2

    parts = urlsplit(url)
    admin = urlunsplit(parts._replace(path="/postgres"))
    conn = psycopg2.connect(admin)
    try:
        conn.autocommit = True
        with conn.cursor() as cursor:
            cursor.execute(sql)
    finally:
        conn.close()


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _timed(label: str, rows_label: str, action):  # type: ignore[no-untyped-def]
    start = time.perf_counter()
    rows = action()
    seconds = time.perf_counter() - start
    print(
        f"{label:<28} {rows:>10,} {rows_label:<9} {seconds:8.2f} s {rows / seconds:>12,.0f} rows/s"
        f"   peak RSS so far {_peak_mb():7.1f} MB",
        flush=True,
    )
    return rows, seconds


class _StatementTimer:
    """A Django execute wrapper adding up the time of index builds and foreign-key checks."""

    def __init__(self) -> None:
        self.indexes = 0.0
        self.foreign_keys = 0.0
        self.steps: dict[str, float] = {}  # SLT steps timed whole (timed_steps)

    def __call__(self, execute, sql, params, many, context):  # type: ignore[no-untyped-def]
        start = time.perf_counter()
        try:
            return execute(sql, params, many, context)
        finally:
            spent = time.perf_counter() - start
            if sql.startswith("CREATE INDEX"):
                self.indexes += spent
            elif "ADD CONSTRAINT" in sql and "FOREIGN KEY" in sql:
                self.foreign_keys += spent


@contextmanager
def timed_steps(phases: _StatementTimer) -> Iterator[None]:
    """Time two steps of a first SLT pass whole, by wrapping them where slt_load finds them:
    parsing + COPY into the MathML table (+ its foreign-key check), and the visual ids
    recomputed with lxml (their query, fetch, staging and update)."""
    from collection.services.collection_import import slt

    originals = {name: getattr(slt, name) for name in ("_load_first", "_recompute_visual_ids")}

    def wrap(name: str, function):  # type: ignore[no-untyped-def]
        def timed(*args, **kwargs):  # type: ignore[no-untyped-def]
            start = time.perf_counter()
            try:
                return function(*args, **kwargs)
            finally:
                phases.steps[name] = time.perf_counter() - start

        return timed

    for name, function in originals.items():
        setattr(slt, name, wrap(name, function))
    try:
        yield
    finally:
        for name, function in originals.items():
            setattr(slt, name, function)


def raw_copy(copy_text: Path, *, indexes: bool) -> int:
    """COPY the formula rows, already in COPY text, into a fresh regular (WAL-logged) table
    shaped like the formula table: bare (the floor: heap writes only), or with the formula
    table's indexes maintained row by row. No foreign keys. Rolled back afterwards."""
    like = "INCLUDING ALL" if indexes else "INCLUDING DEFAULTS"
    columns = (
        "formula_id, post_id, thread_id, location, comment_id, visual_id, old_visual_id, "
        "issue, latex"
    )
    return _raw_copy(f"(LIKE collection_formula {like})", columns, copy_text)


def raw_copy_slt(copy_text: Path) -> int:
    """COPY the SLT rows that carry MathML (formula id, MathML), already in COPY text, into a
    bare regular table: the floor of any way to get those bytes into PostgreSQL. Rolled back
    afterwards."""
    return _raw_copy("(formula_id bigint, slt text)", "formula_id, slt", copy_text)


def _raw_copy(shape: str, columns: str, copy_text: Path) -> int:
    from django.db import connection, transaction

    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(f"CREATE TABLE raw_rows {shape}")
        with copy_text.open(encoding="utf-8") as source:
            cursor.cursor.copy_expert(f"COPY raw_rows ({columns}) FROM STDIN", source, size=1 << 20)
        cursor.execute("SELECT count(*) FROM raw_rows")
        count = int(cursor.fetchone()[0])
        transaction.set_rollback(True)
    return count


def _age(files: list[Path], seconds: float) -> None:
    """Give ``files`` an mtime ``seconds`` ago (a downloaded dump is older than its import)."""
    moment = time.time() - seconds
    for path in files:
        os.utime(path, (moment, moment))


def _write_copy_text(dump, folder: Path) -> tuple[Path, Path]:  # type: ignore[no-untyped-def]
    """The formula rows and the SLT rows in COPY text, for the raw COPYs (the importer's own
    cells-to-text)."""
    from collection.core.formats.formula_index import formula_index_copy_lines, slt_copy_lines

    formulas, slt = folder / "formulas.copy", folder / "slt.copy"
    with formulas.open("w", encoding="utf-8") as out:
        out.writelines(formula_index_copy_lines(dump.formulas))
    with slt.open("w", encoding="utf-8") as out:
        out.writelines(slt_copy_lines(dump.slt, with_empty=False))
    return formulas, slt


def first_import(dump, connection) -> dict[str, float]:  # type: ignore[no-untyped-def]
    """Each file through collection_import; returns the seconds of each."""
    from collection.services import collection_import

    spent = {}
    for role, rows_label, table in (
        ("posts", "posts", "posts"),
        ("comments", "comments", "comments"),
        ("formulas", "formulas", "formulas"),
        ("slt", "SLT rows", "slt"),
    ):
        phases = _StatementTimer()
        with connection.execute_wrapper(phases), timed_steps(phases):
            _, seconds = _timed(
                f"first import: {role}",
                rows_label,
                lambda role=role, table=table: _all_rows(
                    collection_import(**{role: getattr(dump, role)}), table
                ),
            )
        spent[role] = seconds
        if role == "formulas":
            copying = seconds - phases.indexes - phases.foreign_keys
            print(
                f"  of which: COPY and parsing {copying:.2f} s, rebuilding indexes "
                f"{phases.indexes:.2f} s, validating foreign keys {phases.foreign_keys:.2f} s"
            )
        elif role == "slt":
            copying = phases.steps["_load_first"] - phases.foreign_keys
            visual = phases.steps["_recompute_visual_ids"]
            print(
                f"  of which: parsing + COPY into the MathML table {copying:.2f} s, validating "
                f"its foreign key {phases.foreign_keys:.2f} s, visual ids recomputed "
                f"{visual:.2f} s, the rest {seconds - copying - phases.foreign_keys - visual:.2f} s"
            )
    print(f"first import, all four files: {sum(spent.values()):.2f} s", flush=True)
    return spent


def _all_rows(report, table: str) -> int:  # type: ignore[no-untyped-def]
    """Every row the file gave (for SLT: with or without MathML)."""
    (outcome,) = report.files
    change = outcome.changes[table]
    return change.added + change.updated + change.unchanged


def reimports(first, newer, first_seconds: float) -> None:  # type: ignore[no-untyped-def]
    """The same files again (by stat, then hashed), and the newer dump over the first."""
    from collection.services import collection_import

    def files(dump):  # type: ignore[no-untyped-def]
        return {"posts": dump.posts, "comments": dump.comments, "formulas": dump.formulas}

    for label, touch in (("re-import, same files", False), ("re-import, files touched", True)):
        if touch:  # new mtimes: the ledger must read each file to know it is the same
            _age([first.posts, first.comments, first.formulas, first.slt], 3600 - 60)
        start = time.perf_counter()
        report = collection_import(**files(first), slt=first.slt)
        seconds = time.perf_counter() - start
        skipped = sum(o.skipped for o in report.files)
        print(
            f"{label:<28} {seconds:8.2f} s = {seconds / first_seconds:6.1%} of the first "
            f"import (target < 10%); {skipped} of 4 files skipped",
            flush=True,
        )
    start = time.perf_counter()
    report = collection_import(**files(newer), slt=newer.slt)
    seconds = time.perf_counter() - start
    print(
        f"{'newer dump (1% new/changed)':<28} {seconds:8.2f} s = "
        f"{seconds / first_seconds:6.1%} of the first import",
        flush=True,
    )
    for outcome in report.files:
        for table, change in outcome.changes.items():
            print(
                f"  {table:<9} {change.added:>9,} added {change.updated:>9,} updated "
                f"{change.unchanged:>11,} unchanged"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--posts", type=int, default=1_000_000)
    parser.add_argument("--formulas", type=int, default=5_000_000)
    parser.add_argument("--small", action="store_true", help="40,000 posts, 200,000 formulas")
    args = parser.parse_args()
    if args.small:
        args.posts, args.formulas = 40_000, 200_000
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

    from bench.collection_dump import write_dump

    try:
        call_command("migrate", verbosity=0)
        with tempfile.TemporaryDirectory(prefix="qs-bench-") as folder:
            start = time.perf_counter()
            first = write_dump(Path(folder) / "first", posts=args.posts, formulas=args.formulas)
            newer = write_dump(
                Path(folder) / "newer", posts=args.posts, formulas=args.formulas, newer=0.01
            )
            copy_text, slt_text = _write_copy_text(first, Path(folder))
            dumps = [first.posts, first.comments, first.formulas, first.slt]
            _age([*dumps, newer.posts, newer.comments, newer.formulas, newer.slt], 3600)
            sizes = ", ".join(f"{p.name} {p.stat().st_size / 2**20:,.0f} MiB" for p in dumps)
            print(
                f"generated {args.posts:,} posts, {first.counts['comments']:,} comments, "
                f"{args.formulas:,} formulas ({sizes}) and the newer dump in "
                f"{time.perf_counter() - start:.1f} s; peak RSS {_peak_mb():.1f} MB",
                flush=True,
            )
            spent = first_import(first, connection)
            ours = spent["formulas"]
            _, limit = _timed(
                "raw COPY, bare table", "formulas", lambda: raw_copy(copy_text, indexes=False)
            )
            _, indexed = _timed(
                "raw COPY, with its indexes", "formulas", lambda: raw_copy(copy_text, indexes=True)
            )
            print(
                f"formulas import / raw COPY into a bare table = {ours / limit:.2f}x "
                f"(target <= 2x); formulas import / raw COPY with the indexes = "
                f"{ours / indexed:.2f}x"
            )
            _, slt_limit = _timed(
                "raw COPY of the SLT rows", "SLT rows", lambda: raw_copy_slt(slt_text)
            )
            print(
                f"SLT pass: {first.counts['formulas'] / spent['slt']:,.0f} rows/s (target >= "
                f"150,000); SLT pass / raw COPY of its rows into a bare table = "
                f"{spent['slt'] / slt_limit:.2f}x"
            )
            reimports(first, newer, sum(spent.values()))
            print(f"peak RSS of the whole run: {_peak_mb():.1f} MB (target < 500 MB)")
    finally:
        connection.close()
        _admin(url, f'DROP DATABASE IF EXISTS "{name}"')


if __name__ == "__main__":
    main()
