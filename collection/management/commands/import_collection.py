"""``manage.py import_collection [--posts F] [--comments F] [--formulas F] [--slt F] [--force]``.

Re-runnable: a file imported before and unchanged is skipped; a newer dump adds and updates
rows; an import killed half-way finishes when run again. One line per file on stdout as it ends.
"""

import sys
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from tqdm import tqdm

from collection.core.formats.errors import ImportFileError
from collection.services import (
    CollectionImportBusy,
    FileOutcome,
    ImportProgress,
    collection_import,
)


class _Bars:
    """One tqdm bar per file, in bytes of the file read, with the row count alongside."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled
        self.bar: tqdm | None = None  # type: ignore[type-arg]
        self.stage = ""

    def __call__(self, progress: ImportProgress) -> None:
        if not self.enabled:
            return
        if progress.stage != self.stage:
            self.close()
            self.stage = progress.stage
            self.bar = tqdm(
                total=progress.bytes_total or None,
                desc=progress.stage,
                unit="B",
                unit_scale=True,
                file=sys.stderr,
            )
        assert self.bar is not None  # noqa: S101 - set just above
        self.bar.update(progress.bytes_read - self.bar.n)
        self.bar.set_postfix(rows=f"{progress.rows:,}", refresh=False)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None


class Command(BaseCommand):
    help = (
        "Import the collection: Stack Exchange Posts.xml and Comments.xml, the ARQMath "
        "formula index TSV (v3 or 5-column) and an SLT TSV, with COPY on PostgreSQL. Files "
        "imported before and unchanged are skipped; a newer dump adds new rows and updates "
        "changed ones (rows it no longer holds are kept)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--posts", help="Posts.xml")
        parser.add_argument("--comments", help="Comments.xml")
        parser.add_argument("--formulas", help="formula index TSV (LaTeX)")
        parser.add_argument("--slt", help="SLT TSV (Presentation MathML)")
        parser.add_argument("--no-progress", action="store_true", help="no progress bars")
        parser.add_argument(
            "--force",
            action="store_true",
            help="read every file, even one identical to a finished import (after rows were "
            "edited or deleted by hand)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        files = {name: options[name] for name in ("posts", "comments", "formulas", "slt")}
        if not any(files.values()):
            raise CommandError("nothing to import: give --posts, --comments, --formulas or --slt")
        bars = _Bars(enabled=not options["no_progress"] and sys.stderr.isatty())

        def file_done(outcome: FileOutcome) -> None:
            bars.close()
            self.stdout.write(describe(outcome))
            self.stdout.flush()

        try:
            report = collection_import(
                **files, progress=bars, file_done=file_done, force=options["force"]
            )
        except (ImportFileError, CollectionImportBusy) as error:
            raise CommandError(str(error)) from error
        finally:
            bars.close()
        if any(_updated_a_stored_table(o) for o in report.files):
            self.stdout.write(
                "Rows that a newer dump no longer holds are kept in the collection (nothing "
                "is deleted)."
            )
        self.stdout.write(
            self.style.SUCCESS(
                f"{report.threads:,} threads, {report.posts:,} posts, {report.comments:,} "
                f"comments, {report.formulas:,} formulas, {report.slt:,} with SLT"
            )
        )


def describe(outcome: FileOutcome) -> str:
    """``posts Posts.xml: threads 3 added, 1 updated, 496 unchanged; posts …`` or ``… skipped``."""
    name = Path(outcome.path).name
    if outcome.skipped:
        rows = ", ".join(f"{c.rows:,} {table}" for table, c in outcome.changes.items())
        return f"{outcome.role} {name}: skipped, {outcome.skipped_because} ({rows})"
    parts = [
        f"{table} {c.added:,} added, {c.updated:,} updated, {c.unchanged:,} unchanged"
        for table, c in outcome.changes.items()
    ]
    return f"{outcome.role} {name}: {'; '.join(parts)}"


def _updated_a_stored_table(outcome: FileOutcome) -> bool:
    """A posts, comments or formulas file loaded over rows already stored (a newer dump)."""
    if outcome.skipped or outcome.role == "slt":
        return False
    return any(c.updated or c.unchanged for c in outcome.changes.values())
