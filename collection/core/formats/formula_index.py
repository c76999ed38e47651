"""The ARQMath formula index TSVs: one row per formula instance of the collection.

Forms, told apart by the header row:
- v3: ``id post_id thread_id type comment_id old_visual_id visual_id issue formula``
- older: ``id post_id thread_id type formula`` (and ``… type visual_id formula``)
The SLT TSV has the same leading ``id`` column and the Presentation MathML as its last column.
A row without a visual id gets a computed one from its LaTeX (visual_ids.py); the importer
recomputes it from the SLT when an SLT file is loaded.
"""

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple, TextIO, TypeVar

from collection.core.formats.errors import ImportFileError
from collection.core.formats.stackexchange import RowProgress
from collection.core.formats.tabular import TsvReader, open_text
from collection.core.formats.visual_ids import canonical_latex, computed_visual_id
from kernel.core.copy_text import NULL, escape

LOCATIONS = frozenset({"title", "question", "answer", "comment"})
V3_HEADER = [
    "id",
    "post_id",
    "thread_id",
    "type",
    "comment_id",
    "old_visual_id",
    "visual_id",
    "issue",
    "formula",
]
FIVE_COLUMN_HEADER = ["id", "post_id", "thread_id", "type", "formula"]
SIX_COLUMN_HEADER = ["id", "post_id", "thread_id", "type", "visual_id", "formula"]
T = TypeVar("T")
_HEADERS = {tuple(h): h for h in (V3_HEADER, FIVE_COLUMN_HEADER, SIX_COLUMN_HEADER)}


# A plain tuple, not a NamedTuple: building a NamedTuple costs a Python-level call per row,
# a third of the parse time of a large index. Columns in FORMULA_COLUMNS order.
FormulaRow = tuple[int, int, int, str, int | None, str, str, str, str]
FORMULA_COLUMNS = (
    "formula_id",
    "post_id",
    "thread_id",
    "location",
    "comment_id",
    "visual_id",
    "old_visual_id",
    "issue",
    "latex",
)


class SltRow(NamedTuple):
    formula_id: int
    slt: str
    line: int


# Longest cells stored: the columns' widths (Formula.visual_id, old_visual_id, issue) and a
# bound on a formula's LaTeX or MathML (every stored text is bounded).
CELL_LIMITS = {"visual_id": 40, "old_visual_id": 40, "issue": 20, "formula": 1_000_000}
MAX_ID_CHARS, MAX_ISSUE_CHARS = CELL_LIMITS["visual_id"], CELL_LIMITS["issue"]
MAX_FORMULA_CHARS = CELL_LIMITS["formula"]


def _too_long(values: dict[str, str]) -> str | None:
    for name, limit in CELL_LIMITS.items():
        if len(values.get(name, "")) > limit:
            return f"{name} has {len(values[name]):,} characters (at most {limit:,})"
    return None


def _bad_row(reader: TsvReader, row: list[str], header: list[str]) -> ImportFileError:
    """The error for a row that failed the fast path: which column, what value."""
    if len(row) != len(header):
        return reader.error(f"{len(row)} columns, the header has {len(header)}")
    values = dict(zip(header, row, strict=True))
    if (message := _too_long(values)) is not None:
        return reader.error(message)
    for name in ("id", "post_id", "thread_id", "comment_id", "visual_id"):
        value = values.get(name, "")
        if (value and not value.lstrip("-").isdigit()) or (not value and name in header[:3]):
            return reader.error(f"{name} is not an integer: {value!r}")
    return reader.error(
        f"unknown formula type {values['type']!r} (title, question, answer, comment)"
    )


def _v3_rows(reader: TsvReader, rows: Iterator[list[str]]) -> Iterator[FormulaRow]:
    # The hot path of a 28-million-row import: unpack by position, one int() per column.
    for row in rows:
        try:
            fid, pid, tid, location, cid, old, vid, issue, latex = row
            if location not in LOCATIONS or len(latex) > MAX_FORMULA_CHARS:
                raise ValueError(location)
            if len(vid) > MAX_ID_CHARS or len(old) > MAX_ID_CHARS or len(issue) > MAX_ISSUE_CHARS:
                raise ValueError(vid)
            yield (
                int(fid),
                int(pid),
                int(tid),
                location,
                int(cid) if cid else None,
                str(int(vid)) if vid else computed_visual_id(canonical_latex(latex)),
                old,
                issue,
                latex,
            )
        except ValueError:
            raise _bad_row(reader, row, V3_HEADER) from None


