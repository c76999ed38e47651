"""Parsing one split line of each layout into a RunRecord, reporting what is wrong with it.

These are the hot path of a run upload (100,000 rows per file): bytes in, no decoding of the
numeric columns (int() and float() take bytes), one record out.
"""

from __future__ import annotations

from collections.abc import Callable

from pooling.core.formats.model import (
    MAX_ANSWER_CHARS,
    MAX_DOCNO_CHARS,
    MAX_RANK,
    MAX_SOURCES_CHARS,
    ParsedRun,
    RunFormat,
    RunRecord,
)

RowParser = Callable[[list[bytes], int, ParsedRun], "RunRecord | None"]


def parse_rank(field: bytes, lineno: int, run: ParsedRun, *, lowest: int = 1) -> int | None:
    if not field.isdigit():
        run.error(lineno, "rank", f"rank {_show(field)} is not an integer")
        return None
    rank = int(field)
    if not lowest <= rank <= MAX_RANK:
        run.error(lineno, "rank", f"rank {rank} is outside {lowest}..{MAX_RANK}")
        return None
    return rank


# trec_eval ignores the rank column, and many TREC runs count it from 0 (30 of the 143 runs of
# TREC-COVID round 1 do). Document pools take each run's first k distinct documents in rank
# order, not the ranks up to k, so a run counted from 0 pools as many documents as any other.
LOWEST_DOCUMENT_RANK = 0


def trec_score(field: bytes | str) -> float:
    """A score as trec_eval reads one (``atof``: a double) from a plain decimal number, maybe
    with an exponent (``1``, ``-0.5``, ``.5``, ``1e-3``); NaN for anything else. Python's
    float() also reads ``1_000``, ``nan`` and ``inf``, which trec_eval's own files never hold.
    The one home of that rule: every run reader calls it (a NaN score is the caller's error)."""
    try:
        score = float(field)
    except ValueError:
        return _NAN
    if score - score != 0.0 or ("_" in field if isinstance(field, str) else b"_" in field):
        return _NAN
    return score


def parse_score(field: bytes, lineno: int, run: ParsedRun) -> float | None:
    """``trec_score``, each refusal reported with its line."""
    score = trec_score(field)
    if score == score:
        return score
    reason = "is not finite" if _is_float(field) else "is not a number"
    run.error(lineno, "score", f"score {_show(field)} {reason}")
    return None


def _is_float(field: bytes) -> bool:
    try:
        float(field)
    except ValueError:
        return False
    return b"_" not in field


_NAN = float("nan")


def parse_id(field: bytes, name: str, lineno: int, run: ParsedRun) -> int | None:
    if not field.isdigit() or len(field) > 18:
        run.error(lineno, name, f"{name.replace('_', ' ')} {_show(field)} is not an integer id")
        return None
    return int(field)


def _show(field: bytes) -> str:
    text = field.decode("utf-8", "replace")
    return repr(text if len(text) <= 40 else text[:40] + "…")


def _post_row(
    fields: list[bytes], lineno: int, run: ParsedRun, *, post_col: int
) -> RunRecord | None:
    """A row naming an answer post, its rank and score in the two columns after the post."""
    post = parse_id(fields[post_col], "post_id", lineno, run)
    rank = parse_rank(fields[post_col + 1], lineno, run)
    score = parse_score(fields[post_col + 2], lineno, run)
    if post is None or rank is None or score is None:
        return None
    return RunRecord(fields[0].decode(), str(post), post, None, rank, score, "", "", lineno)


def answer_row(fields: list[bytes], lineno: int, run: ParsedRun) -> RunRecord | None:
    """Task 1 ``topic post rank score run``."""
    return _post_row(fields, lineno, run, post_col=1)


def trec_row(fields: list[bytes], lineno: int, run: ParsedRun) -> RunRecord | None:
    """TREC ``topic Q0 doc rank score tag`` where doc is an answer post id."""
    return _post_row(fields, lineno, run, post_col=2)


def trec_formula_row(fields: list[bytes], lineno: int, run: ParsedRun) -> RunRecord | None:
    """TREC for Task 2: doc is a formula id; its post comes from the collection's index."""
    formula = parse_id(fields[2], "formula_id", lineno, run)
    rank = parse_rank(fields[3], lineno, run)
    score = parse_score(fields[4], lineno, run)
    if formula is None or rank is None or score is None:
        return None
    return RunRecord(fields[0].decode(), str(formula), None, formula, rank, score, "", "", lineno)


