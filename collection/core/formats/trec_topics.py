"""TREC topic files, and the one entry point for every topic format of document tasks.

TREC SGML (ad hoc, Robust, TREC-1..8 and most tracks since)::

    <top>
    <num> Number: 301
    <title> International Organized Crime
    <desc> Description:
    Identify organizations that participate in international criminal activity ...
    <narr> Narrative:
    A relevant document must as a minimum identify the organization ...
    </top>

Real files vary, and all of these are read: closing tags present or not (``</title>``, even a
missing ``</top>`` before the next ``<top>``), upper- or lowercase tags, the labels
``Number:``, ``Topic:``, ``Description:``, ``Narrative:`` present or not, a zero-padded number
(``Number: 051``, written ``51`` in the qrels: the leading zeros are dropped), and other fields
(``<smry>``, ``<con>``, ``<fac>``, ``<def>``, ``<dom>``, ``<head>``, …) kept as metadata.

TREC Web-track and TREC-COVID XML: ``<topic number="1" type="faceted"><query>…</query>
<description>…</description><subtopic number="1" type="nav">…</subtopic>…</topic>``; the query
(or ``<title>``) is the title, ``<question>`` the description where there is none, other
attributes and children (subtopics as a list) metadata.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal

from lxml import etree

from collection.core.formats.errors import ImportFileError
from collection.core.formats.query_lines import parse_jsonl_topics, parse_tsv_topics
from collection.core.formats.topic_text import (
    LineIndex,
    QueryTopic,
    checked_topic,
    one_line,
    plain_text,
    read_topic_text,
)

TopicFormat = Literal["auto", "trec", "tsv", "jsonl"]
TOPIC_FORMATS: tuple[TopicFormat, ...] = ("auto", "trec", "tsv", "jsonl")

_TOP = re.compile(r"<top\s*>(.*?)(?:</top\s*>|(?=<top\s*>)|\Z)", re.IGNORECASE | re.DOTALL)
_TAG = re.compile(r"<\s*(/?)\s*([A-Za-z][\w.-]*)\s*>")
# The label a field's text starts with, per tag (TREC-1/2 topics write "Topic:" in <title>).
_LABELS = {
    "num": r"(?:topic\s+)?(?:number|num|topic)\s*:",
    "title": r"(?:topic|title)\s*:",
    "desc": r"description\s*:",
    "narr": r"narrative\s*:",
    "smry": r"summary\s*:",
    "con": r"concepts?(?:\(s\))?\s*:",
    "fac": r"factors?(?:\(s\))?\s*:",
    "def": r"definitions?(?:\(s\))?\s*:",
    "dom": r"domain\s*:",
    "nat": r"nationality\s*:",
}
_LABEL_PATTERNS = {
    tag: re.compile(r"\A\s*" + label, re.IGNORECASE) for tag, label in _LABELS.items()
}
_FIELDS = {"num": "number", "title": "title", "desc": "description", "narr": "narrative"}


def parse_query_topics(path: str | Path, file_format: TopicFormat = "auto") -> list[QueryTopic]:
    """Every topic of a document task's topic file, checked; a duplicate number is an error.

    ``file_format`` ``auto`` looks at the content: ``<top>`` is TREC SGML, ``<topic`` TREC XML,
    a ``{`` JSONL, anything else TSV."""
    if file_format not in TOPIC_FORMATS:
        raise ImportFileError(path, None, f"unknown topic format {file_format!r}")
    text = read_topic_text(path)
    chosen = detect_topic_format(text) if file_format == "auto" else file_format
    if chosen == "trec":
        topics: Iterator[QueryTopic] = parse_trec_topics(path, text)
    elif chosen == "jsonl":
        topics = parse_jsonl_topics(path, text)
    else:
        topics = parse_tsv_topics(path, text)
    found: list[QueryTopic] = []
    lines: dict[str, int] = {}
    for topic in topics:
        checked_topic(path, topic)
        if topic.number in lines:
            raise ImportFileError(
                path,
                topic.line,
                f"topic {topic.number} appears twice (first on line {lines[topic.number]})",
            )
        lines[topic.number] = topic.line
        found.append(topic)
    if not found:
        raise ImportFileError(path, None, f"no topics found (read as {chosen})")
    return found


def detect_topic_format(text: str) -> Literal["trec", "tsv", "jsonl"]:
    head = text.lstrip()[:4096].lower()
    if head.startswith("<") and ("<top" in head or "<topic" in head):
        return "trec"
    if head.startswith(("{", "[")):  # "[": a JSON array, refused line by line as not objects
        return "jsonl"
    return "tsv"


def parse_trec_topics(path: str | Path, text: str) -> Iterator[QueryTopic]:
    """TREC SGML topics, or the XML of the Web track and TREC-COVID (see the module docstring)."""
    if re.search(r"<top\s*>", text, re.IGNORECASE):
        return _sgml_topics(path, text)
    return _xml_topics(path, text)


def _sgml_topics(path: str | Path, text: str) -> Iterator[QueryTopic]:
    lines = LineIndex(text)
    end = 0
    for block in _TOP.finditer(text):
        _no_text_between(path, text[end : block.start()], end, lines)
        end = block.end()
        yield _sgml_topic(path, block.group(1), block.start(1), lines.line(block.start()), lines)
    _no_text_between(path, text[end:], end, lines)


def _no_text_between(path: str | Path, gap: str, start: int, lines: LineIndex) -> None:
    """Between topics only white space and tags (a wrapper such as ``<topics>``) may stand."""
    stray = _TAG.sub(" ", gap).strip()
    if stray:
        offset = start + gap.find(stray.split()[0])
        raise ImportFileError(
            path, lines.line(offset), f"text outside <top>…</top>: {stray[:40]!r}"
        )


def _sgml_topic(
    path: str | Path, body: str, offset: int, line: int, lines: LineIndex
) -> QueryTopic:
    fields: dict[str, str] = {}
    tags = list(_TAG.finditer(body))
    for index, tag in enumerate(tags):
        closing, name = tag.group(1), tag.group(2).lower()
        stop = tags[index + 1].start() if index + 1 < len(tags) else len(body)
        value = body[tag.end() : stop]
        where = lines.line(offset + tag.start())
        if closing:
            if value.strip():
                raise ImportFileError(
                    path, where, f"text after </{name}> outside any field: {value.strip()[:40]!r}"
                )
            continue
        if name in fields:
            raise ImportFileError(path, where, f"<{name}> appears twice in one topic")
        label = _LABEL_PATTERNS.get(name)
        fields[name] = label.sub("", value, count=1) if label else value
    if not tags or body[: tags[0].start()].strip():
        raise ImportFileError(path, line, "text in <top> before its first field")
    number = one_line(fields.pop("num", ""))
    if not number:
        raise ImportFileError(path, line, "a topic without a number (field <num>)")
    if number.isdigit():
        number = str(int(number))  # "Number: 051" is topic 51 in the qrels and runs
    if "title" not in fields:
        raise ImportFileError(path, line, f"topic {number} has no <title>")
    return QueryTopic(
        number=number,
        title=one_line(fields.pop("title")),
        description=plain_text(fields.pop("desc", "")),
        narrative=plain_text(fields.pop("narr", "")),
        metadata={name: plain_text(value) for name, value in fields.items()},
        line=line,
    )


def _xml_topics(path: str | Path, text: str) -> Iterator[QueryTopic]:
    parser = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False)
    try:
        root = etree.fromstring(text.encode("utf-8"), parser)
    except etree.XMLSyntaxError as error:
        raise ImportFileError(path, error.lineno, f"malformed XML: {error.msg}") from error
    for element in root.iter():
        if isinstance(element.tag, str) and element.tag.lower() == "topic":
            yield _xml_topic(path, element)


def _text(element: etree._Element) -> str:
    return "".join(element.itertext())


def _xml_topic(path: str | Path, element: etree._Element) -> QueryTopic:
    line = element.sourceline or 0
    attributes = {name.lower(): value for name, value in element.attrib.items()}
    number = one_line(attributes.pop("number", "") or attributes.pop("id", ""))
    children: dict[str, str] = {}
    metadata: dict[str, Any] = dict(attributes)
    subtopics: list[dict[str, str]] = []
    for child in element:
        if not isinstance(child.tag, str):
            continue
        name = child.tag.lower()
        if name == "subtopic":
            subtopics.append({**dict(child.attrib), "text": plain_text(_text(child))})
        elif name in children:
            raise ImportFileError(path, child.sourceline, f"<{name}> appears twice in one topic")
        else:
            children[name] = _text(child)
    number = number or one_line(children.pop("number", "") or children.pop("num", ""))
    if not number:
        raise ImportFileError(path, line, 'a <topic> without a number (attribute number="…")')
    title = children.pop("query", None) or children.pop("title", None)
    if title is None:
        raise ImportFileError(path, line, f"topic {number} has no <query> (or <title>)")
    description = children.pop("description", None) or children.pop("desc", "")
    if not description and "question" in children:
        description = children.pop("question")
    narrative = children.pop("narrative", None) or children.pop("narr", "")
    metadata.update({name: plain_text(value) for name, value in children.items()})
    if subtopics:
        metadata["subtopics"] = subtopics
    return QueryTopic(
        number=number,
        title=one_line(title),
        description=plain_text(description),
        narrative=plain_text(narrative),
        metadata=metadata,
        line=line,
    )
