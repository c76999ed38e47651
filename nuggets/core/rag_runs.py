"""RAG run files: generated answers with citations, in TREC RAG's JSONL layouts. Pure Python.

Two layouts, one JSON object a line, one line per topic:

- TREC RAG 2024: ``run_id``, ``topic_id``, ``topic``, ``references`` (segment ids),
  ``response_length`` and ``answer``, a list of sentences ``{"text", "citations"}`` whose
  citations are indexes into ``references``;
- TREC RAG 2025: a ``metadata`` object (``team_id``, ``run_id``, ``narrative_id``, ...) in place
  of the top-level ids, the same ``references`` and ``answer``; a citation is an index into
  ``references`` or a segment id itself.

Bytes are read with the run reader's streaming lines (gzip, size limit, binary and UTF-8 checks:
``pooling.core.formats.lines``); each problem names its line and field, and a file with any
problem is not stored. Cited segments are checked against the task's collection after the whole
file is read (one lookup for every id at once).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass, field
from typing import Any, BinaryIO

from pooling.core.formats.lines import line_blocks
from pooling.core.formats.model import MAX_LISTED, ParsedRun

LAYOUT_2024 = "trec-rag-2024"
LAYOUT_2025 = "trec-rag-2025"
# TREC RAG 2024 and 2025 capped answers at 400 words; a task may state its own limit.
DEFAULT_MAX_ANSWER_WORDS = 400
# An answer line: 400 words, up to a few hundred references of at most 200 characters each,
# plus the topic's text. 1 MB is far past any real line and still bounds one line's memory.
MAX_RAG_LINE_BYTES = 1024 * 1024
MAX_SENTENCES = 1000
MAX_REFERENCES = 1000
MAX_ID_CHARS = 200  # collection.models.DOCNO_MAX_CHARS: a longer segment id is in no collection
MAX_TOPIC_TEXT_CHARS = 10_000
# A file without a task to bound it (the command line): more answers than this is no run.
DEFAULT_MAX_ANSWERS = 100_000

# Given a set of segment ids, those that are documents of the task's collection.
SegmentLookup = Callable[[set[str]], Collection[str]]


@dataclass(frozen=True, slots=True)
class AnswerSentence:
    """One sentence of an answer and the segment ids it cites (in the file's order)."""

    text: str
    citations: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class RagAnswer:
    """One run's answer to one topic."""

    topic: str
    run_id: str
    team_id: str
    references: tuple[str, ...]
    sentences: tuple[AnswerSentence, ...]
    response_length: int  # words, as the file declares it (2025: counted when absent)
    line: int

    @property
    def text(self) -> str:
        return " ".join(sentence.text for sentence in self.sentences)


@dataclass(frozen=True)
class RagContext:
    """What the task knows; ``None`` means "do not check" (the command line)."""

    topics: frozenset[str] | None = None
    segments: SegmentLookup | None = None
    collection: str = ""
    max_answer_words: int = DEFAULT_MAX_ANSWER_WORDS
    tag: str | None = None  # the run tag the upload names: every line's run_id must be it


@dataclass
class RagRunFile:
    """A parsed RAG run file: its answers and every problem found (``ok`` when storable)."""

    name: str = ""
    layout: str | None = None
    run_id: str = ""
    team_id: str = ""
    answers: list[RagAnswer] = field(default_factory=list)
    problems: ParsedRun = field(default_factory=ParsedRun)

    @property
    def ok(self) -> bool:
        return self.problems.ok

    def error(self, line: int | None, field_name: str | None, message: str) -> None:
        self.problems.error(line, field_name, message)

    def report(self) -> dict[str, Any]:
        report = self.problems.report()
        report.update(
            file=self.name,
            format=self.layout,
            tag=self.run_id,
            rows=len(self.answers) if self.ok else None,
            topics=len(self.answers) if self.ok else None,
        )
        if self.ok:
            report["rag"] = self.contents()
        return report

    def contents(self) -> dict[str, int]:
        """What the run holds, as the run pages show it (a RAG run has no ranked rows):
        topics answered, sentences, citations, and the distinct segments cited."""
        cited = [c for a in self.answers for s in a.sentences for c in s.citations]
        return {
            "topics": len(self.answers),
            "sentences": sum(len(a.sentences) for a in self.answers),
            "citations": len(cited),
            "segments": len(set(cited)),
            "words": sum(a.response_length for a in self.answers),
        }


def _words(text: str) -> int:
    return len(text.split())


class _LineReader:
    """Checks one line's fields; every problem goes to the file's report with its field."""

    def __init__(self, run: RagRunFile, line: int, context: RagContext) -> None:
        self.run = run
        self.line = line
        self.context = context
        self.failed = False

    def error(self, field_name: str | None, message: str) -> None:
        self.failed = True
        self.run.error(self.line, field_name, message)

    def text(self, data: dict[str, Any], key: str, where: str, max_chars: int) -> str | None:
        value = data.get(key)
        if isinstance(value, int) and not isinstance(value, bool):
            value = str(value)  # topic ids are often numbers in JSON
        if not isinstance(value, str) or not value.strip():
            self.error(where, "missing or not a non-empty string")
            return None
        if len(value) > max_chars:
            self.error(where, f"longer than {max_chars:,} characters")
            return None
        return value.strip()

    def references(self, data: dict[str, Any]) -> tuple[str, ...] | None:
        value = data.get("references", [])
        if not isinstance(value, list):
            self.error("references", "not a list of segment ids")
            return None
        if len(value) > MAX_REFERENCES:
            self.error("references", f"more than {MAX_REFERENCES:,} references")
            return None
        found: list[str] = []
        for index, ref in enumerate(value):
            if not isinstance(ref, str) or not ref.strip() or len(ref) > MAX_ID_CHARS:
                self.error(f"references[{index}]", "not a segment id (a string of 1 to 200)")
                return None
            found.append(ref.strip())
        return tuple(found)

    def sentences(
        self, data: dict[str, Any], references: tuple[str, ...], by_id: bool
    ) -> tuple[AnswerSentence, ...] | None:
        value = data.get("answer")
        if not isinstance(value, list) or not value:
            self.error("answer", "missing or not a non-empty list of {text, citations}")
            return None
        if len(value) > MAX_SENTENCES:
            self.error("answer", f"more than {MAX_SENTENCES:,} sentences")
            return None
        found: list[AnswerSentence] = []
        for index, sentence in enumerate(value):
            where = f"answer[{index}]"
            if not isinstance(sentence, dict):
                self.error(where, "not an object {text, citations}")
                return None
            text = sentence.get("text")
            if not isinstance(text, str):
                self.error(f"{where}.text", "missing or not a string")
                return None
            citations = self.citations(sentence.get("citations", []), where, references, by_id)
            if citations is None:
                return None
            found.append(AnswerSentence(text.strip(), citations))
        return tuple(found)

    def citations(
        self, value: Any, where: str, references: tuple[str, ...], by_id: bool
    ) -> tuple[str, ...] | None:
        if not isinstance(value, list):
            self.error(f"{where}.citations", "not a list")
            return None
        cited: list[str] = []
        for index, citation in enumerate(value):
            here = f"{where}.citations[{index}]"
            if isinstance(citation, int) and not isinstance(citation, bool):
                if not 0 <= citation < len(references):
                    self.error(
                        here, f"index {citation} is not in references (it has {len(references)})"
                    )
                    return None
                cited.append(references[citation])
            elif by_id and isinstance(citation, str) and 0 < len(citation) <= MAX_ID_CHARS:
                cited.append(citation.strip())
            else:
                kind = "an index into references or a segment id" if by_id else "an index"
                self.error(here, f"not {kind}")
                return None
        return tuple(cited)


def _answer_of(run: RagRunFile, line: int, data: Any, context: RagContext) -> RagAnswer | None:
    """The answer a line holds, or None after reporting its problems."""
    reader = _LineReader(run, line, context)
    if not isinstance(data, dict):
        reader.error(None, "not a JSON object")
        return None
    layout = LAYOUT_2025 if "metadata" in data else LAYOUT_2024
    if run.layout is None:
        run.layout = layout
    elif run.layout != layout:
        reader.error("metadata", f"the file is in the {run.layout} layout; this line is not")
        return None
    if layout == LAYOUT_2025:
        meta = data["metadata"]
        if not isinstance(meta, dict):
            reader.error("metadata", "not an object")
            return None
        run_id = reader.text(meta, "run_id", "metadata.run_id", MAX_ID_CHARS)
        team_id = reader.text(meta, "team_id", "metadata.team_id", MAX_ID_CHARS)
        topic = reader.text(meta, "narrative_id", "metadata.narrative_id", MAX_ID_CHARS)
    else:
        run_id = reader.text(data, "run_id", "run_id", MAX_ID_CHARS)
        team_id = ""
        topic = reader.text(data, "topic_id", "topic_id", MAX_ID_CHARS)
        reader.text(data, "topic", "topic", MAX_TOPIC_TEXT_CHARS)
    references = reader.references(data)
    sentences = (
        reader.sentences(data, references, by_id=layout == LAYOUT_2025)
        if references is not None
        else None
    )
    if (
        reader.failed
        or run_id is None
        or team_id is None
        or topic is None
        or references is None
        or sentences is None
    ):
        return None
    words = sum(_words(sentence.text) for sentence in sentences)
    declared = data.get("response_length", words if layout == LAYOUT_2025 else None)
    if not isinstance(declared, int) or isinstance(declared, bool) or declared < 0:
        reader.error("response_length", "missing or not a count of words (an integer ≥ 0)")
        return None
    limit = context.max_answer_words
    if max(words, declared) > limit:
        reader.error("answer", f"{max(words, declared):,} words: this task allows {limit:,}")
        return None
    return RagAnswer(topic, run_id, team_id, references, sentences, declared, line)


def _check_run(run: RagRunFile, answer: RagAnswer, context: RagContext, seen: set[str]) -> bool:
    """The file-wide rules: one run, one team, each topic once and known to the task."""
    where_run = "metadata.run_id" if run.layout == LAYOUT_2025 else "run_id"
    if not run.run_id:
        run.run_id, run.team_id = answer.run_id, answer.team_id
        if context.tag is not None and answer.run_id != context.tag:
            run.error(
                answer.line,
                where_run,
                f"run_id {answer.run_id!r} is not the run's tag {context.tag!r}",
            )
            return False
    elif answer.run_id != run.run_id:
        run.error(
            answer.line, where_run, f"a second run {answer.run_id!r}: this file is {run.run_id!r}"
        )
        return False
    if answer.team_id != run.team_id:
        run.error(answer.line, "metadata.team_id", f"a second team {answer.team_id!r}")
        return False
    where = "metadata.narrative_id" if run.layout == LAYOUT_2025 else "topic_id"
    if answer.topic in seen:
        run.error(answer.line, where, f"topic {answer.topic} answered twice (one answer a topic)")
        return False
    seen.add(answer.topic)
    if context.topics is not None and answer.topic not in context.topics:
        run.error(answer.line, where, f"topic {answer.topic!r} is not a topic of this task")
        return False
    return True


def _check_segments(run: RagRunFile, lookup: SegmentLookup, collection: str) -> None:
    """Each cited or referenced segment is a document of the task's collection."""
    wanted = {ref for answer in run.answers for ref in (*answer.references, *_cited(answer))}
    known = set(lookup(wanted)) if wanted else set()
    for answer in run.answers:
        for field_name, segment in _segments_with_fields(answer):
            if segment not in known:
                run.error(
                    answer.line,
                    field_name,
                    f"segment {segment!r} is not in the collection {collection or '(the task)'}",
                )
                known.add(segment)  # reported once, at its first line


def _cited(answer: RagAnswer) -> Iterator[str]:
    for sentence in answer.sentences:
        yield from sentence.citations


def _segments_with_fields(answer: RagAnswer) -> Iterator[tuple[str, str]]:
    for index, ref in enumerate(answer.references):
        yield f"references[{index}]", ref
    for s_index, sentence in enumerate(answer.sentences):
        for c_index, segment in enumerate(sentence.citations):
            yield f"answer[{s_index}].citations[{c_index}]", segment


def read_rag_run(
    stream: BinaryIO,
    *,
    name: str = "",
    context: RagContext | None = None,
    max_bytes: int = 50 * 1024 * 1024,
) -> RagRunFile:
    """Read and check a whole RAG run file; the answers are kept only if it has no error."""
    context = context or RagContext()
    run = RagRunFile(name=name)
    max_answers = len(context.topics) if context.topics is not None else DEFAULT_MAX_ANSWERS
    seen: set[str] = set()
    lines = 0
    for first, block in line_blocks(stream, run.problems, max_bytes, MAX_RAG_LINE_BYTES):
        for offset, raw in enumerate(block):
            if not raw.strip():
                continue
            number = first + offset
            if run.problems.error_count >= MAX_LISTED:
                run.problems.stopped_at_line = number
                break
            lines += 1
            if lines > max_answers:
                run.error(number, None, f"more than {max_answers:,} answers: one a topic")
                break
            try:
                data = json.loads(raw)
            except (ValueError, RecursionError) as exc:
                run.error(number, None, f"not JSON: {str(exc)[:200]}")
                continue
            answer = _answer_of(run, number, data, context)
            if answer is not None and _check_run(run, answer, context, seen):
                run.answers.append(answer)
        else:
            continue
        break
    if lines == 0 and run.ok:
        run.error(None, None, "the file holds no answer")
    if run.ok and context.segments is not None:
        _check_segments(run, context.segments, context.collection)
    if not run.ok:
        run.answers.clear()  # nothing of a file with an error is stored
    return run
