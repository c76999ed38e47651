"""The plain data a run file parses into: records, problems, the parsed run and its context."""

from __future__ import annotations

import bisect
import enum
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from typing import Any

# Up to this many errors (and warnings) are listed; the rest are counted ("and N more").
MAX_LISTED = 100
MAX_RANK = 1000
MAX_ROWS_PER_TOPIC = 1000
MAX_ANSWER_CHARS = 1200
MAX_SOURCES_CHARS = 2000  # Task 3's sources column: the post ids an answer was built from
MAX_DOCNO_CHARS = 200  # collection.models.DOCNO_MAX_CHARS: a docno longer is in no collection
# A real run is far smaller: 100 topics x 1,000 rows of TREC text is about 6 MB. The limit is
# counted after decompression, so it also bounds what a small gzip may expand to.
DEFAULT_MAX_BYTES = 50 * 1024 * 1024
# The longest line a run file may hold. The longest legitimate one is a Task 3 answer line
# (1,200 characters of answer, up to 2,000 of sources, each character up to 4 UTF-8 bytes):
# about 3 KB in practice, under 13 KB at worst. A longer "line" is a file that is not a run,
# and the reader refuses it as soon as it is seen instead of gathering it.
MAX_LINE_BYTES = 64 * 1024


class RunFormat(enum.StrEnum):
    """The run file layouts ARQMath accepted (and TREC's own)."""

    ARQMATH_ANSWER = "arqmath-answer"  # Task 1: topic post rank score run
    ARQMATH_FORMULA = "arqmath-formula"  # Task 2: topic formula_id post rank score run
    ARQMATH_OPENQA = "arqmath-openqa"  # Task 3: topic rank score run sources answer
    TREC = "trec"  # topic Q0 doc rank score tag


@dataclass(slots=True)
class RunRecord:
    """One ranked result. ``doc`` is the post id (Task 1, TREC), the formula id (Task 2), the
    topic itself (Task 3, one answer per topic) or the docno (document tasks)."""

    topic: str
    doc: str
    post_id: int | None
    formula_id: int | None
    rank: int
    score: float
    answer: str
    sources: str
    line: int


@dataclass(frozen=True, slots=True)
class Problem:
    line: int | None
    field: str | None
    message: str

    def as_dict(self) -> dict[str, Any]:
        return {"line": self.line, "field": self.field, "message": self.message}


def _problem_order(problem: Problem) -> tuple[int, int]:
    """File-level problems (no line) first, then by line; equal lines keep their order."""
    return (0, 0) if problem.line is None else (1, problem.line)


# Given a set of post ids, the subset that are answer posts of the collection.
AnswerPostLookup = Callable[[set[int]], Collection[int]]
# Given a set of formula ids, formula id -> post id for those the collection knows.
FormulaPostLookup = Callable[[set[int]], Mapping[int, int]]
# Given a set of docnos, the subset that are documents of the task's collection.
DocnoLookup = Callable[[set[str]], Collection[str]]


@dataclass(frozen=True)
class RunContext:
    """What the database knows, handed to the pure parser so it can run collection checks.

    ``None`` means "not known, do not check": a parser run without a context checks only the
    file itself (as the ``evaluate`` CLI does)."""

    task_kind: str | None = None  # "answer" | "formula" | "openqa" | "document"
    topics: frozenset[str] | None = None
    answer_posts: AnswerPostLookup | None = None
    formula_posts: FormulaPostLookup | None = None
    document_docnos: DocnoLookup | None = None
    collection: str = ""  # document tasks: the collection's name, for messages


@dataclass(slots=True)
class RunColumns:
    """The accepted rows, column by column (one list per field, file order).

    Columns rather than one object per row: a 100,000-row upload is parsed and copied into
    the database without allocating a record per row; ``ParsedRun.rows`` builds records on
    demand for callers that want them."""

    topic: list[str] = field(default_factory=list)
    post_id: list[int | None] = field(default_factory=list)
    formula_id: list[int | None] = field(default_factory=list)
    rank: list[int] = field(default_factory=list)
    score: list[float] = field(default_factory=list)
    line: list[int] = field(default_factory=list)
    answer: list[str] = field(default_factory=list)  # Task 3 only
    sources: list[str] = field(default_factory=list)  # Task 3 only
    # Document tasks only; their rows leave post_id and formula_id empty.
    docno: list[str] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.rank)

    def clear(self) -> None:
        """Drop every row (a file sure to fail keeps none: they will never be stored)."""
        for column in (
            self.topic,
            self.post_id,
            self.formula_id,
            self.rank,
            self.score,
            self.line,
            self.answer,
            self.sources,
            self.docno,
        ):
            column.clear()