def _short_rows(
    reader: TsvReader, rows: Iterator[list[str]], header: list[str]
) -> Iterator[FormulaRow]:
    with_vid = len(header) == len(SIX_COLUMN_HEADER)
    for row in rows:
        try:
            if with_vid:
                fid, pid, tid, location, vid, latex = row
            else:
                fid, pid, tid, location, latex = row
                vid = ""
            if (
                location not in LOCATIONS
                or len(latex) > MAX_FORMULA_CHARS
                or len(vid) > MAX_ID_CHARS
            ):
                raise ValueError(location)
            yield (
                int(fid),
                int(pid),
                int(tid),
                location,
                None,
                str(int(vid)) if vid else computed_visual_id(canonical_latex(latex)),
                "",
                "",
                latex,
            )
        except ValueError:
            raise _bad_row(reader, row, header) from None


# The COPY column order of formula_index_copy_lines(): the v3 file's own order, so that a
# line is its cells, checked and escaped, with no reordering.
COPY_COLUMNS = (
    "formula_id",
    "post_id",
    "thread_id",
    "location",
    "comment_id",
    "old_visual_id",
    "visual_id",
    "issue",
    "latex",
)


def _v3_copy_lines(reader: TsvReader, rows: Iterator[list[str]]) -> Iterator[str]:
    """COPY text straight from v3 cells: the same checks as _v3_rows at half its cost per row
    (no int objects built and formatted back; one f-string per row)."""
    for row in rows:
        try:
            fid, pid, tid, location, cid, old, vid, issue, latex = row
        except ValueError:
            raise _bad_row(reader, row, V3_HEADER) from None
        if (
            not (fid.isdigit() and pid.isdigit() and tid.isdigit())
            or location not in LOCATIONS
            or (cid and not cid.isdigit())
            or (vid and not vid.isdigit())
            or len(latex) > MAX_FORMULA_CHARS
            or len(vid) > MAX_ID_CHARS
            or len(old) > MAX_ID_CHARS
            or len(issue) > MAX_ISSUE_CHARS
        ):
            raise _bad_row(reader, row, V3_HEADER)
        if not vid:
            vid = computed_visual_id(canonical_latex(latex))
        elif vid[0] == "0" and len(vid) > 1:
            vid = str(int(vid))  # a given id is stored as its decimal text
        if "\\" in latex or "\t" in latex or "\n" in latex or "\r" in latex:
            latex = escape(latex)
        if old:
            old = escape(old)
        if issue:
            issue = escape(issue)
        yield f"{fid}\t{pid}\t{tid}\t{location}\t{cid or NULL}\t{old}\t{vid}\t{issue}\t{latex}\n"


def _copy_line(row: FormulaRow) -> str:
    fid, pid, tid, location, cid, vid, old, issue, latex = row
    comment = NULL if cid is None else str(cid)
    return (
        f"{fid}\t{pid}\t{tid}\t{location}\t{comment}\t{escape(old)}\t{vid}\t{escape(issue)}"
        f"\t{escape(latex)}\n"
    )


def formula_index_copy_lines(
    path: str | Path, progress: RowProgress | None = None
) -> Iterator[str]:
    """The rows of an index TSV as PostgreSQL COPY text lines, columns in COPY_COLUMNS order.

    Same checks, errors and computed visual ids as parse_formula_index(); the v3 form (the
    one ARQMath's 28 million formulas come in) takes a fused path from cells to text.
    """
    with open_text(path) as handle:
        reader = TsvReader(path, handle)
        header = _index_header(path, reader)
        rows = reader.raw_rows()
        if header is V3_HEADER:
            lines = _v3_copy_lines(reader, rows)
        else:
            lines = map(_copy_line, _short_rows(reader, rows, header))
        yield from _tracked(lines, handle, progress)


def parse_formula_index(
    path: str | Path, progress: RowProgress | None = None
) -> Iterator[FormulaRow]:
    """Formula instances of an index TSV (v3, 6- or 5-column form, detected by the header)."""
    with open_text(path) as handle:
        reader = TsvReader(path, handle)
        header = _index_header(path, reader)
        rows = reader.raw_rows()
        parsed = (
            _v3_rows(reader, rows) if header is V3_HEADER else _short_rows(reader, rows, header)
        )
        yield from _tracked(parsed, handle, progress)


