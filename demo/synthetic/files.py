"""Writers of the synthetic collection in the formats the importers read.

Stack Exchange dump XML (``Posts.xml``, ``Comments.xml``: one ``<row>`` per record, every field
an attribute) and the ARQMath v3 formula index TSV. Each writer takes an iterable of threads and
writes as it goes, so a collection of any size streams through constant memory.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TextIO

from collection.core.formats.formula_index import V3_HEADER
from demo.synthetic.threads import PostRecord, ThreadRecord

_ATTRIBUTE_ESCAPES = str.maketrans(
    {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "\n": "&#xA;", "\t": "&#x9;"}
)


@dataclass
class CollectionCounts:
    threads: int = 0
    posts: int = 0
    comments: int = 0
    formulas: int = 0


def _attr(value: object) -> str:
    return str(value).translate(_ATTRIBUTE_ESCAPES)


def _date(moment: datetime) -> str:
    # Stack Exchange dumps write local-less ISO times with milliseconds.
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}"


def _post_row(post: PostRecord) -> str:
    fields: list[tuple[str, object]] = [
        ("Id", post.id),
        ("PostTypeId", post.kind),
    ]
    if post.kind == 2:
        fields.append(("ParentId", post.thread_id))
    if post.accepted_answer_id is not None:
        fields.append(("AcceptedAnswerId", post.accepted_answer_id))
    fields += [
        ("CreationDate", _date(post.created_at)),
        ("Score", post.score),
        ("Body", post.body),
        ("OwnerUserId", post.owner_user_id),
    ]
    if post.kind == 1:
        fields += [("Title", post.title), ("Tags", "".join(f"<{tag}>" for tag in post.tags))]
    return "  <row " + " ".join(f'{name}="{_attr(value)}"' for name, value in fields) + " />\n"


class CollectionWriter:
    """Writes Posts.xml, Comments.xml and formulas.tsv of a stream of threads together."""

    def __init__(self, folder: Path) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self.posts_path = folder / "Posts.xml"
        self.comments_path = folder / "Comments.xml"
        self.formulas_path = folder / "formulas.tsv"
        self.counts = CollectionCounts()

    def write(self, threads: Iterable[ThreadRecord]) -> CollectionCounts:
        with (
            self.posts_path.open("w", encoding="utf-8", newline="\n") as posts,
            self.comments_path.open("w", encoding="utf-8", newline="\n") as comments,
            self.formulas_path.open("w", encoding="utf-8", newline="\n") as formulas,
        ):
            posts.write('<?xml version="1.0" encoding="utf-8"?>\n<posts>\n')
            comments.write('<?xml version="1.0" encoding="utf-8"?>\n<comments>\n')
            formulas.write("\t".join(V3_HEADER) + "\n")
            for thread in threads:
                self._write_thread(thread, posts, comments, formulas)
            posts.write("</posts>\n")
            comments.write("</comments>\n")
        return self.counts

    def _write_thread(
        self, thread: ThreadRecord, posts: TextIO, comments: TextIO, formulas: TextIO
    ) -> None:
        posts.writelines(_post_row(post) for post in thread.posts)
        comments.writelines(
            f'  <row Id="{c.id}" PostId="{c.post_id}" Score="{c.score}" '
            f'Text="{_attr(c.text)}" CreationDate="{_date(c.created_at)}" UserId="{c.user_id}" />\n'
            for c in thread.comments
        )
        formulas.writelines(_formula_lines(thread))
        self.counts.threads += 1
        self.counts.posts += 1 + len(thread.answers)
        self.counts.comments += len(thread.comments)
        self.counts.formulas += len(thread.formulas)


def _formula_lines(thread: ThreadRecord) -> Iterator[str]:
    for f in thread.formulas:
        comment = "" if f.comment_id is None else str(f.comment_id)
        # TSV cells cannot hold tabs or newlines; LaTeX from the vocabulary has neither.
        yield (
            f"{f.formula_id}\t{f.post_id}\t{f.thread_id}\t{f.location}\t{comment}\t"
            f"{f.visual_id}\t{f.visual_id}\t\t{f.latex}\n"
        )
