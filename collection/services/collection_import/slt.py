"""The SLT file: each formula's Presentation MathML, kept in a table of its own (FormulaSlt).

- A first load (no MathML stored) is a COPY straight into that table of the rows that carry
  MathML, with its foreign key checked once, by one join, at the end (bulk_load_window). The
  formula table is not written at all: at ARQMath's size that is 28 million rows not updated.
  (Its primary key stays: SLT files come in id order, and a B-tree takes rising keys at the
  end of its last page cheaply; dropping it and building it again afterwards sorted 28
  million keys and was slower, measured at full size.)
- A later load stages the whole file, sets apart by one join the rows whose MathML differs
  from the stored one, upserts the new and changed MathML and deletes the MathML that the
  file now leaves empty (a failed conversion).

Either way a formula whose visual id was computed (the index gave none) has it computed again
from its new MathML: the symbol layout is preferred to the LaTeX (docs/collection-import.md).
ARQMath's v3 index gives every visual id, and the partial index
``formula_computed_visual_id`` makes finding none of them a look-up of nothing.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from django.db import connection, transaction

from collection.core.formats.errors import ImportFileError
from collection.core.formats.formula_index import SltStats, parse_slt, slt_copy_lines
from collection.core.formats.visual_ids import (
    COMPUTED_PREFIX,
    MathMLError,
    canonical_latex,
    canonical_slt,
    computed_visual_id,
)
from collection.models import Formula, FormulaSlt
from collection.services.collection_import.progress import (
    FileChanges,
    ProgressCallback,
    Reporter,
    RowChanges,
)
from collection.services.collection_import.staging import (
    StagingTable,
    is_fresh,
    load_checked,
    load_path,
    repeated,
    table_is_empty,
)
from collection.services.integrity import BadKey
from kernel.bulkload import (
    bulk_insert,
    bulk_load_window,
    copy_lines,
    foreign_keys_check,
    index_rebuild_window,
    stored_rows_estimate,
)

SLT_FIELDS = ("formula_id", "mathml")
VISUAL_ID_BATCH = 5_000
# Visually equal formulas share their MathML: each distinct MathML is canonicalized once (lxml,
# ~60 µs) while at most this many are remembered (~40 MB).
VISUAL_ID_MEMO = 100_000


class _VisualIds:
    """visual_id_for(), remembering the id of each MathML it has canonicalized."""

    def __init__(self) -> None:
        self.known: dict[str, str | None] = {}

    def __call__(self, latex: str, mathml: str) -> str:
        found = self.known.get(mathml, "") if mathml.strip() else None
        if found == "":
            try:
                found = computed_visual_id(canonical_slt(mathml))
            except MathMLError:  # no usable MathML: the LaTeX decides, as visual_id_for() says
                found = None
            if len(self.known) < VISUAL_ID_MEMO:
                self.known[mathml] = found
        return found or computed_visual_id(canonical_latex(latex))


def _quoted(model: type[Formula] | type[FormulaSlt]) -> str:
    return connection.ops.quote_name(model._meta.db_table)


def _slt_rows(
    path: str | Path, reporter: Reporter, stats: SltStats, *, with_empty: bool
) -> Iterator[tuple[int, str]]:
    """(formula id, MathML) rows for bulk_insert (off PostgreSQL), noting what slt_copy_lines
    notes."""
    last = None
    for row in reporter.watch(parse_slt(path, reporter.state)):
        stats.rows += 1
        stats.given += bool(row.slt)
        if last is not None and row.formula_id <= last:
            stats.ascending = False
        last = row.formula_id
        if row.slt or with_empty:
            yield row.formula_id, row.slt


def _slt_line(path: str | Path, formula_id: int) -> int | None:
    return next((row.line for row in parse_slt(path) if row.formula_id == formula_id), None)


def _repeated_slt(path: str | Path, formula_id: int) -> ImportFileError:
    lines = (row.line for row in parse_slt(path) if row.formula_id == formula_id)
    return repeated(path, "formula", formula_id, lines)


def _not_in_index(path: str | Path, formula_id: int) -> ImportFileError:
    return ImportFileError(
        path, _slt_line(path, formula_id), f"formula {formula_id} is not in the formula index"
    )


def _load_first(path: str | Path, reporter: Reporter) -> tuple[SltStats, int]:
    """Into the empty table: (what was seen, rows stored)."""
    stats = SltStats()

    def load() -> int:
        if connection.vendor == "postgresql":
            lines = slt_copy_lines(path, reporter.state, stats, with_empty=False)
            return copy_lines(FormulaSlt, SLT_FIELDS, lines, progress=lambda _: reporter.tick(0))
        rows = _slt_rows(path, reporter, stats, with_empty=False)
        return bulk_insert(FormulaSlt, SLT_FIELDS, rows)

    loaded = load_checked(path, FormulaSlt, ["formula_id"], load, fresh=True)
    if isinstance(loaded, BadKey):
        if loaded.duplicate:
            raise _repeated_slt(path, loaded.value)
        raise _not_in_index(path, loaded.value)
    return stats, loaded


def _stage(path: str | Path, reporter: Reporter) -> tuple[StagingTable, SltStats]:
    """The file's (formula id, MathML) rows, empty MathML included, in a staging table."""
    stage = StagingTable(FormulaSlt, SLT_FIELDS, "import_stage_slt")
    stats = SltStats()
    if connection.vendor == "postgresql":
        lines = slt_copy_lines(path, reporter.state, stats)
        stage.load_lines(lines, progress=lambda _: reporter.tick(0))
    else:
        stage.load(_slt_rows(path, reporter, stats, with_empty=True))
    stage.analyze()
    return stage, stats


