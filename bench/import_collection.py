"""Benchmark: import 1,000,000 posts and 5,000,000 formula instances into PostgreSQL.

Generates a Stack Exchange ``Posts.xml`` and an ARQMath v3 formula index TSV (streaming, to a
temp dir), imports them with the project's services (``posts_import``, ``formulas_import``)
into a scratch database, and prints rows/s and peak memory. In the same run, the physical
limit: a raw ``COPY`` of the same formula rows, already in COPY text, into a bare copy of the
formula table (same columns; no indexes, no foreign keys), and, for context, into one with
the formula table's indexes. Targets: formulas >= 300,000 rows/s
and within 2x of raw COPY; posts >= 30,000 rows/s; peak memory under 500 MB at any size.

    .venv/bin/python bench/import_collection.py [--small] [--posts N] [--formulas N]

The scratch database is ``<DATABASE_URL's name>_bench`` (created and dropped here);
DATABASE_URL defaults to postgres://postgres@127.0.0.1:5432/qrelsmith.
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

QUESTION_EVERY = 4  # one question, then three answers: ids 0 mod 4 are questions
WORDS = [
    "prove",
    "show",
    "that",
    "the",
    "function",
    "is",
    "continuous",
    "bounded",
    "integral",
    "series",
    "converges",
    "limit",
    "matrix",
    "eigenvalue",
    "group",
    "ring",
    "field",
    "prime",
    "divisor",
    "triangle",
    "probability",
]
LATEX = [
    r"x^{%d}+y^{%d}=z^{%d}",
    r"\frac{%d}{n^{%d}}",
    r"\sum_{k=1}^{%d} k^{%d}",
    r"\int_0^{%d} e^{-t^{%d}}\,dt",
    r"\sqrt{%d+\alpha_{%d}}",
    r"A_{%d}\otimes B_{%d}",
    r"\lim_{n\to\infty}\left(1+\frac{%d}{n}\right)^{%d}",
]


def _xml_attr(text: str) -> str:
    return (
        text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")
    )


def _formula(rng: random.Random) -> tuple[str, int]:
    """A LaTeX formula from a pool of ~ 7 x 30 x 30 shapes, and its (given) visual id."""
    shape = rng.randrange(len(LATEX))
    a, b = rng.randrange(30), rng.randrange(30)
    template = LATEX[shape]
    latex = template % ((a, b, a + b) if template.count("%d") == 3 else (a, b))
    return latex, shape * 10_000 + a * 100 + b


def write_posts(path: Path, count: int, rng: random.Random) -> None:
    with path.open("w", encoding="utf-8") as out:
        out.write('<?xml version="1.0" encoding="utf-8"?>\n<posts>\n')
        for post_id in range(1, count + 1):
            words = " ".join(rng.choices(WORDS, k=rng.randrange(20, 80)))
            latex, _ = _formula(rng)
            body = _xml_attr(
                f'<p>{words} <span class="math-container" id="{post_id}">${latex}$</span>.</p>'
            )
            date = f"20{10 + post_id % 12}-0{1 + post_id % 9}-1{post_id % 10}T12:00:00.000"
            if post_id % QUESTION_EVERY == 1:
                title = _xml_attr(" ".join(rng.choices(WORDS, k=8)))
                tags = "&lt;calculus&gt;&lt;real-analysis&gt;"
                out.write(
                    f'  <row Id="{post_id}" PostTypeId="1" CreationDate="{date}" '
                    f'Score="{rng.randrange(-3, 50)}" Body="{body}" OwnerUserId="{post_id % 977}" '
                    f'Title="{title}" Tags="{tags}" AnswerCount="3" />\n'
                )
            else:
                parent = post_id - (post_id - 1) % QUESTION_EVERY
                out.write(
                    f'  <row Id="{post_id}" PostTypeId="2" ParentId="{parent}" '
                    f'CreationDate="{date}" Score="{rng.randrange(-3, 50)}" Body="{body}" '
                    f'OwnerUserId="{post_id % 977}" />\n'
                )
        out.write("</posts>\n")


def write_formulas(tsv: Path, copy_text: Path, count: int, posts: int, rng: random.Random) -> None:
    """The index TSV and, for the raw COPY, the same rows already in COPY text."""
    header = "id post_id thread_id type comment_id old_visual_id visual_id issue formula"
    with tsv.open("w", encoding="utf-8") as out, copy_text.open("w", encoding="utf-8") as raw:
        out.write(header.replace(" ", "\t") + "\n")
        for formula_id in range(1, count + 1):
            post_id = rng.randrange(1, posts + 1)
            thread_id = post_id - (post_id - 1) % QUESTION_EVERY
            kind = "question" if post_id == thread_id else "answer"
            latex, visual_id = _formula(rng)
            out.write(
                f"{formula_id}\t{post_id}\t{thread_id}\t{kind}\t\t{visual_id}\t{visual_id}\t\t"
                f"{latex}\n"
            )
            escaped = latex.replace("\\", "\\\\")
            raw.write(
                f"{formula_id}\t{post_id}\t{thread_id}\t{kind}\t\\N\t{visual_id}\t{visual_id}\t"
                f"\t{escaped}\t\n"
            )


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


def raw_copy(copy_text: Path, *, indexes: bool) -> int:
    """COPY the formula rows, already in COPY text, into a fresh regular (WAL-logged) table
    shaped like the formula table: bare (the floor: heap writes only), or with the formula
    table's indexes maintained row by row. No foreign keys. Rolled back afterwards."""
    from django.db import connection, transaction

    like = "INCLUDING ALL" if indexes else "INCLUDING DEFAULTS"
    columns = (
        "formula_id, post_id, thread_id, location, comment_id, visual_id, old_visual_id, "
        "issue, latex, slt"
    )
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(f"CREATE TABLE raw_formula (LIKE collection_formula {like})")
        with copy_text.open(encoding="utf-8") as source:
            cursor.cursor.copy_expert(
                f"COPY raw_formula ({columns}) FROM STDIN", source, size=1 << 20
            )
        cursor.execute("SELECT count(*) FROM raw_formula")
        count = int(cursor.fetchone()[0])
        transaction.set_rollback(True)
    return count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--posts", type=int, default=1_000_000)
    parser.add_argument("--formulas", type=int, default=5_000_000)
    parser.add_argument("--small", action="store_true", help="40,000 posts, 200,000 formulas")
    parser.add_argument("--seed", type=int, default=2022)
    args = parser.parse_args()
    if args.small:
        args.posts, args.formulas = 40_000, 200_000
    rng = random.Random(args.seed)
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

    from collection.services.collection_import import formulas_import, posts_import

    try:
        call_command("migrate", verbosity=0)
        with tempfile.TemporaryDirectory(prefix="qs-bench-") as folder:
            posts, tsv, copy_text = (
                Path(folder) / "Posts.xml",
                Path(folder) / "formulas.tsv",
                Path(folder) / "formulas.copy",
            )
            start = time.perf_counter()
            write_posts(posts, args.posts, rng)
            write_formulas(tsv, copy_text, args.formulas, args.posts, rng)
            print(
                f"generated {args.posts:,} posts ({posts.stat().st_size / 2**20:,.0f} MiB) and "
                f"{args.formulas:,} formulas ({tsv.stat().st_size / 2**20:,.0f} MiB) in "
                f"{time.perf_counter() - start:.1f} s; peak RSS {_peak_mb():.1f} MB",
                flush=True,
            )
            _timed("posts_import (Posts.xml)", "posts", lambda: posts_import(posts)[1])
            phases = _StatementTimer()
            with connection.execute_wrapper(phases):
                _, ours = _timed(
                    "formulas_import (v3 TSV)", "formulas", lambda: formulas_import(tsv)
                )
            copying = ours - phases.indexes - phases.foreign_keys
            print(
                f"  of which: COPY and parsing {copying:.2f} s, rebuilding indexes "
                f"{phases.indexes:.2f} s, validating foreign keys {phases.foreign_keys:.2f} s"
            )
            _, limit = _timed(
                "raw COPY, bare table", "formulas", lambda: raw_copy(copy_text, indexes=False)
            )
            _, indexed = _timed(
                "raw COPY, with its indexes", "formulas", lambda: raw_copy(copy_text, indexes=True)
            )
            print(
                f"formulas_import / raw COPY into a bare table = {ours / limit:.2f}x "
                f"(target <= 2x); its COPY phase alone = {copying / limit:.2f}x; "
                f"formulas_import / raw COPY with the indexes = {ours / indexed:.2f}x"
            )
            print(f"peak RSS of the whole run: {_peak_mb():.1f} MB (target < 500 MB)")
    finally:
        connection.close()
        _admin(url, f'DROP DATABASE IF EXISTS "{name}"')


if __name__ == "__main__":
    main()