def _index_header(path: str | Path, reader: TsvReader) -> list[str]:
    header = _HEADERS.get(tuple(reader.header))
    if header is None:
        raise ImportFileError(path, 1, f"unknown formula index header: {' '.join(reader.header)!r}")
    return header


def _tracked(items: Iterator[T], handle: TextIO, progress: RowProgress | None) -> Iterator[T]:
    """``items`` as they are, telling ``progress`` (if any) the rows and bytes read so far."""
    if progress is None:
        yield from items
        return
    start = progress.rows
    count = 0
    for count, item in enumerate(items, 1):
        yield item
        if not count & 8191:
            progress.rows = start + count
            progress.bytes_read = handle.buffer.tell()
    progress.rows = start + count
    progress.bytes_read = handle.buffer.tell()


def formula_index_lines(path: str | Path) -> Iterator[tuple[int, FormulaRow]]:
    """(line, row) of an index TSV: the slow path, to find the line of a row the database
    refused."""
    with open_text(path) as handle:
        reader = TsvReader(path, handle)
        header = _HEADERS.get(tuple(reader.header))
        if header is None:
            return
        rows = reader.raw_rows()
        parse = _v3_rows if header is V3_HEADER else None
        for row in rows:
            one = iter([row])
            parsed = parse(reader, one) if parse else _short_rows(reader, one, header)
            yield reader.error("").line or 0, next(parsed)


def _slt_reader(path: str | Path, handle: TextIO) -> TsvReader:
    reader = TsvReader(path, handle)
    if len(reader.header) < 2 or reader.header[0] != "id":
        raise ImportFileError(path, 1, f"unknown SLT header: {' '.join(reader.header)!r}")
    return reader


def _slt_id(reader: TsvReader, cell: str) -> int:
    try:
        return int(cell)
    except ValueError:
        raise reader.error(f"id is not an integer: {cell!r}") from None


def _slt_mathml(reader: TsvReader, cell: str) -> str:
    """The MathML of an SLT row, bounded like a formula; a cell of white space only is a failed
    conversion: no MathML."""
    if len(cell) > MAX_FORMULA_CHARS:
        raise reader.error(_too_long({"formula": cell}) or "")
    return cell if cell.strip() else ""


def parse_slt(path: str | Path, progress: RowProgress | None = None) -> Iterator[SltRow]:
    """(formula id, Presentation MathML) of an SLT TSV: first column ``id``, MathML last."""
    with open_text(path) as handle:
        reader = _slt_reader(path, handle)
        for row in reader:
            yield SltRow(_slt_id(reader, row[0]), _slt_mathml(reader, row[-1]), reader.line)
            if progress is not None:
                progress.rows += 1
                if not progress.rows % 8192:
                    progress.bytes_read = handle.buffer.tell()


@dataclass
class SltStats:
    """What slt_copy_lines() saw on the way: rows, rows with MathML, and whether the ids only
    rose (then no id can be repeated)."""

    rows: int = 0
    given: int = 0
    ascending: bool = True


def slt_copy_lines(
    path: str | Path,
    progress: RowProgress | None = None,
    stats: SltStats | None = None,
    *,
    with_empty: bool = True,
) -> Iterator[str]:
    """The rows of an SLT TSV as PostgreSQL COPY text lines ``formula_id, slt``: the checks and
    values of parse_slt(), without a tuple per row (28 million rows at ARQMath's size).

    ``with_empty=False`` leaves out the rows without MathML (checked all the same): a first
    load stores only the MathML there is."""
    stats = stats if stats is not None else SltStats()
    last, count = None, 0
    with open_text(path) as handle:
        reader = _slt_reader(path, handle)
        for count, row in enumerate(reader, 1):
            formula_id = _slt_id(reader, row[0])
            if last is not None and formula_id <= last:
                stats.ascending = False
            last = formula_id
            mathml = _slt_mathml(reader, row[-1])
            if mathml:
                stats.given += 1
                yield f"{formula_id}\t{escape(mathml)}\n"
            elif with_empty:
                yield f"{formula_id}\t\n"
            if progress is not None and not count & 8191:
                progress.rows = count
                progress.bytes_read = handle.buffer.tell()
        stats.rows = count
        if progress is not None:
            progress.rows = count
            progress.bytes_read = handle.buffer.tell()
