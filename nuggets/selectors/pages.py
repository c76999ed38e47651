"""What the nugget editor and the labelling page show, in a bounded number of queries."""

from __future__ import annotations

from dataclasses import dataclass

from assessment.models import Judgment
from collection.core.document_html import document_display
from collection.core.post_html import plain_text
from collection.models import Document, Topic
from nuggets.models import CitationLabel

# The editor shows at most this many documents (the most cited or judged first): enough to
# draw nuggets from, small enough for a page.
MAX_EDITOR_DOCUMENTS = 30
MAX_DOCUMENT_CHARS = 20_000


@dataclass(frozen=True)
class SourceDocument:
    docno: str
    title: str  # plain text, for a template to escape
    body: str  # as stored (HTML or plain text, as body_format says), cut at MAX_DOCUMENT_CHARS
    body_format: str
    body_html: str  # sanitized for display (collection.core.document_html): safe to mark safe
    why: str  # "judged relevant" or "cited by N answers"

    @property
    def text(self) -> str:
        """The body as plain text, for a machine's prompt: an HTML body without its tags."""
        return plain_text(self.body) if self.body_format == "html" else self.body


def editor_documents(topic: Topic) -> list[SourceDocument]:
    """The relevant documents found so far for the topic (judged at or above the task's
    relevance level), else the segments the runs' answers cite, most cited first."""
    level = topic.task.relevance_level
    judged = list(
        Judgment.objects.filter(
            hit__item__topic=topic, grade__gte=level, hit__document__isnull=False
        )
        .values_list("hit__document_id", flat=True)
        .distinct()[:MAX_EDITOR_DOCUMENTS]
    )
    if judged:
        documents = Document.objects.filter(pk__in=judged).order_by("docno")
        return [_source(d, "judged relevant") for d in documents]
    cited: dict[str, int] = {}
    for sentences in topic.rag_answers.values_list("sentences", flat=True):
        for docno in {c for s in sentences for c in s.get("citations", [])}:
            cited[docno] = cited.get(docno, 0) + 1
    top = sorted(cited, key=lambda d: (-cited[d], d))[:MAX_EDITOR_DOCUMENTS]
    found = {
        d.docno: d
        for d in Document.objects.filter(collection_id=topic.task.collection_id, docno__in=top)
    }
    return [
        _source(found[d], f"cited by {cited[d]} answer{'s' if cited[d] != 1 else ''}")
        for d in top
        if d in found
    ]


def _source(document: Document, why: str) -> SourceDocument:
    """A document as the nugget pages show it: hostile HTML sanitized, plain text escaped
    with its paragraphs kept, exactly as the judging pane shows documents."""
    shown = document_display(
        title=document.title,
        body=document.body,
        body_format=document.body_format,
        max_chars=MAX_DOCUMENT_CHARS,
    )
    return SourceDocument(
        docno=document.docno,
        title=shown.title,
        body=document.body[:MAX_DOCUMENT_CHARS],
        body_format=document.body_format,
        body_html=shown.body_html,
        why=why,
    )


def cited_segments(
    sentences: list[dict[str, object]], collection_id: int | None
) -> list[SourceDocument]:
    """The segments an answer cites, in the order first cited, numbered as on the page."""
    order: list[str] = []
    for sentence in sentences:
        for docno in sentence.get("citations", []):  # type: ignore[attr-defined]
            if docno not in order:
                order.append(docno)
    found = {
        d.docno: d for d in Document.objects.filter(collection_id=collection_id, docno__in=order)
    }
    return [_source(found[d], "cited") for d in order if d in found]


def citation_labels_of(assignment_id: int, answer_id: int) -> dict[tuple[int, str], str]:
    """(sentence, segment) -> the citation support this assignment gave the answer."""
    rows = CitationLabel.objects.filter(assignment_id=assignment_id, answer_id=answer_id)
    return {
        (sentence, segment): support
        for sentence, segment, support in rows.values_list("sentence", "segment", "support")
    }


@dataclass(frozen=True)
class NumberedAnswer:
    """An answer's sentences with its citations as the numbers of the segments listed."""

    sentences: list[dict[str, object]]  # [{"text", "citations": [number, ...]}]
    segments: list[SourceDocument]


def numbered_answer(
    sentences: list[dict[str, object]], collection_id: int | None
) -> NumberedAnswer:
    """The answer as the pages show it: cited segments numbered in the order first cited."""
    segments = cited_segments(sentences, collection_id)
    number = {s.docno: index + 1 for index, s in enumerate(segments)}
    return NumberedAnswer(
        sentences=[
            {
                "text": s["text"],
                "citations": [number[c] for c in s.get("citations", []) if c in number],  # type: ignore[attr-defined]
            }
            for s in sentences
        ],
        segments=segments,
    )