@dataclass
class ParsedRun:
    """A parsed run file with every problem found; ``ok`` when it may be stored."""

    name: str = ""
    format: RunFormat | None = None
    tag: str = ""
    columns: RunColumns = field(default_factory=RunColumns)
    errors: list[Problem] = field(default_factory=list)
    warnings: list[Problem] = field(default_factory=list)
    error_count: int = 0
    warning_count: int = 0
    bytes_read: int = 0
    # Set when reading stopped early because the report was full: the first line not read.
    stopped_at_line: int | None = None
    # Which column a row's ``doc`` is: post_id (Task 1, TREC), formula_id (Task 2), topic
    # (Task 3), docno (document tasks).
    doc_column: str = "post_id"
    _rows: list[RunRecord] | None = field(default=None, repr=False)

    @property
    def rows(self) -> list[RunRecord]:
        """The accepted rows as records, in file order (built once, on first use)."""
        if self._rows is None or len(self._rows) != len(self.columns):
            self._rows = self._records()
        return self._rows

    def _records(self) -> list[RunRecord]:
        c = self.columns
        n = len(c)
        answers = c.answer or [""] * n
        sources = c.sources or [""] * n
        posts: list[int | None] = c.post_id or [None] * n
        formulas: list[int | None] = c.formula_id or [None] * n
        if self.doc_column == "topic":
            docs: list[str] = c.topic
        elif self.doc_column == "docno":
            docs = c.docno
        elif self.doc_column == "formula_id":
            docs = [str(f) for f in c.formula_id]
        else:
            docs = [str(p) for p in c.post_id]
        return [
            RunRecord(*values)
            for values in zip(
                c.topic,
                docs,
                posts,
                formulas,
                c.rank,
                c.score,
                answers,
                sources,
                c.line,
                strict=True,
            )
        ]

    @property
    def ok(self) -> bool:
        return self.error_count == 0

    @property
    def topics(self) -> list[str]:
        return list(dict.fromkeys(self.columns.topic))

    def error(self, line: int | None, field_name: str | None, message: str) -> None:
        """Count a problem and list it if it is among the first ``MAX_LISTED`` by line.

        Checks of the file's own shape run while it streams and checks against the collection
        after it (they need every id at once), so problems do not arrive in line order: the
        list is kept sorted and capped, and the report shows the file's first problems
        whichever check found them."""
        self.error_count += 1
        problem = Problem(line, field_name, message)
        errors = self.errors
        if not errors or _problem_order(problem) >= _problem_order(errors[-1]):
            if len(errors) < MAX_LISTED:  # the usual case: lines come in order
                errors.append(problem)
            return
        bisect.insort_right(errors, problem, key=_problem_order)
        if len(errors) > MAX_LISTED:
            errors.pop()

    def warn(self, line: int | None, field_name: str | None, message: str) -> None:
        self.warning_count += 1
        if len(self.warnings) < MAX_LISTED:
            self.warnings.append(Problem(line, field_name, message))

    def report(self) -> dict[str, Any]:
        """The validation report as plain JSON-able data (API body, stored on the run)."""
        more_errors = self.error_count - len(self.errors)
        more_warnings = self.warning_count - len(self.warnings)
        return {
            "file": self.name,
            "format": self.format.value if self.format else None,
            "tag": self.tag,
            "ok": self.ok,
            "rows": len(self.columns) if self.ok else None,
            "topics": len(self.topics) if self.ok else None,
            "error_count": self.error_count,
            "errors": [p.as_dict() for p in self.errors],
            "more_errors": more_errors,
            "more_errors_message": f"and {more_errors} more" if more_errors else "",
            "stopped_at_line": self.stopped_at_line,
            "stopped_message": (
                f"reading stopped at line {self.stopped_at_line:,} after {MAX_LISTED} problems; "
                "the rest of the file was not checked"
                if self.stopped_at_line is not None
                else ""
            ),
            "warning_count": self.warning_count,
            "warnings": [p.as_dict() for p in self.warnings],
            "more_warnings": more_warnings,
        }
