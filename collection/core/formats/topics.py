"""ARQMath topic files: the XML topics (Task 1 and Task 2 forms) and their formula TSVs.

Task 1 form (answer retrieval; also Task 3): ``<Topic number="A.301">`` with ``<Title>``,
``<Question>`` (HTML escaped inside the XML) and ``<Tags>`` (comma-separated). Task 2 form
(formula retrieval): the same plus ``<Formula_Id>`` and ``<Latex>`` of the query formula.
Other simple children (e.g. ``<Category>``) become metadata.
"""

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from lxml import etree

from collection.core.formats.errors import ImportFileError
from collection.core.formats.tabular import TsvReader, open_text, parse_int

TopicForm = Literal["answer", "formula"]
_FIELDS = {"Title", "Question", "Tags", "Formula_Id", "Latex"}

# Bounds on what a topic file may store, far above ARQMath's own topics (titles
# up to 338 characters, questions 4,748, query LaTeX 197, MathML 11,704). The number and the
# formula id are bounded by their columns (Topic.number, Topic.formula_id).
LIMITS = {
    "number": 20,
    "title": 1_000,
    "question": 100_000,
    "formula_id": 40,
    "latex": 10_000,
    "tag": 100,
    "metadata": 1_000,
}
MAX_TAGS = 50
MAX_FORMULA_CHARS = 1_000_000  # topic-formulas-*.tsv: LaTeX or MathML of one formula


@dataclass(frozen=True)
class TopicRecord:
    number: str
    form: TopicForm
    title: str
    question: str
    tags: list[str]
    formula_id: str = ""
    latex: str = ""
    metadata: dict[str, str] = field(default_factory=dict)
    line: int = 0


@dataclass(frozen=True)
class TopicFormulaRow:
    """One row of topic-formulas-{latex,slt}.tsv; ``topic`` as written (``A.301``)."""

    formula_id: str
    topic: str
    thread_id: int | None
    location: str  # title | body
    text: str  # LaTeX or MathML, by file
    line: int


def split_tags(text: str) -> list[str]:
    """Tags as topic files (``a,b``) and Stack Exchange dumps (``<a><b>``, ``|a|b|``) write them."""
    text = text.strip()
    if text.startswith("<") and text.endswith(">"):
        parts = text[1:-1].split("><")
    elif text.startswith("|"):
        parts = text.split("|")
    else:
        parts = text.split(",")
    return [p.strip() for p in parts if p.strip()]


def _inner_html(element: etree._Element) -> str:
    """The element's content; escaped HTML is already text, literal child elements are kept."""
    parts = [element.text or ""]
    parts += [etree.tostring(child, encoding="unicode", with_tail=True) for child in element]
    return "".join(parts)


def _topic(path: str | Path, element: etree._Element) -> TopicRecord:
    line = element.sourceline or 0
    number = (element.get("number") or "").strip()
    if not number:
        raise ImportFileError(path, line, "unknown topic form: <Topic> without a number")
    values: dict[str, str] = {}
    metadata: dict[str, str] = {}
    for child in element:
        if not isinstance(child.tag, str):
            continue
        if len(child) and child.tag not in ("Title", "Question"):
            raise ImportFileError(
                path, child.sourceline, f"unknown topic form: <{child.tag}> has child elements"
            )
        if child.tag in _FIELDS:
            values[child.tag] = _inner_html(child)
        else:
            metadata[child.tag.lower()] = (child.text or "").strip()
    missing = [name for name in ("Title", "Question") if name not in values]
    if missing:
        raise ImportFileError(
            path, line, f"unknown topic form: topic {number} has no <{missing[0]}>"
        )
    has_id, has_latex = "Formula_Id" in values, "Latex" in values
    if has_id != has_latex:
        raise ImportFileError(
            path, line, f"unknown topic form: topic {number} has only one of <Formula_Id>, <Latex>"
        )
    if has_id and not values["Formula_Id"].strip():
        raise ImportFileError(path, line, f"topic {number}: empty <Formula_Id>")
    record = TopicRecord(
        number=number,
        form="formula" if has_id else "answer",
        title=values["Title"].strip(),
        question=values["Question"].strip(),
        tags=split_tags(values.get("Tags", "")),
        formula_id=values.get("Formula_Id", "").strip(),
        latex=values.get("Latex", "").strip(),
        metadata=metadata,
        line=line,
    )
    _check_lengths(path, record)
    return record


