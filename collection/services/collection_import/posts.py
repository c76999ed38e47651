"""Posts (with their threads) and comments of a Stack Exchange dump.

An empty table is loaded straight (one streaming COPY); a table that holds rows gets the file
through a staging table and an upsert (staging.py). Checks that need the database (an answer's
question, a comment's post) run once, set-based; only on failure is the file read again, to
find the offending line.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterable, Iterator
from itertools import islice
from pathlib import Path
from typing import Any

from django.db import connection, transaction

from collection.core.formats.errors import ImportFileError
from collection.core.formats.stackexchange import QUESTION, PostRecord, parse_comments, parse_posts
from collection.models import Comment, Post, Thread
from collection.services.collection_import.progress import (
    FileChanges,
    ProgressCallback,
    Reporter,
    RowChanges,
)
from collection.services.collection_import.staging import (
    StagingTable,
    distinct_sql,
    is_fresh,
    load_checked,
    load_path,
    repeated,
    table_is_empty,
)
from collection.services.integrity import BadKey
from kernel.bulkload import bulk_insert, copy_lines
from kernel.core.copy_text import escape

# Off PostgreSQL, posts go in chunks (threads of a chunk before its posts).
POST_CHUNK = 10_000
THREAD_FIELDS = ["id", "title", "tags", "accepted_answer_id"]
POST_FIELDS = ["id", "thread_id", "kind", "body", "score", "created_at", "owner_user_id"]
COMMENT_FIELDS = ["id", "post_id", "text", "score", "created_at", "user_id"]


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


def _load_posts(
    path: str | Path, reporter: Reporter, tables: tuple[str, str] | None = None
) -> tuple[int, int]:
    """(threads, posts) loaded into their tables, or into the staging ``tables`` (thread,
    post) when given."""
    thread_table, post_table = tables or (None, None)
    if connection.vendor == "postgresql":
        return _copy_posts(path, reporter, thread_table, post_table)
    threads = posts = 0
    records = parse_posts(path, reporter.state)
    while chunk := list(islice(records, POST_CHUNK)):
        questions = [_thread_row(p) for p in chunk if p.kind == QUESTION]
        threads += bulk_insert(Thread, THREAD_FIELDS, questions, table=thread_table)
        posts += bulk_insert(Post, POST_FIELDS, [_post_row(p) for p in chunk], table=post_table)
        reporter.tick(0)
    return threads, posts


def _copy_posts(
    path: str | Path, reporter: Reporter, thread_table: str | None, post_table: str | None
) -> tuple[int, int]:
    """Posts in one streaming COPY; each question's thread row is spooled to a temporary file
    (COPY text) on the way and loaded after: one pass over the file, flat memory, and
    PostgreSQL parses posts while Python reads the next ones. The posts' thread foreign key is
    checked at the end of the load, so threads may come second."""
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

        post_count = bulk_insert(Post, POST_FIELDS, posts(), table=post_table)
        reporter.tick(0)
        spool.seek(0)
        thread_count = copy_lines(Thread, THREAD_FIELDS, spool, table=thread_table)
    return thread_count, post_count


def _stage_posts(path: str | Path, reporter: Reporter) -> FileChanges:
    threads = StagingTable(Thread, THREAD_FIELDS, "import_stage_thread")
    posts = StagingTable(Post, POST_FIELDS, "import_stage_post")
    threads.rows, posts.rows = _load_posts(path, reporter, (threads.raw_name, posts.raw_name))
    threads.analyze()
    posts.analyze()
    twice = posts.repeated_key("id")
    if twice is not None:
        raise repeated(path, "post", twice, (p.line for p in parse_posts(path) if p.id == twice))
    changes = {
        "threads": threads.upsert("id", distinct_sql(threads.columns[1:])),
        "posts": posts.upsert("id", distinct_sql(posts.columns[1:])),
    }
    threads.drop()
    posts.drop()
    return changes


def _load_new_posts(path: str | Path, reporter: Reporter) -> FileChanges:
    threads, posts = _load_posts(path, reporter)
    return {"threads": RowChanges(threads, threads), "posts": RowChanges(posts, posts)}


def posts_load(path: str | Path, progress: ProgressCallback | None = None) -> FileChanges:
    """Threads (one per question: id, title, tags, accepted answer) and posts of a
    ``Posts.xml``: new ones added, changed ones updated.

    An answer's thread is its ParentId; the question may come later in the file or be stored
    already, but must exist once the file is loaded.
    """
    reporter = Reporter("posts", path, progress)
    fresh = is_fresh(load_path(vendor=connection.vendor, empty=table_is_empty(Post, Thread)))
    load = _load_new_posts if fresh else _stage_posts
    with transaction.atomic():
        loaded = load_checked(path, Post, ["thread_id"], lambda: load(path, reporter), fresh=fresh)
        if isinstance(loaded, BadKey):
            raise _posts_error(path, loaded)
    reporter.report()
    return loaded


def _posts_error(path: str | Path, key: BadKey) -> ImportFileError:
    if key.duplicate:  # only a fresh load: the file gives an id twice
        what = "question" if key.column == "id" and "thread" in key.table else "post"
        lines = (p.line for p in parse_posts(path) if p.id == key.value)
        return repeated(path, what, key.value, lines)
    answer = next((p for p in parse_posts(path) if p.thread_id == key.value), None)
    return ImportFileError(
        path,
        answer.line if answer else None,
        f"answer {answer.id if answer else '?'}: its question {key.value} is not in the collection",
    )


def _comment_rows(path: str | Path, reporter: Reporter) -> Iterable[tuple[Any, ...]]:
    return (
        (c.id, c.post_id, c.text, c.score, c.created_at, c.user_id)
        for c in reporter.watch(parse_comments(path, reporter.state))
    )


def _stage_comments(path: str | Path, reporter: Reporter) -> FileChanges:
    comments = StagingTable(Comment, COMMENT_FIELDS, "import_stage_comment")
    comments.load(_comment_rows(path, reporter))
    comments.analyze()
    twice = comments.repeated_key("id")
    if twice is not None:
        lines = (c.line for c in parse_comments(path) if c.id == twice)
        raise repeated(path, "comment", twice, lines)
    changes = {"comments": comments.upsert("id", distinct_sql(comments.columns[1:]))}
    comments.drop()
    return changes


def _load_new_comments(path: str | Path, reporter: Reporter) -> FileChanges:
    count = bulk_insert(Comment, COMMENT_FIELDS, _comment_rows(path, reporter))
    return {"comments": RowChanges(count, count)}


def comments_load(path: str | Path, progress: ProgressCallback | None = None) -> FileChanges:
    """Comments of a ``Comments.xml`` (new ones added, changed ones updated); each comment's
    post must be in the collection."""
    reporter = Reporter("comments", path, progress)
    fresh = is_fresh(load_path(vendor=connection.vendor, empty=table_is_empty(Comment)))
    load = _load_new_comments if fresh else _stage_comments
    with transaction.atomic():
        loaded = load_checked(path, Comment, ["post_id"], lambda: load(path, reporter), fresh=fresh)
        if isinstance(loaded, BadKey):
            key = loaded
            if key.duplicate:
                lines = (c.line for c in parse_comments(path) if c.id == key.value)
                raise repeated(path, "comment", key.value, lines)
            found = next((c for c in parse_comments(path) if c.post_id == key.value), None)
            raise ImportFileError(
                path,
                found.line if found else None,
                f"comment {found.id if found else '?'}: post {key.value} is not in the collection",
            )
    reporter.report()
    return loaded
