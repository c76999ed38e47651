"""TREC SGML collections: ``<DOC><DOCNO>…</DOCNO> … <TEXT>…</TEXT></DOC>``, streamed.

A hand-written scanner (the files are SGML, not XML: unquoted attributes, stray ``&``,
unclosed ``<P>``): lines are read one at a time, the lines of one document are gathered
between ``<DOC>`` and ``</DOC>`` (tags in either case, anywhere on a line), and only that
document is held in memory. Inside it, each top-level element is a field:

- ``DOCNO`` is the id; ``DOCHDR`` (web collections: URL and HTTP headers) gives the URL, and
  everything after it is the page, kept as HTML;
- ``HEADLINE``, ``TITLE``, ``HEAD``, ``HL``, ``TI`` make the title (joined by spaces); with
  none of them, a title nested in another field (FBIS: ``<HEADER><H3><TI>``) is used;
- short descriptive fields (``DATE``, ``BYLINE``, ``SECTION``, …, see METADATA_FIELDS) go to
  the metadata, under their lower-case names;
- ``TEXT``, ``BODY`` and every other field make the body, in file order, separated by a blank
  line. A body that starts like an HTML page is kept as HTML; otherwise it is plain text.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from collection.core.formats.documents.record import (
    HTML,
    TEXT,
    DocumentProblems,
    DocumentRecord,
    document_record,
    looks_like_html,
)
from collection.core.formats.documents.sgml_text import field_text, line_text
from collection.core.formats.documents.source import utf8_problem

TITLE_FIELDS = frozenset({"HEADLINE", "TITLE", "HEAD", "HL", "TI"})
METADATA_FIELDS = frozenset(
    {
        "DOCOLDNO", "DOCID", "FILEID", "FIRST", "SECOND", "DATE", "DATE1", "DATELINE", "DD",
        "BYLINE", "AUTHOR", "SECTION", "PAGE", "PROFILE", "PUB", "LENGTH", "TYPE", "SO",
        "SOURCE", "CO", "IN", "NS", "RE", "G", "GV", "CN", "MS", "DESCRIPT", "CORRECTION-DATE",
        "HEADER", "AGENCY", "USDEPT", "USBUREAU", "CFRNO", "RINDOCK", "ACTION", "PARENT",
    }
)  # fmt: skip
_DOC_TAG = re.compile(r"<(/?)doc(?=[\s>])[^<>]*>", re.I)
_OPEN_TAG = re.compile(r"<([A-Za-z][A-Za-z0-9_.\-]*)(?:\s[^<>]*)?>")
_NESTED_TITLE = re.compile(r"<(HEADLINE|TITLE|HEAD|HL|TI)(?:\s[^<>]*)?>(.*?)</\1\s*>", re.I | re.S)
_HTML_TAG = re.compile(r"<(?:html|head|body|title|meta|p|div|br|a|table|span|script)\b", re.I)
_CLOSE_TAGS: dict[str, re.Pattern[str]] = {}


def _close_tag(name: str) -> re.Pattern[str]:
    pattern = _CLOSE_TAGS.get(name)
    if pattern is None:
        pattern = re.compile(rf"</{re.escape(name)}\s*>", re.I)
        if len(_CLOSE_TAGS) < 1000:  # hostile files may invent any number of tag names
            _CLOSE_TAGS[name] = pattern
    return pattern


@dataclass
class _Document:
    """The fields of one document as found: name (upper case), content, offset in the text."""

    text: str
    line: int  # of the <DOC> tag
    fields: list[tuple[str, str, int]] = field(default_factory=list)
    loose: list[str] = field(default_factory=list)  # text outside any field
    page: str | None = None  # after </DOCHDR>: the web page, as it is

    def line_of(self, offset: int) -> int:
        return self.line + self.text.count("\n", 0, offset)


def _scan_fields(doc: _Document, problems: DocumentProblems) -> bool:
    """Split the document's text into its top-level fields; False after a problem."""
    text, position = doc.text, 0
    unclosed: set[str] = set()  # names with no closing tag left: never searched for again
    while (tag := _OPEN_TAG.search(text, position)) is not None:
        doc.loose.append(text[position : tag.start()])
        name = tag.group(1).upper()
        close = None if name in unclosed else _close_tag(name).search(text, tag.end())
        if close is None:
            unclosed.add(name)
            if name in ("DOCNO", "TEXT", "DOCHDR") or name in TITLE_FIELDS:
                problems.add(doc.line_of(tag.start()), f"<{tag.group(1)}> is not closed")
                return False
            doc.loose.append(tag.group(0))  # a stray tag (<P>, <F P=100>): dropped as text
            position = tag.end()
            continue
        doc.fields.append((name, text[tag.end() : close.start()], tag.start()))
        position = close.end()
        if name == "DOCHDR":
            doc.page = text[position:]
            return True
    doc.loose.append(text[position:])
    return True


