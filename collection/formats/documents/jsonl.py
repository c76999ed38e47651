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

from collection.formats.documents.record import DocumentProblems, DocumentRecord, document_record
from collection.formats.documents.source import utf8_problem

ID_FIELDS = ("doc_id", "docno", "id", "_id")
BODY_FIELDS = ("text", "contents", "body")
_MISSING = object()


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number PostgreSQL can store")


# One decoder for every line: json.loads(s, parse_constant=...) would build one per call.
_DECODER = json.JSONDecoder(parse_constant=_refuse_constant)


def _text_field(obj: dict[str, Any], names: tuple[str, ...]) -> tuple[str | None, Any]:
    """(name, value) of the first of ``names`` present in ``obj``, popped; (None, "") if none."""
    for name in names:
        value = obj.pop(name, _MISSING)
        if value is not _MISSING:
            return name, value
    return None, ""


def _docno(obj: dict[str, Any]) -> tuple[str | None, str]:
    """(problem, docno): the id as a string, or why there is none."""
    name, value = _text_field(obj, ID_FIELDS)
    if name is None:
        return "no id field (doc_id, docno, id or _id)", ""
    if type(value) is str:
        return None, value
    if type(value) is int:
        return None, str(value)
    return f"field {name} must be a string or an integer, not {_json_type(value)}", ""


def _json_type(value: Any) -> str:
    names = {
        dict: "an object",
        list: "an array",
        bool: "a boolean",
        float: "a number",
        int: "a number",
    }
    return "null" if value is None else names.get(type(value), type(value).__name__)


def _string(obj: dict[str, Any], names: tuple[str, ...]) -> tuple[str | None, str]:
    """(problem, value) of a text field: a string, or null/absent for ""."""
    name, value = _text_field(obj, names)
    if value is None or type(value) is str:
        return None, value or ""
    return f"field {name} must be a string, not {_json_type(value)}", ""


def _record(obj: dict[str, Any], number: int, problems: DocumentProblems) -> DocumentRecord | None:
    problem, docno = _docno(obj)
    if problem is None:
        problem, title = _string(obj, ("title",))
    if problem is None:
        problem, body = _string(obj, BODY_FIELDS)
    if problem is None:
        problem, url = _string(obj, ("url",))
    if problem is not None:
        problems.add(number, f"docno {docno}: {problem}" if docno else problem)
        return None
    return document_record(
        docno=docno, title=title, body=body, url=url, metadata=obj, line=number, problems=problems
    )


def parse_jsonl(lines: Iterable[bytes], problems: DocumentProblems) -> Iterator[DocumentRecord]:
    """The documents of a JSONL file's lines (bytes), in file order; each bad line is added to
    ``problems`` and skipped."""
    decode = _DECODER.decode
    for number, raw in enumerate(lines, 1):
        try:
            obj = decode(raw.decode("utf-8"))
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
