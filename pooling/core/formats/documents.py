"""TREC runs of document tasks: ``topic Q0 docno rank score tag``, docno a string.

The fast path of reader.py for one-id layouts, for string ids: a well-formed line costs a split,
a decode and a few C-level checks; anything unusual goes to the reader's ``slow_line``, whose
per-field parsers (rows.trec_document_row) say exactly what is wrong. Whether each docno is in
the task's collection is checked afterwards, for all of them at once (collection_checks.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pooling.core.formats.model import MAX_DOCNO_CHARS, MAX_RANK, MAX_ROWS_PER_TOPIC
from pooling.core.formats.rows import LOWEST_DOCUMENT_RANK, trec_score

if TYPE_CHECKING:
    from pooling.core.formats.reader import _Reader

DOCNO, RANK, SCORE, TAG = 2, 3, 4, 5
WIDTH = 6


def document_rows(reader: _Reader, first: int, lines: list[bytes]) -> None:
    """Read one block of lines of a document run into the run's columns (file order)."""
    c = reader.run.columns
    add_topic, add_docno, add_rank = c.topic.append, c.docno.append, c.rank.append
    add_score, add_line = c.score.append, c.line.append
    names = reader.topic_names
    current, docs, tag = b"", reader.docs.get(b""), reader.tag
    for lineno, raw in enumerate(lines, first):
        fields = raw.split()
        if len(fields) != WIDTH or fields[TAG] != tag:
            reader.slow_line(lineno, fields)
            tag = reader.tag
            continue
        rank_field, score_field = fields[RANK], fields[SCORE]
        score = trec_score(score_field)  # NaN when not a number trec_eval's files hold
        if fields[0] != current:  # rows come grouped by topic: one lookup per change
            current, docs = fields[0], reader.topic_docs(fields[0])
        docno = fields[DOCNO].decode()
        if not (rank_field.isdigit() and len(docno) <= MAX_DOCNO_CHARS and docno.isprintable()):
            reader.slow_line(lineno, fields)
            continue
        rank = int(rank_field)
        if (
            docs is None
            or docno in docs
            or len(docs) >= MAX_ROWS_PER_TOPIC
            or not LOWEST_DOCUMENT_RANK <= rank <= MAX_RANK
            or score - score != 0.0  # nan, inf
        ):
            reader.slow_line(lineno, fields)
            continue
        docs.add(docno)
        add_topic(names[current])
        add_docno(docno)
        add_rank(rank)
        add_score(score)
        add_line(lineno)
