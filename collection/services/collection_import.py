"""Import the collection: Stack Exchange posts and comments, formula index, SLT (issue 2, item 4).

Each file is loaded in its own transaction with one streaming COPY (bulk_create in batches on
SQLite); a file that fails leaves nothing of itself behind. Checks that need the database (an
answer's question, a formula's post) run once, set-based, after the load: PostgreSQL validates
the foreign keys as they are added back (bulk_load_window), SQLite gets an anti-join. Only on
failure is the file read again, to find the offending line.
"""

import json
import os
import tempfile
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from itertools import islice
from pathlib import Path
from typing import Any, TypeVar

from django.db import IntegrityError, connection, models, transaction

from collection.bulkload import bulk_insert, bulk_load_window, copy_lines
from collection.formats.copy_text import escape
from collection.formats.errors import ImportFileError
from collection.formats.formula_index import (
    COPY_COLUMNS,
    FORMULA_COLUMNS,
    formula_index_copy_lines,
    formula_index_lines,
    parse_formula_index,
    parse_slt,
)
from collection.formats.stackexchange import (
    QUESTION,
    PostRecord,
    RowProgress,
    parse_comments,
    parse_posts,
)
from collection.formats.visual_ids import COMPUTED_PREFIX, visual_id_for
from collection.models import Comment, Formula, Post, Thread
from collection.services.integrity import BadKey, bad_key, find_line, first_orphan

# Off PostgreSQL, posts go in chunks (threads of a chunk before its posts).
POST_CHUNK = 10_000
SLT_CHUNK = 2_000
# A conservative guess of an index row's size (ARQMath's average is ~80 bytes): too low a
# guess only means rebuilding an index a little more often than it pays.
FORMULA_ROW_BYTES = 100
T = TypeVar("T")


@dataclass(frozen=True)
class ImportProgress:
    """Where an import is: the file, rows read, bytes of it consumed (for a progress bar)."""

    stage: str  # posts | comments | formulas | slt
    path: str
    rows: int
    bytes_read: int
    bytes_total: int


ProgressCallback = Callable[[ImportProgress], None]


@dataclass(frozen=True)
class CollectionImportReport:
    threads: int = 0
    posts: int = 0
    comments: int = 0
    formulas: int = 0
    slt: int = 0  # formulas given their Presentation MathML


class _Reporter:
    """Calls the progress callback at most every ``every`` rows."""

    def __init__(self, stage: str, path: str | Path, callback: ProgressCallback | None) -> None:
        self.stage, self.path, self.callback = stage, str(path), callback
        self.state = RowProgress()
        self.total = os.path.getsize(path) if os.path.exists(path) else 0
        self._last = 0

    def tick(self, every: int = 20_000) -> None:
        if self.callback is not None and self.state.rows - self._last >= every:
            self._last = self.state.rows
            self.report()

    def report(self) -> None:
        if self.callback is not None:
            read = min(self.state.bytes_read, self.total)
            self.callback(ImportProgress(self.stage, self.path, self.state.rows, read, self.total))

    def watch(self, items: Iterable[T]) -> Iterator[T]:
        for item in items:
            yield item
            self.tick()


def _chunks(items: Iterable[T], size: int) -> Iterator[list[T]]:
    iterator = iter(items)
    while chunk := list(islice(iterator, size)):
        yield chunk


def _thread_row(post: PostRecord) -> tuple[Any, ...]:
    return (post.id, post.title, json.dumps(post.tags), post.accepted_answer_id)


def _post_row(post: PostRecord) -> tuple[Any, ...]:
    return (
        post.id,
        post.thread_id,
        post.kind,
        post.body,
        post.score,
        post.created_at,
        post.owner_user_id,
    )


_THREAD_FIELDS = ["id", "title", "tags", "accepted_answer_id"]
_POST_FIELDS = ["id", "thread_id", "kind", "body", "score", "created_at", "owner_user_id"]


def _load_posts(path: str | Path, reporter: _Reporter) -> tuple[int, int]:
    if connection.vendor == "postgresql":
        return _copy_posts(path, reporter)
    threads = posts = 0
    for chunk in _chunks(parse_posts(path, reporter.state), POST_CHUNK):
        questions = [_thread_row(p) for p in chunk if p.kind == QUESTION]
        threads += bulk_insert(Thread, _THREAD_FIELDS, questions)
        posts += bulk_insert(Post, _POST_FIELDS, [_post_row(p) for p in chunk])
        reporter.tick(0)
    return threads, posts


