"""Topic categories: a tab-separated file naming, for each topic, the categories it falls in.

The ARQMath overviews break every result down by topic category: the question's type
(computation, concept, proof), its difficulty (low, medium, high) and what it depends on
(text, formula, both). The file is ours to define, one topic a line after a header naming the
columns; the first column is the topic number and every other column is a category, so a
campaign may use its own (TREC's "domain", say):

    topic   type         difficulty  dependency
    A.301   proof        medium      both

Values are kept as written, without surrounding spaces. Every problem names the file, the
line and the column. Pure: no Django.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from collection.core.formats.errors import ImportFileError

MAX_BYTES = 5_000_000  # 100,000 topics of a few categories fit many times over
MAX_CATEGORIES = 10
MAX_VALUE_CHARS = 60
TOPIC_COLUMNS = ("topic", "qid", "topic_id")
CATEGORY_NAME = re.compile(r"[a-z][a-z0-9_]{0,39}")


@dataclass(frozen=True, slots=True)
class TopicCategories:
    """One topic's categories: category name -> value (a blank cell leaves it out)."""

    line: int
    topic: str
    categories: dict[str, str]


def _header(path: str | Path, line: str) -> list[str]:
    names = [name.strip().lower() for name in line.split("\t")]
    if names[0] not in TOPIC_COLUMNS:
        raise ImportFileError(path, 1, f"the first column must be 'topic', not {names[0]!r}")
    categories = names[1:]
    if not categories:
        raise ImportFileError(path, 1, "no category column after 'topic'")
    if len(categories) > MAX_CATEGORIES:
        raise ImportFileError(path, 1, f"at most {MAX_CATEGORIES} category columns")
    for name in categories:
        if not CATEGORY_NAME.fullmatch(name):
            raise ImportFileError(
                path, 1, f"category {name[:40]!r}: lower-case letters, digits and _, at most 40"
            )
    if len(set(categories)) != len(categories):
        raise ImportFileError(path, 1, "a category column is named twice")
    return categories


def topic_categories_parse(path: str | Path, data: bytes) -> list[TopicCategories]:
    """Every topic's categories, in file order; ImportFileError for the first problem."""
    if len(data) > MAX_BYTES:
        raise ImportFileError(path, None, f"larger than {MAX_BYTES:,} bytes")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise ImportFileError(path, None, f"not UTF-8 text: {error}") from error
    lines = text.splitlines()
    if not lines or not lines[0].strip():
        raise ImportFileError(path, 1, "empty file: a header row is required")
    names = _header(path, lines[0])
    found: list[TopicCategories] = []
    seen: set[str] = set()
    for number, line in enumerate(lines[1:], start=2):
        if not line.strip():
            continue
        cells = [cell.strip() for cell in line.split("\t")]
        if len(cells) != len(names) + 1:
            raise ImportFileError(
                path, number, f"{len(cells)} columns, the header names {len(names) + 1}"
            )
        topic = cells[0]
        if not topic:
            raise ImportFileError(path, number, "topic: empty")
        if topic in seen:
            raise ImportFileError(path, number, f"topic {topic[:40]!r} is listed twice")
        seen.add(topic)
        for name, value in zip(names, cells[1:], strict=True):
            if len(value) > MAX_VALUE_CHARS:
                raise ImportFileError(
                    path, number, f"{name}: longer than {MAX_VALUE_CHARS} characters"
                )
        categories = {n: v for n, v in zip(names, cells[1:], strict=True) if v}
        found.append(TopicCategories(number, topic, categories))
    return found
