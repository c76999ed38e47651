"""Which of the accepted layouts a run file uses, from its first line and the task's kind."""

from __future__ import annotations

from pooling.core.formats.model import RunFormat

# Columns of each layout; Task 3's answer is the rest of the line, so it has at least six.
COLUMNS = {
    RunFormat.ARQMATH_ANSWER: 5,
    RunFormat.ARQMATH_FORMULA: 6,
    RunFormat.ARQMATH_OPENQA: 6,
    RunFormat.TREC: 6,
}
TREC_Q0 = frozenset({b"Q0", b"q0"})


def _is_number(field: bytes) -> bool:
    try:
        float(field)
    except ValueError:
        return False
    return True


def detect_format(fields: list[bytes], task_kind: str | None) -> RunFormat | None:
    """The layout of a line split on white space; ``None`` when nothing fits.

    TREC is recognised by its literal ``Q0`` column; otherwise the task's kind decides, and
    without a kind the column count and which columns are numbers do (Task 2 has three
    integer columns after the topic, Task 3 a rank, a score and a non-numeric run tag).
    Document tasks take TREC runs only, whatever their second column (trec_eval ignores it)."""
    if task_kind == "document" or (len(fields) == 6 and fields[1] in TREC_Q0):
        return RunFormat.TREC
    by_kind = {
        "answer": RunFormat.ARQMATH_ANSWER,
        "formula": RunFormat.ARQMATH_FORMULA,
        "openqa": RunFormat.ARQMATH_OPENQA,
    }
    if task_kind in by_kind:
        return by_kind[task_kind]
    if len(fields) == 5:
        return RunFormat.ARQMATH_ANSWER
    if len(fields) < 6:
        return None
    if len(fields) == 6 and all(f.isdigit() for f in fields[1:4]):
        return RunFormat.ARQMATH_FORMULA
    if fields[1].isdigit() and _is_number(fields[2]) and not _is_number(fields[3]):
        return RunFormat.ARQMATH_OPENQA
    return None
