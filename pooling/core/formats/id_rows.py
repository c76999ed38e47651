"""The fast path of reader.py for one-id layouts with integer ids (Task 1 post ids, TREC runs of
post or formula ids): a well-formed line costs a split, a few C-level checks and five appends;
anything unusual goes to the reader's ``slow_line``, whose per-field parsers say exactly what is
wrong. documents.py is the same path for string docnos.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pooling.core.formats.model import MAX_RANK, MAX_ROWS_PER_TOPIC, RunFormat
from pooling.core.formats.rows import trec_score

if TYPE_CHECKING:
    from pooling.core.formats.reader import _Reader

# Fast-path layouts: (id column, its kind, rank column, score column); Task 2 and Task 3
# rows always take the detailed path.
FAST_LAYOUTS = {
    (RunFormat.ARQMATH_ANSWER, False): (1, "post_id", 2, 3),
    (RunFormat.TREC, False): (2, "post_id", 3, 4),
    (RunFormat.TREC, True): (2, "formula_id", 3, 4),
}


def id_rows(
    reader: _Reader, layout: tuple[int, str, int, int], first: int, lines: list[bytes]
) -> None:
    """One-id layouts (Task 1, TREC): a well-formed line costs a split, a few C-level checks
    and five appends; anything else goes to ``slow_line`` for a precise report."""
    id_col, id_kind, rank_col, score_col = layout
    c = reader.run.columns
    ids, others = (
        (c.formula_id, c.post_id) if id_kind == "formula_id" else (c.post_id, c.formula_id)
    )
    add_topic, add_id, add_rank = c.topic.append, ids.append, c.rank.append
    add_score, add_line = c.score.append, c.line.append
    width, tag_col, names = reader.width, reader.tag_column, reader.topic_names
    # Every row of these layouts has None in the other id column (slow-path rows append
    # it themselves): fill the fast rows' share at the end, in one go.
    before = len(ids) - len(others)
    current, docs, tag = b"", reader.docs.get(b""), reader.tag
    for lineno, raw in enumerate(lines, first):
        fields = raw.split()
        if len(fields) != width or fields[tag_col] != tag:
            reader.slow_line(lineno, fields)
            tag = reader.tag
            continue
        doc_field, rank_field, score_field = fields[id_col], fields[rank_col], fields[score_col]
        score = trec_score(score_field)  # NaN when not a number trec_eval's files hold
        if fields[0] != current:  # rows come grouped by topic: one lookup per change
            current, docs = fields[0], reader.topic_docs(fields[0])
        if not (doc_field.isdigit() and rank_field.isdigit() and len(doc_field) < 19):
            reader.slow_line(lineno, fields)
            continue
        rank, doc = int(rank_field), int(doc_field)
        if (
            docs is None
            or doc in docs
            or len(docs) >= MAX_ROWS_PER_TOPIC
            or not 0 < rank <= MAX_RANK
            or score - score != 0.0  # nan, inf
        ):
            reader.slow_line(lineno, fields)
            continue
        docs.add(doc)
        add_topic(names[current])
        add_id(doc)
        add_rank(rank)
        add_score(score)
        add_line(lineno)
    others.extend([None] * (len(ids) - len(others) - before))
