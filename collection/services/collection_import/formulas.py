"""Formula instances of the ARQMath formula index, and their Presentation MathML (SLT).

The index loads like posts (staging.py): straight into an empty table, else staged and
upserted. The SLT file always goes through a staging table, then one ``UPDATE … FROM`` sets
the MathML of the formulas whose MathML differs: no ORM round trip per chunk.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from django.db import connection, transaction

from collection.bulkload import (
    bulk_insert,
    copy_lines,
    foreign_keys_check,
    index_rebuild_window,
)
from collection.formats.errors import ImportFileError
from collection.formats.formula_index import (
    COPY_COLUMNS,
    FORMULA_COLUMNS,
    SltStats,
    formula_index_copy_lines,
    formula_index_lines,
    parse_formula_index,
    parse_slt,
    slt_copy_lines,
)
from collection.formats.visual_ids import COMPUTED_PREFIX, visual_id_for
from collection.models import Formula
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

# A conservative guess of an index row's size (ARQMath's average is ~80 bytes): too low a
# guess only means rebuilding an index a little more often than it pays.
FORMULA_ROW_BYTES = 100
VISUAL_ID_BATCH = 5_000
# Compared as they are; visual_id has its own rule (_formula_changed) and slt is not the
# index's to compare (it comes from the SLT file).
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
    # An updated row takes the index's empty slt: its MathML was for the old row, and the
    # ledger has the SLT file applied again after any change of the formulas.
    changes = {"formulas": stage.upsert("formula_id", _formula_changed)}
    stage.drop()
    return changes


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
    without a visual id gets one computed from its LaTeX (DESIGN.md; SLT replaces it later).
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


def _stage_slt(path: str | Path, reporter: Reporter) -> tuple[StagingTable, SltStats]:
    """The file's (formula id, MathML) rows in a staging table, with what was seen on the way."""
    stage = StagingTable(Formula, ["formula_id", "slt"], "import_stage_slt")
    stats = SltStats()
    if connection.vendor == "postgresql":
        lines = slt_copy_lines(path, reporter.state, stats)
        stage.load_lines(lines, progress=lambda _: reporter.tick(0))
    else:
        stage.load(_slt_rows(path, reporter, stats))
    stage.analyze()
    return stage, stats


def _slt_rows(path: str | Path, reporter: Reporter, stats: SltStats) -> Iterator[tuple[int, str]]:
    """(formula id, MathML) rows for bulk_insert (off PostgreSQL), noting what slt_copy_lines
    notes."""
    last = None
    for row in reporter.watch(parse_slt(path, reporter.state)):
        stats.given += bool(row.slt)
        if last is not None and row.formula_id <= last:
            stats.ascending = False
        last = row.formula_id
        yield row.formula_id, row.slt


def _formula_table() -> str:
    return connection.ops.quote_name(Formula._meta.db_table)


def _slt_line(path: str | Path, formula_id: int) -> int | None:
    return next((row.line for row in parse_slt(path) if row.formula_id == formula_id), None)


def _slt_changes(path: str | Path, stage: StagingTable, stats: SltStats) -> StagingTable:
    """The staged rows whose MathML differs from the stored one, set apart by one join that
    also finds the ids the index does not have (refused, with their line)."""
    if not stats.ascending:  # rising ids cannot repeat: the check is needed only otherwise
        twice = stage.repeated_key("formula_id")
        if twice is not None:
            lines = (row.line for row in parse_slt(path) if row.formula_id == twice)
            raise repeated(path, "formula", twice, lines)
    changes = StagingTable(
        Formula,
        ["formula_id", "slt"],
        "import_stage_slt_changes",
        select=(
            "SELECT s.formula_id, s.slt, CASE WHEN f.formula_id IS NULL THEN 1 ELSE 0 END "  # noqa: S608
            f"AS missing FROM {stage.name} s LEFT JOIN {_formula_table()} f "
            "ON f.formula_id = s.formula_id "
            "WHERE f.formula_id IS NULL OR f.slt IS DISTINCT FROM s.slt"
        ),
    )
    missing = changes._execute(
        f"SELECT formula_id FROM {changes.name} WHERE missing = 1 "  # noqa: S608
        "ORDER BY formula_id LIMIT 1"
    )
    if missing:
        formula_id = int(missing[0][0])
        raise ImportFileError(
            path, _slt_line(path, formula_id), f"formula {formula_id} is not in the formula index"
        )
    return changes


def _stage_visual_ids(changes: StagingTable) -> StagingTable:
    """New visual ids of the formulas whose id was computed (the index gave none) and whose
    MathML changes: DESIGN.md prefers the SLT's symbol layout to the LaTeX. ARQMath's v3 index
    gives every visual id, so this is empty there; lxml works only for the rest."""
    visual_ids = StagingTable(Formula, ["formula_id", "visual_id"], "import_stage_visual_id")
    with connection.chunked_cursor() as cursor:
        cursor.execute(
            f"SELECT c.formula_id, f.latex, c.slt FROM {changes.name} c "  # noqa: S608
            f"JOIN {_formula_table()} f ON f.formula_id = c.formula_id "
            f"WHERE f.visual_id LIKE '{COMPUTED_PREFIX}%'"
        )
        while batch := cursor.fetchmany(VISUAL_ID_BATCH):
            visual_ids.load(
                (formula_id, visual_id_for(latex=latex, slt=mathml))
                for formula_id, latex, mathml in batch
            )
    return visual_ids


def slt_load(path: str | Path, progress: ProgressCallback | None = None) -> FileChanges:
    """Presentation MathML of stored formulas (an SLT TSV keyed by formula id).

    A visual id the index did not give is recomputed from the SLT, as DESIGN.md prefers it. A
    row with an empty MathML cell (a failed conversion) leaves its formula without MathML.
    Every formula of the file must be in the index, once. An update of half the table or more
    (a first SLT load) rebuilds the formula table's plain indexes afterwards instead of adding
    an entry per updated row to each.
    """
    reporter = Reporter("slt", path, progress)
    with transaction.atomic():
        stage, stats = _stage_slt(path, reporter)
        changes = _slt_changes(path, stage, stats)
        visual_ids = _stage_visual_ids(changes)
        with index_rebuild_window(Formula, new_entries=changes.rows):
            updated = changes._execute(
                f"UPDATE {_formula_table()} AS f SET slt = c.slt, "  # noqa: S608
                "visual_id = COALESCE(v.visual_id, f.visual_id) "
                f"FROM {changes.name} c LEFT JOIN {visual_ids.name} v "
                "ON v.formula_id = c.formula_id WHERE f.formula_id = c.formula_id"
            )
            # Rows inserted earlier in the same transaction (a caller's atomic block) queue a
            # foreign-key re-check per update, and CREATE INDEX refuses a table with pending
            # ones: run them now (nothing to run when the formulas were committed before).
            foreign_keys_check(Formula)
        for table in (visual_ids, changes, stage):
            table.drop()
    reporter.report()
    return {"slt": RowChanges(stats.given, 0, updated, stage.rows - updated)}
