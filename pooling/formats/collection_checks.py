"""Checks against the collection, in bulk: one lookup for all the ids a file names.

The lookups come from the RunContext (the service asks the database); the parser only knows
sets of ids. ARQMath rules: Task 1 rows must name answer posts; Task 2 rows must name formula
ids of the collection's formula index that occur in the post they name.
"""

from __future__ import annotations

from pooling.formats.model import (
    AnswerPostLookup,
    FormulaPostLookup,
    ParsedRun,
    RunContext,
    RunFormat,
)


def check_collection(run: ParsedRun, context: RunContext) -> None:
    if (
        context.answer_posts is not None
        and run.format
        in (
            RunFormat.ARQMATH_ANSWER,
            RunFormat.TREC,
        )
        and context.task_kind != "formula"
    ):
        _check_answer_posts(run, context.answer_posts)
    if (
        context.formula_posts is not None
        and run.format
        in (
            RunFormat.ARQMATH_FORMULA,
            RunFormat.TREC,
        )
        and context.task_kind == "formula"
    ):
        _check_formulas(run, context.formula_posts)


def _check_answer_posts(run: ParsedRun, lookup: AnswerPostLookup) -> None:
    wanted = {row.post_id for row in run.rows if row.post_id is not None}
    answers = set(lookup(wanted))
    for row in run.rows:
        if row.post_id not in answers:
            run.error(
                row.line, "post_id", f"post {row.post_id} is not an answer post of the collection"
            )


def _check_formulas(run: ParsedRun, lookup: FormulaPostLookup) -> None:
    wanted = {row.formula_id for row in run.rows if row.formula_id is not None}
    posts = lookup(wanted)
    for row in run.rows:
        if row.formula_id is None:
            continue
        post = posts.get(row.formula_id)
        if post is None:
            run.error(row.line, "formula_id", f"formula {row.formula_id} is not in the collection")
        elif row.post_id is None:
            row.post_id = post  # TREC layout: the post comes from the formula index
        elif post != row.post_id:
            run.error(
                row.line,
                "formula_id",
                f"formula {row.formula_id} is in post {post}, not in post {row.post_id}",
            )