def _copy_posts(path: str | Path, reporter: _Reporter) -> tuple[int, int]:
    """Posts in one streaming COPY; each question's thread row is spooled to a temporary file
    (COPY text) on the way and loaded after: one pass over the file, flat memory, and
    PostgreSQL parses posts while Python reads the next ones. The posts' thread foreign key is
    checked at the end of the load (bulk_load_window), so threads may come second."""
    with tempfile.TemporaryFile("w+", encoding="utf-8") as spool:

        def posts() -> Iterator[tuple[Any, ...]]:
            for post in parse_posts(path, reporter.state):
                if post.kind == QUESTION:
                    accepted = "\\N" if post.accepted_answer_id is None else post.accepted_answer_id
                    spool.write(
                        f"{post.id}\t{escape(post.title)}\t{escape(json.dumps(post.tags))}"
                        f"\t{accepted}\n"
                    )
                yield _post_row(post)
                reporter.tick()

        post_count = bulk_insert(Post, _POST_FIELDS, posts())
        reporter.tick(0)
        spool.seek(0)
        thread_count = copy_lines(Thread, _THREAD_FIELDS, spool)
    return thread_count, post_count


def _load_checked(
    path: str | Path,
    model: type[models.Model],
    references: list[str],
    load: Callable[[], T],
    expected_rows: int | None = None,
) -> T | BadKey:
    """Run ``load`` in a savepoint with ``model``'s foreign keys checked once at the end.

    Returns what ``load`` returned, or the key the database refused (a duplicate id or a
    reference to a missing row); the savepoint is then rolled back. Other errors propagate.
    """
    try:
        with transaction.atomic():
            with bulk_load_window(model, expected_rows=expected_rows):
                result = load()
            orphan = first_orphan(model, references)  # SQLite; PostgreSQL checked above
            if orphan is not None:
                return orphan  # leaving the block commits the savepoint: the caller raises
    except IntegrityError as error:
        key = bad_key(error)
        if key is None:
            raise ImportFileError(path, None, f"refused by the database: {error}") from error
        return key
    return result


def _duplicate(path: str | Path, key: BadKey, what: str, lines: Iterable[int]) -> ImportFileError:
    return ImportFileError(
        path, find_line(lines, last=True), f"{what} {key.value} is already in the collection"
    )


def posts_import(path: str | Path, progress: ProgressCallback | None = None) -> tuple[int, int]:
    """Threads (one per question: id, title, tags) and posts of a ``Posts.xml``.

    An answer's thread is its ParentId; the question may come later in the file or be stored
    already, but must exist once the file is loaded.
    """
    reporter = _Reporter("posts", path, progress)
    with transaction.atomic():
        loaded = _load_checked(path, Post, ["thread_id"], lambda: _load_posts(path, reporter))
        if isinstance(loaded, BadKey):
            key = loaded
            if key.duplicate:
                what = "question" if key.column == "id" and _is_thread_key(key) else "post"
                lines = (p.line for p in parse_posts(path) if p.id == key.value)
                raise _duplicate(path, key, what, lines)
            answer = next((p for p in parse_posts(path) if p.thread_id == key.value), None)
            raise ImportFileError(
                path,
                answer.line if answer else None,
                f"answer {answer.id if answer else '?'}: its question {key.value} is not in "
                "the collection",
            )
    reporter.report()
    return loaded


def _is_thread_key(key: BadKey) -> bool:
    return "thread" in key.table


def comments_import(path: str | Path, progress: ProgressCallback | None = None) -> int:
    """Comments of a ``Comments.xml``; each comment's post must be in the collection."""
    reporter = _Reporter("comments", path, progress)
    rows = (
        (c.id, c.post_id, c.text, c.score, c.created_at, c.user_id)
        for c in reporter.watch(parse_comments(path, reporter.state))
    )
    fields = ["id", "post_id", "text", "score", "created_at", "user_id"]
    with transaction.atomic():
        loaded = _load_checked(
            path, Comment, ["post_id"], lambda: bulk_insert(Comment, fields, rows)
        )
        if isinstance(loaded, BadKey):
            key = loaded
            if key.duplicate:
                lines = (c.line for c in parse_comments(path) if c.id == key.value)
                raise _duplicate(path, key, "comment", lines)
            found = next((c for c in parse_comments(path) if c.post_id == key.value), None)
            raise ImportFileError(
                path,
                found.line if found else None,
                f"comment {found.id if found else '?'}: post {key.value} is not in the collection",
            )
    reporter.report()
    return loaded


