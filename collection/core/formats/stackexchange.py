"""Stack Exchange dump files (``Posts.xml``, ``Comments.xml``): ``<row …/>`` elements, streamed.

lxml's iterparse reads the file incrementally; each row is cleared (and its finished siblings
dropped from the root) once read, so memory stays flat however large the dump is.
"""

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from lxml import etree

from collection.core.formats.errors import ImportFileError
from collection.core.formats.topics import split_tags

QUESTION, ANSWER = 1, 2
# Bounds on the dump's text (every stored text is bounded), far above Stack
# Exchange's own (titles 150 characters, bodies 30,000, comments 600).
TEXT_LIMITS = {"Title": 1_000, "Tags": 2_000, "Body": 1_000_000, "Text": 100_000}


@dataclass(frozen=True, slots=True)
class PostRecord:
    id: int
    kind: int  # 1 question, 2 answer
    thread_id: int  # the question's id: its own for a question, ParentId for an answer
    title: str
    tags: list[str]
    body: str
    score: int
    created_at: datetime | None
    owner_user_id: int | None
    line: int
    accepted_answer_id: int | None = None  # questions only


@dataclass(frozen=True, slots=True)
class CommentRecord:
    id: int
    post_id: int
    text: str
    score: int
    created_at: datetime | None
    user_id: int | None
    line: int


@dataclass
class RowProgress:
    """How far a stream has got: rows read and bytes of the file consumed."""

    rows: int = 0
    bytes_read: int = 0


class _Row:
    """Typed access to one ``<row>``'s attributes, raising errors that name the line."""

    __slots__ = ("attrib", "line", "path")

    def __init__(self, path: str | Path, element: etree._Element) -> None:
        self.path = path
        self.attrib = element.attrib
        self.line = element.sourceline or 0

    def error(self, message: str) -> ImportFileError:
        return ImportFileError(self.path, self.line, message)

    def number(self, name: str, *, required: bool = True) -> int | None:
        value = self.attrib.get(name)
        if value is None or value == "":
            if required:
                raise self.error(f"row has no {name}")
            return None
        try:
            return int(value)
        except ValueError:
            raise self.error(f"{name} is not an integer: {value!r}") from None

    def required_int(self, name: str) -> int:
        value = self.number(name)
        assert value is not None  # noqa: S101 - number(required=True) raised otherwise
        return value

    def text(self, name: str) -> str:
        value = self.attrib.get(name) or ""
        limit = TEXT_LIMITS.get(name)
        if limit is not None and len(value) > limit:
            raise self.error(f"{name} has {len(value):,} characters (at most {limit:,})")
        return value

    def date(self, name: str) -> datetime | None:
        value = self.attrib.get(name)
        if not value:
            return None
        try:
            moment = datetime.fromisoformat(value)
        except ValueError:
            raise self.error(f"{name} is not a date: {value!r}") from None
        # Stack Exchange dumps write UTC without an offset.
        return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def iter_rows(
    path: str | Path, progress: RowProgress | None = None
) -> Iterator[tuple[str | Path, etree._Element]]:
    """Every ``<row>`` element of a dump file, cleared after the caller has used it."""
    try:
        with open(path, "rb") as handle:
            for _event, element in etree.iterparse(
                handle, events=("end",), tag="row", resolve_entities=False, huge_tree=True
            ):
                yield path, element
                element.clear(keep_tail=False)
                parent = element.getparent()
                if parent is not None:
                    while element.getprevious() is not None:
                        del parent[0]
                if progress is not None:
                    progress.rows += 1
                    progress.bytes_read = handle.tell()
    except etree.XMLSyntaxError as error:
        raise ImportFileError(path, error.lineno, f"malformed XML: {error.msg}") from error
    except OSError as error:
        raise ImportFileError(path, None, f"cannot read: {error}") from error


def parse_posts(path: str | Path, progress: RowProgress | None = None) -> Iterator[PostRecord]:
    """Questions and answers of ``Posts.xml``; other post types (wikis, …) are not threads
    and are left out."""
    for _, element in iter_rows(path, progress):
        row = _Row(path, element)
        post_id = row.required_int("Id")
        kind = row.required_int("PostTypeId")
        if kind not in (QUESTION, ANSWER):
            continue
        if kind == QUESTION:
            thread_id = post_id
        else:
            parent = row.number("ParentId", required=False)
            if parent is None:
                raise row.error(f"answer {post_id} has no ParentId")
            thread_id = parent
        yield PostRecord(
            id=post_id,
            kind=kind,
            thread_id=thread_id,
            title=row.text("Title"),
            tags=split_tags(row.text("Tags")),
            body=row.text("Body"),
            score=row.number("Score", required=False) or 0,
            created_at=row.date("CreationDate"),
            owner_user_id=row.number("OwnerUserId", required=False),
            line=row.line,
            accepted_answer_id=row.number("AcceptedAnswerId", required=False),
        )


def parse_comments(
    path: str | Path, progress: RowProgress | None = None
) -> Iterator[CommentRecord]:
    """Comments of ``Comments.xml`` (Id, PostId, Score, Text, CreationDate, UserId)."""
    for _, element in iter_rows(path, progress):
        row = _Row(path, element)
        yield CommentRecord(
            id=row.required_int("Id"),
            post_id=row.required_int("PostId"),
            text=row.text("Text"),
            score=row.number("Score", required=False) or 0,
            created_at=row.date("CreationDate"),
            user_id=row.number("UserId", required=False),
            line=row.line,
        )