def parse_docno(field: bytes, lineno: int, run: ParsedRun) -> str | None:
    """A docno: any printable text without white space, at most MAX_DOCNO_CHARS characters
    (the file's lines are UTF-8 already)."""
    docno = field.decode("utf-8", "replace")
    if len(docno) > MAX_DOCNO_CHARS:
        run.error(
            lineno,
            "docno",
            f"docno {_show(field)} has {len(docno):,} characters (at most {MAX_DOCNO_CHARS})",
        )
        return None
    if not docno.isprintable():
        run.error(lineno, "docno", f"docno {_show(field)} has control characters")
        return None
    return docno


def trec_document_row(fields: list[bytes], lineno: int, run: ParsedRun) -> RunRecord | None:
    """TREC for document tasks: doc is a docno of the task's collection, a string."""
    docno = parse_docno(fields[2], lineno, run)
    rank = parse_rank(fields[3], lineno, run, lowest=LOWEST_DOCUMENT_RANK)
    score = parse_score(fields[4], lineno, run)
    if docno is None or rank is None or score is None:
        return None
    return RunRecord(fields[0].decode(), docno, None, None, rank, score, "", "", lineno)


def formula_row(fields: list[bytes], lineno: int, run: ParsedRun) -> RunRecord | None:
    """Task 2 ``topic formula_id post rank score run``."""
    formula = parse_id(fields[1], "formula_id", lineno, run)
    post = parse_id(fields[2], "post_id", lineno, run)
    rank = parse_rank(fields[3], lineno, run)
    score = parse_score(fields[4], lineno, run)
    if formula is None or post is None or rank is None or score is None:
        return None
    return RunRecord(fields[0].decode(), str(formula), post, formula, rank, score, "", "", lineno)


def openqa_row(fields: list[bytes], lineno: int, run: ParsedRun) -> RunRecord | None:
    """Task 3 ``topic rank score run sources answer``: one answer of at most 1,200 characters,
    at rank 1 (ARQMath-3 Task 3 rules); an odd number of ``$`` is only a warning."""
    rank = parse_rank(fields[1], lineno, run)
    score = parse_score(fields[2], lineno, run)
    answer = fields[5].decode().strip()
    ok = rank is not None and score is not None
    if rank is not None and rank != 1:
        run.error(lineno, "rank", f"rank {rank}: a Task 3 answer must be at rank 1")
        ok = False
    if not answer:
        run.error(lineno, "answer", "the answer is empty")
        ok = False
    elif len(answer) > MAX_ANSWER_CHARS:
        run.error(
            lineno, "answer", f"answer has {len(answer):,} characters (at most {MAX_ANSWER_CHARS})"
        )
        ok = False
    sources = fields[4].decode()
    if len(sources) > MAX_SOURCES_CHARS:
        run.error(
            lineno,
            "sources",
            f"sources have {len(sources):,} characters (at most {MAX_SOURCES_CHARS:,})",
        )
        ok = False
    if answer.count("$") % 2:
        run.warn(lineno, "answer", "odd number of $: a formula may be left open")
    if not ok or rank is None or score is None:
        return None
    topic = fields[0].decode()
    return RunRecord(topic, topic, None, None, rank, score, answer, sources, lineno)


ROW_PARSERS: dict[RunFormat, RowParser] = {
    RunFormat.ARQMATH_ANSWER: answer_row,
    RunFormat.ARQMATH_FORMULA: formula_row,
    RunFormat.ARQMATH_OPENQA: openqa_row,
    RunFormat.TREC: trec_row,
}


def row_parser(run_format: RunFormat, task_kind: str | None) -> RowParser:
    if run_format is RunFormat.TREC and task_kind == "formula":
        return trec_formula_row
    if run_format is RunFormat.TREC and task_kind == "document":
        return trec_document_row
    return ROW_PARSERS[run_format]


# Which column holds the run tag.
TAG_COLUMN = {
    RunFormat.ARQMATH_ANSWER: 4,
    RunFormat.ARQMATH_FORMULA: 5,
    RunFormat.ARQMATH_OPENQA: 3,
    RunFormat.TREC: 5,
}
