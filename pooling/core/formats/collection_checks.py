"""Checks against the collection, in bulk: one lookup for all the ids of a stretch of rows.

The lookups come from the RunContext (the service asks the database); the parser only knows
sets of ids. ARQMath rules: Task 1 rows must name answer posts; Task 2 rows must name formula
ids of the collection's formula index that occur in the post they name. Document tasks: every
docno must be a document of the task's collection. The checks run a stretch of rows at a time
while the file is read (CollectionCheck), so unknown ids stop a file early.
"""

from __future__ import annotations

from dataclasses import dataclass

from pooling.core.formats.model import (
    AnswerPostLookup,
    DocnoLookup,
    FormulaPostLookup,
    ParsedRun,
    RunContext,
    RunFormat,
)


def _ids(column: list[int | None]) -> set[int]:
    ids = set(column)  # at C speed, then drop the NULL
    ids.discard(None)
    return ids  # type: ignore[return-value]


def fills_columns(context: RunContext) -> bool:
    """Whether check_collection may change rows, not only report on them: a TREC row of Task 2
    gets its post from the formula index."""
    return context.formula_posts is not None


@dataclass
class CollectionCheck:
    """The collection checks, run on the rows read so far (from ``start`` on), as many times
    as the reader likes: a file can then be refused for unknown ids while it is being read,
    and the rows already checked of a file that will fail can be dropped, so memory stays
    bounded whatever the file's size. Whether any docno at all was found is tallied across
    the calls, for the note said once, before the rows."""

    context: RunContext
    start: int = 0
    docnos_checked: int = 0
    docnos_found: int = 0
    batches: int = 0

    def check(self, run: ParsedRun) -> None:
        """Check the rows from ``start`` to the end of ``run.columns``."""
        start, self.start = self.start, len(run.columns)
        if start == self.start or run.format is RunFormat.ARQMATH_OPENQA:
            return
        context = self.context
        if run.doc_column == "docno":
            if context.document_docnos is not None:
                self._check_docnos(run, context.document_docnos, start)
            return
        if context.task_kind == "formula" or run.format is RunFormat.ARQMATH_FORMULA:
            if context.formula_posts is not None:
                _check_formulas(run, context.formula_posts, start)
        elif context.answer_posts is not None:
            _check_answer_posts(run, context.answer_posts, start)

    def rows_dropped(self) -> None:
        """The reader emptied the columns: the next check starts from their new start."""
        self.start = 0

    def finish(self, run: ParsedRun, *, whole_file: bool) -> None:
        """Check the rows not checked yet; say so once if no docno at all is known."""
        self.check(run)
        if self.docnos_checked and not self.docnos_found:
            name = self._collection_name()
            read = (
                f"the file's {self.docnos_checked:,} docnos"
                if whole_file and self.batches == 1
                else "the docnos read"
            )
            run.error(
                None,
                "docno",
                f"none of {read} is a document of {name}: "
                "is the run for another collection, or are its documents not imported yet?",
            )

    def _collection_name(self) -> str:
        collection = self.context.collection
        return f"collection {collection}" if collection else "the task's collection"

    def _check_docnos(self, run: ParsedRun, lookup: DocnoLookup, start: int) -> None:
        c = run.columns
        wanted = set(c.docno[start:])
        found = set(lookup(wanted))
        self.batches += 1
        self.docnos_checked += len(wanted)
        self.docnos_found += len(found)
        missing = wanted - found
        if not missing:
            return
        name = self._collection_name()
        for docno, line in zip(c.docno[start:], c.line[start:], strict=True):
            if docno in missing:
                run.error(line, "docno", f"document {docno!r} is not in {name}")


def check_collection(run: ParsedRun, context: RunContext) -> None:
    """Every collection check over every row of ``run``, in one go."""
    CollectionCheck(context).finish(run, whole_file=True)


def _check_answer_posts(run: ParsedRun, lookup: AnswerPostLookup, start: int) -> None:
    c = run.columns
    wanted = _ids(c.post_id[start:])
    missing = wanted.difference(lookup(wanted))
    if not missing:
        return
    for post, line in zip(c.post_id[start:], c.line[start:], strict=True):
        if post in missing:
            run.error(line, "post_id", f"post {post} is not an answer post of the collection")


def _check_formulas(run: ParsedRun, lookup: FormulaPostLookup, start: int) -> None:
    c = run.columns
    wanted = _ids(c.formula_id[start:])
    posts = lookup(wanted)
    rows = zip(c.formula_id[start:], c.post_id[start:], c.line[start:], strict=True)
    for i, (formula, post, line) in enumerate(rows, start):
        found = posts.get(formula) if formula is not None else None
        if found is None:
            run.error(line, "formula_id", f"formula {formula} is not in the collection")
        elif post is None:
            c.post_id[i] = found  # TREC layout: the post comes from the formula index
        elif found != post:
            run.error(
                line, "formula_id", f"formula {formula} is in post {found}, not in post {post}"
            )
