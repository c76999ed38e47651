"""JSONL collections: one JSON object per line, with the field names the community uses.

- id: ``doc_id``, ``docno``, ``id`` or ``_id`` (the first present; a string or an integer);
- title: ``title``; body: ``text``, ``contents`` or ``body`` (the first present); ``url``;
- every other field is kept, as given, in the document's metadata.

Blank lines are skipped. NaN and Infinity are refused (PostgreSQL's JSON has no such number).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any

from collection.core.formats.documents.record import (
    DocumentProblems,
    DocumentRecord,
    document_record,
)
from collection.core.formats.documents.source import utf8_problem

ID_FIELDS = ("doc_id", "docno", "id", "_id")
BODY_FIELDS = ("text", "contents", "body")


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number PostgreSQL can store")


# One decoder for every line: json.loads(s, parse_constant=...) would build one per call.
_DECODER = json.JSONDecoder(parse_constant=_refuse_constant)


def _json_type(value: Any) -> str:
    names = {
        dict: "an object",
        list: "an array",
        bool: "a boolean",
        float: "a number",
        int: "a number",
    }
    return "null" if value is None else names.get(type(value), type(value).__name__)


def _docno(obj: dict[str, Any]) -> tuple[str | None, str]:
    """(problem, docno): the id as a string, or why there is none."""
    for name in ID_FIELDS:
        if name in obj:
            value = obj.pop(name)
            if type(value) is str:
                return None, value
            if type(value) is int:
                return None, str(value)
            return f"field {name} must be a string or an integer, not {_json_type(value)}", ""
    return "no id field (doc_id, docno, id or _id)", ""


def _type_problem(title: Any, body: Any, url: Any, body_name: str) -> str | None:
    """Which of title, body or url is neither a string nor null."""
    for name, value in (("title", title), (body_name, body), ("url", url)):
        if value is not None and type(value) is not str:
            return f"field {name} must be a string, not {_json_type(value)}"
    return None


def _record(obj: dict[str, Any], number: int, problems: DocumentProblems) -> DocumentRecord | None:
    # Written out rather than looped through helpers: this runs once per document.
    problem, docno = _docno(obj)
    title = obj.pop("title", "")
    body: Any = ""
    body_name = "text"
    for body_name in BODY_FIELDS:
        if body_name in obj:
            body = obj.pop(body_name)
            break
    url = obj.pop("url", "")
    if problem is None and not (type(title) is str and type(body) is str and type(url) is str):
        problem = _type_problem(title, body, url, body_name)
        title, body, url = title or "", body or "", url or ""
    if problem is not None:
        problems.add(number, f"docno {docno}: {problem}" if docno else problem)
        return None
    return document_record(
        docno=docno, title=title, body=body, url=url, metadata=obj, line=number, problems=problems
    )


def parse_jsonl(lines: Iterable[bytes], problems: DocumentProblems) -> Iterator[DocumentRecord]:
    """The documents of a JSONL file's lines (bytes), in file order; each bad line is added to
    ``problems`` and skipped."""
    raw_decode, decode = _DECODER.raw_decode, _DECODER.decode
    for number, raw in enumerate(lines, 1):
        try:
            text = raw.decode("utf-8")
            try:  # the common case: an object from the first character, then the newline
                obj, end = raw_decode(text)
                if end != len(text) and not text[end:].isspace():
                    raise ValueError("extra data")
            except ValueError:  # decode() says why, and skips leading whitespace
                obj = decode(text)
        except UnicodeDecodeError as error:
            problems.add(number, utf8_problem(raw, error))
            continue
        except json.JSONDecodeError as error:
            if not raw.strip():
                continue
            column = min(error.pos, len(error.doc.rstrip("\r\n"))) + 1
            problems.add(number, f"not valid JSON: {error.msg} (column {column})")
            continue
        except ValueError as error:  # NaN or Infinity
            problems.add(number, f"not valid JSON: {error}")
            continue
        except RecursionError:
            problems.add(number, "not valid JSON: nested too deeply")
            continue
        if type(obj) is not dict:
            problems.add(number, f"a line must hold a JSON object, not {_json_type(obj)}")
            continue
        record = _record(obj, number, problems)
        if record is not None:
            yield record