def _docno(doc: _Document, problems: DocumentProblems) -> str | None:
    docnos = [(content, offset) for name, content, offset in doc.fields if name == "DOCNO"]
    if not docnos:
        problems.add(doc.line, "no <DOCNO> in this <DOC>")
        return None
    if len(docnos) > 1:
        problems.add(doc.line_of(docnos[1][1]), "a second <DOCNO> in the same <DOC>")
        return None
    docno = docnos[0][0].strip()
    if not docno:
        problems.add(doc.line_of(docnos[0][1]), "empty <DOCNO>")
        return None
    return docno


def _url(header: str) -> str:
    """The URL a DOCHDR starts with (WT10g, GOV2, ClueWeb09 in TREC format)."""
    first = header.strip().split(None, 1)
    return first[0] if first and "://" in first[0] else ""


def _record(doc: _Document, problems: DocumentProblems) -> DocumentRecord | None:
    docno = _docno(doc, problems)
    if docno is None:
        return None
    titles: list[str] = []
    bodies: list[str] = []
    metadata: dict[str, str] = {}
    url = ""
    for name, content, _ in doc.fields:
        if name == "DOCNO":
            continue
        if name == "DOCHDR":
            url = _url(content)
        elif name in TITLE_FIELDS:
            titles.append(line_text(content))
        elif name in METADATA_FIELDS:
            key = name.lower()
            value = line_text(content)
            metadata[key] = f"{metadata[key]}\n{value}" if key in metadata else value
        else:
            bodies.append(content)
    loose = "\n\n".join(doc.loose)  # text between fields: one more part, after them
    if loose.strip():
        bodies.append(loose)
    if not titles:
        # Only near the start: a title is there, and a hostile page cannot make this slow.
        nested = _NESTED_TITLE.search(doc.text if doc.page is None else doc.page, 0, 65_536)
        if nested is not None:
            titles.append(line_text(nested.group(2)))
    body_format, body = _body(bodies, doc.page)
    return document_record(
        docno=docno,
        title=" ".join(t for t in titles if t),
        body=body,
        body_format=body_format,
        url=url,
        metadata=metadata,
        line=doc.line,
        problems=problems,
    )


def _body(parts: list[str], page: str | None) -> tuple[str, str]:
    """(format, body): the web page after DOCHDR, a field holding an HTML page, or the fields'
    text joined by blank lines."""
    if page is not None:
        page = page.strip()
        html = looks_like_html(page) or _HTML_TAG.search(page, 0, 65_536) is not None
        return (HTML if html else TEXT), page
    pages = [part.strip() for part in parts if looks_like_html(part)]
    if pages:
        return HTML, "\n\n".join(pages)
    texts = (field_text(part) for part in parts)
    return TEXT, "\n\n".join(text for text in texts if text)


class _Scanner:
    """Gathers the lines of each <DOC> … </DOC>; reports text outside documents once."""

    def __init__(self, problems: DocumentProblems) -> None:
        self.problems = problems
        self.parts: list[str] | None = None  # inside a document: its text so far
        self.start = 0  # line of its <DOC>
        self.outside_reported = False

    def outside(self, text: str, number: int) -> None:
        if text.strip() and not self.outside_reported:
            self.outside_reported = True
            self.problems.add(number, "text outside <DOC> … </DOC>")

    def feed(self, text: str, number: int) -> Iterator[_Document]:
        position = 0
        for tag in _DOC_TAG.finditer(text):
            closing = tag.group(1) == "/"
            if self.parts is None:
                self.outside(text[position : tag.start()], number)
                if closing:
                    self.problems.add(number, "</DOC> without its <DOC>")
                else:
                    self.parts, self.start = [], number
            else:
                self.parts.append(text[position : tag.start()])
                if closing:
                    yield _Document("".join(self.parts), self.start)
                    self.parts = None
                else:  # a new <DOC> before </DOC>: the open one is cut short
                    self.problems.add(self.start, f"<DOC> not closed before line {number}")
                    self.parts, self.start = [], number
            position = tag.end()
        rest = text[position:]
        if self.parts is None:
            self.outside(rest, number)
        else:
            self.parts.append(rest)


def parse_trec(lines: Iterable[bytes], problems: DocumentProblems) -> Iterator[DocumentRecord]:
    """The documents of a TREC SGML file's lines (bytes), in file order; each bad document is
    added to ``problems`` and skipped."""
    scanner = _Scanner(problems)
    number = 0
    for number, raw in enumerate(lines, 1):
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as error:
            problems.add(number, utf8_problem(raw, error))
            text = raw.decode("utf-8", "replace")  # read on, to find the document's end
        for doc in scanner.feed(text, number):
            if not _scan_fields(doc, problems):
                continue
            record = _record(doc, problems)
            if record is not None:
                yield record
    if scanner.parts is not None:
        problems.add(scanner.start, f"<DOC> not closed at the end of the file (line {number})")