def _too_long(what: str, length: int, limit: int) -> str:
    return f"{what} has {length:,} characters (at most {limit:,})"


def _check_lengths(path: str | Path, topic: TopicRecord) -> None:
    """A clear error for a field longer than the topic tables keep."""
    name = topic.number if len(topic.number) <= LIMITS["number"] else topic.number[:20] + "…"
    fields = {
        "number": topic.number,
        "title": topic.title,
        "question": topic.question,
        "formula_id": topic.formula_id,
        "latex": topic.latex,
    }
    for field_name, value in fields.items():
        if len(value) > LIMITS[field_name]:
            what = f"topic {name}: <{field_name.title()}>"
            raise ImportFileError(path, topic.line, _too_long(what, len(value), LIMITS[field_name]))
    if len(topic.tags) > MAX_TAGS:
        raise ImportFileError(
            path, topic.line, f"topic {name}: {len(topic.tags)} tags (at most {MAX_TAGS})"
        )
    for tag in topic.tags:
        if len(tag) > LIMITS["tag"]:
            raise ImportFileError(
                path, topic.line, _too_long(f"topic {name}: a tag", len(tag), LIMITS["tag"])
            )
    for key, value in topic.metadata.items():
        if len(key) > LIMITS["metadata"] or len(value) > LIMITS["metadata"]:
            what = f"topic {name}: <{key[:40]}>"
            raise ImportFileError(path, topic.line, _too_long(what, len(value), LIMITS["metadata"]))


def parse_topics(path: str | Path) -> Iterator[TopicRecord]:
    """Stream the topics of an ARQMath topic file (``<Topics><Topic number=…>…``)."""
    try:
        context = etree.iterparse(
            str(path), events=("start", "end"), resolve_entities=False, huge_tree=True
        )
        depth = 0
        for event, element in context:
            if event == "start":
                depth += 1
                if depth == 1 and element.tag != "Topics":
                    raise ImportFileError(
                        path, element.sourceline, f"unknown topic form: root <{element.tag}>"
                    )
                if depth == 2 and element.tag != "Topic":
                    raise ImportFileError(
                        path, element.sourceline, f"unknown topic form: <{element.tag}> in <Topics>"
                    )
                continue
            depth -= 1
            if depth == 1:
                yield _topic(path, element)
                element.clear(keep_tail=False)
    except etree.XMLSyntaxError as error:
        raise ImportFileError(path, error.lineno, f"malformed XML: {error.msg}") from error
    except OSError as error:
        raise ImportFileError(path, None, f"cannot read: {error}") from error


_TOPIC_FORMULA_HEADER = ["id", "topic_id", "thread_id", "type"]
_LOCATIONS = {"title": "title", "question": "body", "body": "body"}


def parse_topic_formulas(path: str | Path) -> Iterator[TopicFormulaRow]:
    """Rows of topic-formulas-latex.tsv / -slt.tsv: ``id topic_id thread_id type formula``."""
    with open_text(path) as handle:
        reader = TsvReader(path, handle)
        if reader.header[:4] != _TOPIC_FORMULA_HEADER or len(reader.header) != 5:
            raise ImportFileError(
                path,
                1,
                f"unknown topic formula header {reader.header}: expected "
                "id topic_id thread_id type formula",
            )
        for row in reader:
            formula_id, topic, thread, kind, text = row
            location = _LOCATIONS.get(kind.strip())
            if location is None:
                raise reader.error(f"unknown formula type {kind!r} (title, question or body)")
            if not formula_id.strip() or not topic.strip():
                raise reader.error("empty formula id or topic id")
            if (
                len(formula_id.strip()) > LIMITS["formula_id"]
                or len(topic.strip()) > LIMITS["number"]
            ):
                raise reader.error("formula id or topic id longer than the topic tables keep")
            if len(text) > MAX_FORMULA_CHARS:
                raise reader.error(_too_long("the formula", len(text), MAX_FORMULA_CHARS))
            thread_id = parse_int(reader, thread, "thread_id") if thread.strip() else None
            yield TopicFormulaRow(
                formula_id.strip(), topic.strip(), thread_id, location, text, reader.line
            )