def _formula_line(path: str | Path, column: str, value: int) -> tuple[int | None, int | None]:
    """(line, formula id) of the first row whose ``column`` is ``value`` (error path only)."""
    position = FORMULA_COLUMNS.index(column)
    for line, row in formula_index_lines(path):
        if row[position] == value:
            return line, row[0]
    return None, None


def formulas_import(path: str | Path, progress: ProgressCallback | None = None) -> int:
    """Formula instances of an ARQMath formula index TSV (v3 or the 5-column form).

    Each formula's post, thread and (for comments) comment must be in the collection. A row
    without a visual id gets one computed from its LaTeX (DESIGN.md; SLT replaces it later).
    """
    reporter = _Reporter("formulas", path, progress)
    references = ["post_id", "thread_id", "comment_id"]

    def load() -> int:
        if connection.vendor == "postgresql":  # the fast path: cells to COPY text directly
            lines = formula_index_copy_lines(path, reporter.state)
            return copy_lines(Formula, COPY_COLUMNS, lines, progress=lambda _: reporter.tick(0))
        rows = reporter.watch(parse_formula_index(path, reporter.state))
        return bulk_insert(Formula, FORMULA_COLUMNS, rows)

    with transaction.atomic():
        loaded = _load_checked(
            path, Formula, references, load, expected_rows=reporter.total // FORMULA_ROW_BYTES
        )
        if isinstance(loaded, BadKey):
            key = loaded
            if key.duplicate:
                position = FORMULA_COLUMNS.index("formula_id")
                lines = (n for n, row in formula_index_lines(path) if row[position] == key.value)
                raise _duplicate(path, key, "formula", lines)
            line, formula_id = _formula_line(path, key.column, key.value)
            what = key.column.removesuffix("_id")
            raise ImportFileError(
                path, line, f"formula {formula_id}: {what} {key.value} is not in the collection"
            )
    reporter.report()
    return loaded


def _apply_slt(path: str | Path, chunk: list[Any]) -> int:
    ids = [row.formula_id for row in chunk]
    stored = {
        f.formula_id: f
        for f in Formula.objects.filter(formula_id__in=ids).only("visual_id", "latex")
    }
    changed = []
    for row in chunk:
        formula = stored.get(row.formula_id)
        if formula is None:
            raise ImportFileError(
                path, row.line, f"formula {row.formula_id} is not in the formula index"
            )
        formula.slt = row.slt
        if formula.visual_id.startswith(COMPUTED_PREFIX):  # computed from LaTeX: SLT is better
            formula.visual_id = visual_id_for(latex=formula.latex, slt=row.slt)
        changed.append(formula)
    Formula.objects.bulk_update(changed, ["slt", "visual_id"])
    return len(changed)


def slt_import(path: str | Path, progress: ProgressCallback | None = None) -> int:
    """Presentation MathML of stored formulas (an SLT TSV keyed by formula id).

    A visual id the index did not give is recomputed from the SLT, as DESIGN.md prefers it.
    Rows with an empty MathML cell (a failed conversion) are left out.
    """
    reporter = _Reporter("slt", path, progress)
    count = 0
    with transaction.atomic():
        rows = (r for r in parse_slt(path, reporter.state) if r.slt.strip())
        for chunk in _chunks(rows, SLT_CHUNK):
            count += _apply_slt(path, chunk)
            reporter.tick(0)
    reporter.report()
    return count


def collection_import(
    *,
    posts: str | Path | None = None,
    comments: str | Path | None = None,
    formulas: str | Path | None = None,
    slt: str | Path | None = None,
    progress: ProgressCallback | None = None,
) -> CollectionImportReport:
    """Import collection files in dependency order: posts, comments, formulas, SLT.

    One transaction per file: when a file fails (ImportFileError naming file and line), the
    files before it stay imported and nothing of the failed one is kept.
    """
    threads = post_count = comment_count = formula_count = slt_count = 0
    if posts is not None:
        threads, post_count = posts_import(posts, progress)
    if comments is not None:
        comment_count = comments_import(comments, progress)
    if formulas is not None:
        formula_count = formulas_import(formulas, progress)
    if slt is not None:
        slt_count = slt_import(slt, progress)
    return CollectionImportReport(threads, post_count, comment_count, formula_count, slt_count)
