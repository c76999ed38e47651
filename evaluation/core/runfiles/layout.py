"""A run file's text and its layout (which columns hold topic, doc, score and run tag), told
from its first line that is neither blank nor a comment."""

from __future__ import annotations

import gzip
from pathlib import Path

from evaluation.core.trec_runs import first_fields, is_trec_line
from pooling.core.formats import RunFormat, detect_format

# (topic, doc, score, tag) columns of each layout; Task 3's doc is the topic (one answer each).
COLUMNS: dict[RunFormat, tuple[int, int, int, int]] = {
    RunFormat.ARQMATH_ANSWER: (0, 1, 3, 4),
    RunFormat.ARQMATH_FORMULA: (0, 1, 4, 5),
    RunFormat.TREC: (0, 2, 4, 5),
}
WIDTH = {RunFormat.ARQMATH_ANSWER: 5, RunFormat.ARQMATH_FORMULA: 6, RunFormat.TREC: 6}
RANK_COLUMN = {RunFormat.ARQMATH_ANSWER: 2, RunFormat.TREC: 3}  # ranked reads (Task 3 measures)


def _text_and_format(path: Path, task_kind: str | None) -> tuple[str, RunFormat | None]:
    """The file's text (gunzipped) and its layout; ``("", None)`` when it cannot be told here.

    Read as trec_eval reads a run: ``#`` lines are skipped, and a TREC line (``Q0`` second, or
    any line of a document task) may have columns after the run tag, ignored."""
    data = path.read_bytes()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    try:
        text = data.decode("utf-8-sig")  # a byte order mark is not part of the first topic
    except UnicodeDecodeError:
        return "", None
    if not text.isascii():
        return "", None  # float() reads non-ASCII digits; the validator (_validated) does not
    # The first line that is neither blank nor a comment tells the layout. It is usually near
    # the top: the whole file is split into lines here only when the head's whole lines (a
    # line cut at the head's end would show too few fields) hold none.
    head = text if len(text) <= _HEAD else text[: text.rfind("\n", 0, _HEAD) + 1]
    first = first_fields(head.splitlines()) or first_fields(text.splitlines())
    if first is None:
        return text, None
    if is_trec_line(first, task_kind):
        return text, RunFormat.TREC
    return text, detect_format([f.encode() for f in first], task_kind)


_HEAD = 65_536


def _lines_and_format(path: Path, task_kind: str | None) -> tuple[list[str], RunFormat | None]:
    """``_text_and_format``, the text as lines."""
    text, run_format = _text_and_format(path, task_kind)
    return text.splitlines(), run_format