def _changes(path: str | Path, stage: StagingTable, stats: SltStats) -> StagingTable:
    """The staged rows whose MathML differs from the stored one, set apart by one join that
    also finds the ids the index does not have (refused, with their line)."""
    if not stats.ascending:  # rising ids cannot repeat: the check is needed only otherwise
        twice = stage.repeated_key("formula_id")
        if twice is not None:
            raise _repeated_slt(path, twice)
    changes = StagingTable(
        FormulaSlt,
        SLT_FIELDS,
        "import_stage_slt_changes",
        select=(
            "SELECT s.formula_id, s.mathml, CASE WHEN f.formula_id IS NULL THEN 1 ELSE 0 END "  # noqa: S608
            f"AS missing FROM {stage.name} s LEFT JOIN {_quoted(Formula)} f "
            f"ON f.formula_id = s.formula_id LEFT JOIN {_quoted(FormulaSlt)} t "
            "ON t.formula_id = s.formula_id "
            "WHERE f.formula_id IS NULL OR COALESCE(t.mathml, '') <> s.mathml"
        ),
    )
    missing = changes._execute(
        f"SELECT formula_id FROM {changes.name} WHERE missing = 1 "  # noqa: S608
        "ORDER BY formula_id LIMIT 1"
    )
    if missing:
        raise _not_in_index(path, int(missing[0][0]))
    return changes


def _apply(changes: StagingTable) -> None:
    """Delete the MathML the file leaves empty; insert or replace the rest of the changes."""
    slt = _quoted(FormulaSlt)
    changes._execute(
        f"DELETE FROM {slt} WHERE formula_id IN "  # noqa: S608
        f"(SELECT formula_id FROM {changes.name} WHERE mathml = '')"
    )
    upsert = (
        f"INSERT INTO {slt} (formula_id, mathml) "  # noqa: S608
        f"SELECT formula_id, mathml FROM {changes.name} WHERE mathml <> '' "
        "ON CONFLICT (formula_id) DO UPDATE SET mathml = EXCLUDED.mathml"
    )
    if changes.rows >= stored_rows_estimate(FormulaSlt) > 0:
        with bulk_load_window(FormulaSlt):  # one join instead of a check per inserted row
            changes._execute(upsert)
    else:
        changes._execute(upsert)
        foreign_keys_check(FormulaSlt)


def _recompute_visual_ids(changed: str) -> None:
    """New visual ids of the computed-id formulas among ``changed`` (a table of formula ids
    and MathML, empty MathML meaning none): from the SLT, else from the LaTeX."""
    visual_ids = StagingTable(Formula, ["formula_id", "visual_id"], "import_stage_visual_id")
    visual_id_for = _VisualIds()
    with connection.chunked_cursor() as cursor:
        # The same predicate as the partial index formula_computed_visual_id, so it is used.
        cursor.execute(
            f"SELECT c.formula_id, f.latex, c.mathml FROM {_quoted(Formula)} f "  # noqa: S608
            f"JOIN {changed} c ON c.formula_id = f.formula_id "
            f"WHERE f.visual_id LIKE '{COMPUTED_PREFIX}%'"
        )
        while batch := cursor.fetchmany(VISUAL_ID_BATCH):
            visual_ids.load(
                (formula_id, visual_id_for(latex, mathml)) for formula_id, latex, mathml in batch
            )
    if visual_ids.rows:
        with index_rebuild_window(Formula, new_entries=visual_ids.rows):
            visual_ids._execute(
                f"UPDATE {_quoted(Formula)} AS f SET visual_id = v.visual_id "  # noqa: S608
                f"FROM {visual_ids.name} v WHERE f.formula_id = v.formula_id "
                "AND f.visual_id <> v.visual_id"
            )
            # Formulas inserted earlier in the same transaction (a caller's atomic block) queue
            # a foreign-key re-check per update, and CREATE INDEX refuses a table with pending
            # ones: run them now.
            foreign_keys_check(Formula)
    visual_ids.drop()


def slt_load(path: str | Path, progress: ProgressCallback | None = None) -> FileChanges:
    """Presentation MathML of stored formulas (an SLT TSV keyed by formula id).

    A row with an empty MathML cell (a failed conversion) leaves its formula without MathML.
    Every formula of the file must be in the index, once. Counts: ``rows`` the rows with
    MathML, ``updated`` the formulas whose MathML changed, ``unchanged`` the file's others.
    """
    reporter = Reporter("slt", path, progress)
    first = is_fresh(load_path(vendor=connection.vendor, empty=table_is_empty(FormulaSlt)))
    with transaction.atomic():
        if first:
            stats, updated = _load_first(path, reporter)
            _recompute_visual_ids(_quoted(FormulaSlt))
        else:
            stage, stats = _stage(path, reporter)
            changes = _changes(path, stage, stats)
            _apply(changes)
            _recompute_visual_ids(changes.name)
            updated = changes.rows
            changes.drop()
            stage.drop()
    reporter.report()
    return {"slt": RowChanges(stats.given, 0, updated, stats.rows - updated)}
