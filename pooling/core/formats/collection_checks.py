"""Checks against the collection, in bulk: one lookup for all the ids a file names.

The lookups come from the RunContext (the service asks the database); the parser only knows
sets of ids. ARQMath rules: Task 1 rows must name answer posts; Task 2 rows must name formula
ids of the collection's formula index that occur in the post they name. Document tasks: every
docno must be a document of the task's collection.
"""

from __future__ import annotations

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


def check_collection(run: ParsedRun, context: RunContext) -> None:
    if run.format is RunFormat.ARQMATH_OPENQA:
        return
    if run.doc_column == "docno":
        if context.document_docnos is not None:
            _check_docnos(run, context.document_docnos, context.collection)
        return
    if context.task_kind == "formula" or run.format is RunFormat.ARQMATH_FORMULA:
        if context.formula_posts is not None:
            _check_formulas(run, context.formula_posts)
    elif context.answer_posts is not None:
        _check_answer_posts(run, context.answer_posts)


def _check_answer_posts(run: ParsedRun, lookup: AnswerPostLookup) -> None:
    c = run.columns
    wanted = _ids(c.post_id)
    missing = wanted.difference(lookup(wanted))
    if not missing:
        return
    for post, line in zip(c.post_id, c.line, strict=True):
        if post in missing:
            run.error(line, "post_id", f"post {post} is not an answer post of the collection")


def _check_formulas(run: ParsedRun, lookup: FormulaPostLookup) -> None:
    c = run.columns
    wanted = _ids(c.formula_id)
    posts = lookup(wanted)
    for i, (formula, post, line) in enumerate(zip(c.formula_id, c.post_id, c.line, strict=True)):
        found = posts.get(formula) if formula is not None else None
        if found is None:
            run.error(line, "formula_id", f"formula {formula} is not in the collection")
        elif post is None:
            c.post_id[i] = found  # TREC layout: the post comes from the formula index
        elif found != post:
            run.error(
                line, "formula_id", f"formula {formula} is in post {found}, not in post {post}"
            )


def _check_docnos(run: ParsedRun, lookup: DocnoLookup, collection: str) -> None:
    c = run.columns
    wanted = set(c.docno)
    missing = wanted - set(lookup(wanted))
    if not missing:
        return
    name = f"collection {collection}" if collection else "the task's collection"
    if missing == wanted:  # say the likely cause once, before the rows
        run.error(
            None,
            "docno",
            f"none of the file's {len(wanted):,} docnos is a document of {name}: "
            "is the run for another collection, or are its documents not imported yet?",
        )
    for docno, line in zip(c.docno, c.line, strict=True):
        if docno in missing:
            run.error(line, "docno", f"document {docno!r} is not in {name}")
