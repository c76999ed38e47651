"""Formula instances of the ARQMath formula index (their MathML is slt.py's).

The index loads like posts (staging.py): straight into an empty table, else staged and
upserted.
"""

from __future__ import annotations

from pathlib import Path

from django.db import connection, transaction

from collection.core.formats.errors import ImportFileError
from collection.core.formats.formula_index import (
    COPY_COLUMNS,
    FORMULA_COLUMNS,
    formula_index_copy_lines,
    formula_index_lines,
    parse_formula_index,
)
from collection.core.formats.visual_ids import COMPUTED_PREFIX
from collection.models import Formula, FormulaSlt
from collection.services.collection_import.progress import (
    FileChanges,
    ProgressCallback,
    Reporter,
    RowChanges,
)
from collection.services.collection_import.staging import (
    StagingTable,
    distinct_sql,
    is_fresh,
    load_checked,
    load_path,
    repeated,
    table_is_empty,
)
from collection.services.integrity import BadKey
from kernel.bulkload import (
    bulk_insert,
    copy_lines,
)

# A conservative guess of an index row's size (ARQMath's average is ~80 bytes): too low a
# guess only means rebuilding an index a little more often than it pays.
FORMULA_ROW_BYTES = 100
# Compared as they are; visual_id has its own rule (_formula_changed).
_COMPARED = ("post_id", "thread_id", "location", "comment_id", "old_visual_id", "issue", "latex")


def _formula_changed(stored: str, new: str) -> str:
    """Whether an index row differs from the stored formula.

    A computed visual id (the index gave none) is derived from the LaTeX, or from the SLT once
    that is loaded: two computed ids are compared through the LaTeX, not as strings, or every
    formula with MathML would look changed.
    """
    plain = distinct_sql([connection.ops.quote_name(c) for c in _COMPARED])(stored, new)
    computed = f"'{COMPUTED_PREFIX}%'"
    visual = (
        f"NOT ({stored}.visual_id = {new}.visual_id OR "
        f"({stored}.visual_id LIKE {computed} AND {new}.visual_id LIKE {computed}))"
    )
    return f"({plain} OR {visual})"


def _stage_formulas(path: str | Path, reporter: Reporter) -> FileChanges:
    if connection.vendor == "postgresql":
        stage = StagingTable(Formula, COPY_COLUMNS, "import_stage_formula")
        stage.load_lines(
            formula_index_copy_lines(path, reporter.state), progress=lambda _: reporter.tick(0)
        )
    else:
        stage = StagingTable(Formula, FORMULA_COLUMNS, "import_stage_formula")
        stage.load(reporter.watch(parse_formula_index(path, reporter.state)))
    stage.analyze()
    twice = stage.repeated_key("formula_id")
    if twice is not None:
        raise _repeated_formula(path, twice)
    changes = {"formulas": stage.upsert("formula_id", _formula_changed, then=_forget_mathml)}
    stage.drop()
    return changes


def _forget_mathml(changes: str) -> None:
    """An updated formula loses its MathML, which was for the old row: the ledger has the SLT
    file applied again after any change of the formulas."""
    slt = connection.ops.quote_name(FormulaSlt._meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute(
            f"DELETE FROM {slt} WHERE formula_id IN "  # noqa: S608
            f"(SELECT formula_id FROM {changes} WHERE is_new = 0)"
        )


def _repeated_formula(path: str | Path, formula_id: int) -> ImportFileError:
    position = FORMULA_COLUMNS.index("formula_id")
    lines = (n for n, row in formula_index_lines(path) if row[position] == formula_id)
    return repeated(path, "formula", formula_id, lines)


def _load_new_formulas(path: str | Path, reporter: Reporter) -> FileChanges:
    if connection.vendor == "postgresql":  # the fast path: cells to COPY text directly
        lines = formula_index_copy_lines(path, reporter.state)
        count = copy_lines(Formula, COPY_COLUMNS, lines, progress=lambda _: reporter.tick(0))
    else:
        rows = reporter.watch(parse_formula_index(path, reporter.state))
        count = bulk_insert(Formula, FORMULA_COLUMNS, rows)
    return {"formulas": RowChanges(count, count)}


def _formula_line(path: str | Path, column: str, value: int) -> tuple[int | None, int | None]:
    """(line, formula id) of the first row whose ``column`` is ``value`` (error path only)."""
    position = FORMULA_COLUMNS.index(column)
    for line, row in formula_index_lines(path):
        if row[position] == value:
            return line, row[0]
    return None, None


def formulas_load(path: str | Path, progress: ProgressCallback | None = None) -> FileChanges:
    """Formula instances of an ARQMath formula index TSV (v3 or the 5-column form): new ones
    added, changed ones updated.

    Each formula's post, thread and (for comments) comment must be in the collection. A row
    without a visual id gets one computed from its LaTeX
    (docs/collection-import.md; SLT replaces it later).
    """
    reporter = Reporter("formulas", path, progress)
    fresh = is_fresh(load_path(vendor=connection.vendor, empty=table_is_empty(Formula)))
    load = _load_new_formulas if fresh else _stage_formulas
    with transaction.atomic():
        loaded = load_checked(
            path,
            Formula,
            ["post_id", "thread_id", "comment_id"],
            lambda: load(path, reporter),
            fresh=fresh,
            expected_rows=reporter.total // FORMULA_ROW_BYTES,
        )
        if isinstance(loaded, BadKey):
            key = loaded
            if key.duplicate:  # only a fresh load: the file gives an id twice
                raise _repeated_formula(path, key.value)
            line, formula_id = _formula_line(path, key.column, key.value)
            what = key.column.removesuffix("_id")
            raise ImportFileError(
                path, line, f"formula {formula_id}: {what} {key.value} is not in the collection"
            )
    reporter.report()
    return loaded
