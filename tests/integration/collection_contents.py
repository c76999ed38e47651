"""The collection tables' contents as a checksum, and importing a whole dump (re-import tests)."""

from django.db import connection

from bench.collection_dump import DumpFiles
from collection.models import FormulaSlt
from collection.services import CollectionImportReport, collection_import

TABLES = (
    "collection_thread",
    "collection_post",
    "collection_comment",
    "collection_formula",
    "collection_formulaslt",
)


def contents() -> dict[str, tuple[int, str]]:
    """(rows, MD5 of every row's text in order) per collection table: equal contents, equal
    values."""
    found = {}
    with connection.cursor() as cursor:
        for table in TABLES:
            cursor.execute(
                f"SELECT count(*), md5(coalesce(string_agg(t::text, '|' ORDER BY t::text), '')) "  # noqa: S608
                f"FROM {table} t"
            )
            count, digest = cursor.fetchone()
            found[table] = (int(count), str(digest))
    return found


def mathml_of(formula_id: int) -> str:
    """A formula's stored MathML ("" when it has none)."""
    found = FormulaSlt.objects.filter(formula_id=formula_id).values_list("mathml", flat=True)
    return found.first() or ""


def truncate_collection() -> None:
    with connection.cursor() as cursor:
        # The test's one transaction holds deferred foreign-key checks of rows it inserted and
        # updated; TRUNCATE refuses a table with pending ones: run them first.
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
        cursor.execute("SET CONSTRAINTS ALL DEFERRED")
        cursor.execute(f"TRUNCATE {', '.join(TABLES)} CASCADE")


def import_dump(dump: DumpFiles, **options: object) -> CollectionImportReport:
    return collection_import(
        posts=dump.posts,
        comments=dump.comments,
        formulas=dump.formulas,
        slt=dump.slt,
        **options,  # type: ignore[arg-type]
    )


def changes_of(report: CollectionImportReport) -> dict[str, tuple[int, int, int]]:
    """(added, updated, unchanged) per table, from every file of ``report``."""
    return {
        table: (change.added, change.updated, change.unchanged)
        for outcome in report.files
        for table, change in outcome.changes.items()
    }
