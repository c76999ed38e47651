"""Synthetic topics in ARQMath's XML forms (Task 1 answer topics, Task 2 formula topics).

As in ARQMath, topics are questions asked after the collection was frozen: they are built like
collection threads but from indices far past any collection, so they are not in it. Formula
topic ``B.k`` takes its query formula from the question of answer topic ``A.k``, as the ARQMath
organizers drew formula topics from answer topics. Topic formula ids are ``q_1``, ``q_2``, ...
in the order they appear, with ``topic-formulas-latex.tsv`` listing them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from xml.sax.saxutils import escape

from demo.synthetic.threads import FormulaRecord, make_thread
from demo.synthetic.vocabulary import SHAPES

TOPIC_INDEX_BASE = 50_000_000  # far past any collection size the generator is asked for
_SPAN_ID = re.compile(r'(<span class="math-container" id=")(\d+)(")')
_FAMILY_OF = {shape.visual_id: shape.family for shape in SHAPES}


@dataclass(frozen=True)
class TopicRecord:
    number: int  # k of A.k and B.k
    thread_id: int
    subject: int
    title: str
    question: str
    tags: tuple[str, ...]
    key_visual_ids: frozenset[int]  # visual ids of the question's main formulas
    formulas: tuple[tuple[str, str, str], ...]  # (q id, title|body, latex)
    query_formula_id: str
    query_latex: str
    query_visual_id: int

    @property
    def query_family(self) -> int:
        return _FAMILY_OF[self.query_visual_id]


def make_topic(seed: int, number: int) -> TopicRecord:
    """Answer topic A.number (and its formula topic B.number) of the collection ``seed``."""
    thread = make_thread(seed, TOPIC_INDEX_BASE + number)
    own = [f for f in thread.formulas if f.post_id == thread.question.id and f.comment_id is None]
    q_ids = {f.formula_id: f"q_{position}" for position, f in enumerate(own, start=1)}

    def rename(text: str) -> str:
        return _SPAN_ID.sub(lambda m: f"{m[1]}{q_ids[int(m[2])]}{m[3]}", text)

    query = _query_formula(own, thread.key_shapes[0].visual_id)
    return TopicRecord(
        number=number,
        thread_id=thread.id,
        subject=thread.subject,
        title=rename(thread.question.title),
        question=rename(thread.question.body),
        tags=thread.question.tags,
        key_visual_ids=frozenset(shape.visual_id for shape in thread.key_shapes),
        formulas=tuple(
            (q_ids[f.formula_id], "title" if f.location == "title" else "body", f.latex)
            for f in own
        ),
        query_formula_id=q_ids[query.formula_id],
        query_latex=query.latex,
        query_visual_id=query.visual_id,
    )


def _query_formula(own: list[FormulaRecord], main_visual_id: int) -> FormulaRecord:
    """The question body's instance of the main formula (its title instance as a fallback)."""
    body = [f for f in own if f.location != "title" and f.visual_id == main_visual_id]
    return body[0] if body else own[0]


def write_topics(folder: Path, topics: list[TopicRecord]) -> dict[str, Path]:
    """task1-topics.xml, task2-topics.xml and topic-formulas-latex.tsv, ARQMath-3 forms."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = {
        "answer": folder / "task1-topics.xml",
        "formula": folder / "task2-topics.xml",
        "formulas_latex": folder / "topic-formulas-latex.tsv",
    }
    paths["answer"].write_text(_topics_xml(topics, "A", formula=False), encoding="utf-8")
    paths["formula"].write_text(_topics_xml(topics, "B", formula=True), encoding="utf-8")
    lines = ["id\ttopic_id\tthread_id\ttype\tformula\n"]
    for topic in topics:
        lines += [
            f"{q_id}\tA.{topic.number}\t{topic.thread_id}\t{kind}\t{latex}\n"
            for q_id, kind, latex in topic.formulas
        ]
    paths["formulas_latex"].write_text("".join(lines), encoding="utf-8")
    return paths


def _topics_xml(topics: list[TopicRecord], prefix: str, *, formula: bool) -> str:
    parts = ['<?xml version="1.0" ?>\n<Topics>\n']
    for topic in topics:
        parts.append(f'   <Topic number="{prefix}.{topic.number}">\n')
        if formula:
            parts.append(f"      <Formula_Id>{topic.query_formula_id}</Formula_Id>\n")
            parts.append(f"      <Latex>{escape(topic.query_latex)}</Latex>\n")
        parts.append(f"      <Title>{escape(topic.title)}</Title>\n")
        parts.append(f"      <Question>{escape(topic.question)}</Question>\n")
        parts.append(f"      <Tags>{','.join(topic.tags)}</Tags>\n")
        parts.append("   </Topic>\n")
    parts.append("</Topics>\n")
    return "".join(parts)
