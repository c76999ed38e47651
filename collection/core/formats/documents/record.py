"""One document as every collection format gives it, checked and fingerprinted.

Every parser (TREC SGML, JSONL, TSV, ir_datasets) ends in ``document_record``: the one place
that says what a valid document is (its docno, the bounds of each field) and how its checksum
is made. Problems are collected in ``DocumentProblems`` rather than raised at the first one,
so a bad file is reported whole (up to a limit) in one run.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any, NamedTuple

from collection.core.formats.errors import ImportFileError

# Mirrors collection.models.DOCNO_MAX_CHARS (this module may not import Django).
DOCNO_MAX_CHARS = 200
TITLE_MAX_CHARS = 10_000
URL_MAX_CHARS = 8_192
# Generous: a 10 MB document must import intact; the judging page truncates what it shows.
BODY_MAX_CHARS = 64 * 1024 * 1024
METADATA_MAX_CHARS = 1_000_000
# A file with this many problems stops being read: the first ones are what to fix.
MAX_PROBLEMS = 100

TEXT, HTML = "text", "html"
# The start of a body that is an HTML page (web collections), not plain text.
_HTML_START = re.compile(
    r"\s*(?:<\?xml[^>]*>\s*)?(?:<!--.*?-->\s*)*<(?:!doctype\s+html|html|head|body)\b", re.I | re.S
)
_SPACE = re.compile(r"\s")
_EMPTY_METADATA = "{}"
# A \u0000 escape in JSON text (not an escaped backslash followed by "u0000").
_NUL_ESCAPE = re.compile(r"(?<!\\)(?:\\\\)*\\u0000")
# A body starting with one of these may be an HTML page (looks_like_html decides).
_MAYBE_HTML = "< \t\r\n\f\v"
_FIELDS = ("docno", "title", "body", "body_format", "url", "metadata")


class DocumentRecord(NamedTuple):
    """A document ready to store: ``metadata_json`` is canonical JSON (sorted keys), and
    ``checksum`` fingerprints every stored field. ``line`` is where it starts in its file (for
    ir_datasets: its number in docs_iter order)."""

    docno: str
    title: str
    body: str
    body_format: str
    url: str
    metadata_json: str
    checksum: str
    line: int

    @property
    def metadata(self) -> dict[str, Any]:
        return json.loads(self.metadata_json)  # type: ignore[no-any-return]


class _SourceError(ImportFileError):
    """A problem in a source that is not a file (``ir_datasets:ID``): named in full."""

    def __str__(self) -> str:
        return f"{self.path} {self.message}"


class DocumentProblems:
    """The problems found in one file, in file order; stops the read past MAX_PROBLEMS."""

    def __init__(self, path: str | Path, *, where: str = "line") -> None:
        self.path = str(path)
        self.where = where  # "line" for files, "document" for ir_datasets
        self.found: list[ImportFileError] = []

    def add(self, line: int | None, message: str) -> None:
        if self.where == "line" or line is None:
            problem = ImportFileError(self.path, line, message)
        else:
            problem = _SourceError(self.path, None, f"{self.where} {line:,}: {message}")
        self.found.append(problem)
        if len(self.found) >= MAX_PROBLEMS:
            raise TooManyProblems(self)

    def __bool__(self) -> bool:
        return bool(self.found)

    def messages(self) -> list[str]:
        return [str(p) for p in self.found]


class TooManyProblems(Exception):
    """Raised by DocumentProblems.add once MAX_PROBLEMS are found: reading stops there."""

    def __init__(self, problems: DocumentProblems) -> None:
        self.problems = problems
        super().__init__(f"{len(problems.found)} problems; reading stopped")


def looks_like_html(body: str) -> bool:
    """A body that starts as an HTML page does (doctype, <html>, <head> or <body>)."""
    return _HTML_START.match(body, 0, 4096) is not None


# One encoder for every document: json.dumps(…, sort_keys=True) would build one per call.
_STRING = json.encoder.encode_basestring  # C; the ensure_ascii=False one
_ENCODE = json.JSONEncoder(
    ensure_ascii=False, sort_keys=True, separators=(",", ":"), allow_nan=False
).encode


def canonical_json(metadata: dict[str, Any]) -> str:
    """Metadata as stored and fingerprinted: sorted keys, no spaces, UTF-8 kept; NaN and
    Infinity refused (PostgreSQL's JSON has no such number)."""
    if not metadata:
        return _EMPTY_METADATA
    if len(metadata) == 1:
        ((key, value),) = metadata.items()
        if type(value) is str:
            return "{" + _STRING(key) + ":" + _STRING(value) + "}"
    elif len(metadata) <= 8 and all(type(v) is str for v in metadata.values()):
        # The same text as _ENCODE gives, built by the C string encoder json uses: a few
        # string fields (a date, a source) are the common case, and this is 3x faster.
        pairs = [f"{_STRING(k)}:{_STRING(v)}" for k, v in sorted(metadata.items())]
        return "{" + ",".join(pairs) + "}"
    return _ENCODE(metadata)


def docno_problem(docno: str) -> str | None:
    """Why ``docno`` cannot be a document id, or None. Runs and qrels are whitespace-separated
    files, so a docno with a space or tab could never be named in them."""
    if not docno:
        return "empty docno"
    if len(docno) > DOCNO_MAX_CHARS:
        return f"docno has {len(docno):,} characters (at most {DOCNO_MAX_CHARS})"
    if _SPACE.search(docno):
        return f"docno {docno[:60]!r} contains whitespace"
    return None


def _bounds_problem(title: str, body: str, url: str, metadata_json: str) -> str | None:
    for field, value, bound in (
        ("title", title, TITLE_MAX_CHARS),
        ("body", body, BODY_MAX_CHARS),
        ("url", url, URL_MAX_CHARS),
        ("metadata", metadata_json, METADATA_MAX_CHARS),
    ):
        if len(value) > bound:
            return f"field {field} has {len(value):,} characters (at most {bound:,})"
    return None


def _character_problem(fields: dict[str, str]) -> str:
    """Which field holds a NUL (PostgreSQL text cannot) or an unpaired surrogate (not UTF-8)."""
    for field, value in fields.items():
        if "\x00" in value or (field == "metadata" and _NUL_ESCAPE.search(value)):
            return f"field {field} contains a NUL character"
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as error:
            return f"field {field} contains an unpaired surrogate at character {error.start + 1}"
    return "a field contains a NUL character or an unpaired surrogate"


def _refuse(fields: tuple[str, ...], line: int, problems: DocumentProblems) -> None:
    """Say why a document that failed the fast checks of document_record is refused."""
    docno, title, body, _, url, metadata_json = fields
    problem = _bounds_problem(title, body, url, metadata_json) or _character_problem(
        dict(zip(_FIELDS, fields, strict=True))
    )
    problems.add(line, f"docno {docno[:60]}: {problem}")


def document_record(
    *,
    docno: str,
    title: str,
    body: str,
    url: str,
    metadata: dict[str, Any],
    line: int,
    problems: DocumentProblems,
    body_format: str | None = None,
) -> DocumentRecord | None:
    """The checked record, or None after adding its problem to ``problems``.

    ``body_format`` None means: HTML if the body starts like an HTML page, else text. The
    checksum is a 128-bit BLAKE2b of the stored fields joined by NUL (which no field may hold,
    so the join is unambiguous). Every check on the way is one C-level operation or a length:
    this runs once per document of collections of millions.
    """
    if not docno or len(docno) > DOCNO_MAX_CHARS or _SPACE.search(docno):
        problems.add(line, docno_problem(docno) or "bad docno")
        return None
    try:
        metadata_json = canonical_json(metadata)
    except (TypeError, ValueError) as error:
        problems.add(line, f"docno {docno}: field metadata cannot be stored as JSON: {error}")
        return None
    if body_format is None:
        body_format = HTML if body[:1] in _MAYBE_HTML and looks_like_html(body) else TEXT
    fields = (docno, title, body, body_format, url, metadata_json)
    if (
        len(title) > TITLE_MAX_CHARS
        or len(body) > BODY_MAX_CHARS
        or len(url) > URL_MAX_CHARS
        or len(metadata_json) > METADATA_MAX_CHARS
        or "\x00" in body  # memchr each: cheaper than counting the separators
        or "\x00" in title
        or "\x00" in url
        or "\x00" in docno
        or ("\\u0000" in metadata_json and _NUL_ESCAPE.search(metadata_json))
    ):
        _refuse(fields, line, problems)
        return None
    # metadata_json holds no raw NUL (JSON escapes control characters), body_format is ours.
    joined = "\x00".join(fields)
    try:
        checksum = hashlib.blake2b(joined.encode("utf-8"), digest_size=16).hexdigest()
    except UnicodeEncodeError:
        _refuse(fields, line, problems)
        return None
    return DocumentRecord(docno, title, body, body_format, url, metadata_json, checksum, line)
