"""The fast path: a well-formed file read with one split per line, or None at the first line
it cannot read (the caller then hands the file to the validator)."""

from __future__ import annotations

from evaluation.core.measures import RankedRow, RunRow, Scores
from evaluation.core.runfiles.layout import COLUMNS, RANK_COLUMN, WIDTH
from pooling.core.formats import RunFormat
from pooling.core.formats.rows import trec_score


def _fast_scores(lines: list[str], run_format: RunFormat) -> tuple[str, Scores] | None:
    """Like ``_fast_rows`` but deduplicating as it reads (first row wins): the hot path.

    The loop keeps each first score's text; each topic's scores are then converted at once
    (``_topic_scores``), so a row costs one split and two dict lookups, no function call."""
    t, d, s, g = COLUMNS[run_format]
    width = WIDTH[run_format]
    loose = run_format is RunFormat.TREC  # trec_eval ignores columns after the tag
    texts: dict[str, dict[str, str]] = {}
    current: str | None = None
    docs: dict[str, str] = {}
    tag: str | None = None
    for line in lines:
        fields = line.split()
        if len(fields) != width and not (loose and len(fields) > width):
            if not fields or fields[0][0] == "#":
                continue
            return None
        if fields[t] != current:  # rows come grouped by topic: one lookup per topic
            if fields[0][0] == "#":
                continue  # a comment line, as trec_eval skips it
            current = fields[t]
            docs = texts.setdefault(current, {})
        if fields[g] != tag:
            if tag is not None:
                return None
            tag = fields[g]
        if fields[d] not in docs:
            docs[fields[d]] = fields[s]
    scores: Scores = {}
    for topic, found in texts.items():
        converted = _topic_scores(found)
        if converted is None:
            return None
        scores[topic] = converted
    return (tag or ""), scores


def _topic_scores(texts: dict[str, str]) -> dict[str, float] | None:
    """``trec_score`` over a topic's score texts at once: None if any is not a plain finite
    number (the caller then reports the line)."""
    try:
        values = list(map(float, texts.values()))
    except ValueError:
        return None
    total = sum(values)  # finite unless some value is inf or NaN (or the sum overflows)
    if total - total != 0.0 or "_" in "".join(texts.values()):
        return None
    return dict(zip(texts, values, strict=True))


def _fast_rows(lines: list[str], run_format: RunFormat) -> tuple[str, list[RunRow]] | None:
    """All rows of a well-formed file, or None at the first line that is not."""
    t, d, s, g = COLUMNS[run_format]
    width = WIDTH[run_format]
    loose = run_format is RunFormat.TREC
    rows: list[RunRow] = []
    append = rows.append
    tag: str | None = None
    for line in lines:
        fields = line.split()
        if len(fields) != width and not (loose and len(fields) > width):
            if not fields or fields[0][0] == "#":
                continue
            return None
        if fields[0][0] == "#":
            continue
        if fields[g] != tag:
            if tag is not None:
                return None
            tag = fields[g]
        score = trec_score(fields[s])
        if score != score:
            return None
        append((fields[t], fields[d], score))
    return (tag or ""), rows


def _fast_ranked(lines: list[str], run_format: RunFormat) -> tuple[str, list[RankedRow]] | None:
    """(topic, doc, rank, score) of a well-formed Task 1 or TREC file, or None."""
    t, d, s, g = COLUMNS[run_format]
    r = RANK_COLUMN[run_format]
    width = WIDTH[run_format]
    loose = run_format is RunFormat.TREC
    rows: list[RankedRow] = []
    tag: str | None = None
    for line in lines:
        fields = line.split()
        if len(fields) != width and not (loose and len(fields) > width):
            if not fields or fields[0][0] == "#":
                continue
            return None
        if fields[0][0] == "#":
            continue
        if tag is None:
            tag = fields[g]
        elif fields[g] != tag:
            return None
        score = trec_score(fields[s])
        if score != score or not fields[r].isdigit():
            return None
        rows.append((fields[t], fields[d], int(fields[r]), score))
    return (tag or ""), rows
