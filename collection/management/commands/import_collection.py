"""``manage.py import_collection [--posts F] [--comments F] [--formulas F] [--slt F]``."""

import sys
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from tqdm import tqdm

from collection.formats.errors import ImportFileError
from collection.services import ImportProgress, collection_import


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
        "formula index TSV (v3 or 5-column) and an SLT TSV, with COPY on PostgreSQL."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--posts", help="Posts.xml")
        parser.add_argument("--comments", help="Comments.xml")
        parser.add_argument("--formulas", help="formula index TSV (LaTeX)")
        parser.add_argument("--slt", help="SLT TSV (Presentation MathML)")
        parser.add_argument("--no-progress", action="store_true", help="no progress bars")

    def handle(self, *args: Any, **options: Any) -> None:
        files = {name: options[name] for name in ("posts", "comments", "formulas", "slt")}
        if not any(files.values()):
            raise CommandError("nothing to import: give --posts, --comments, --formulas or --slt")
        bars = _Bars(enabled=not options["no_progress"] and sys.stderr.isatty())
        try:
            report = collection_import(**files, progress=bars)
        except ImportFileError as error:
            raise CommandError(str(error)) from error
        finally:
            bars.close()
        self.stdout.write(
            self.style.SUCCESS(
                f"{report.threads:,} threads, {report.posts:,} posts, {report.comments:,} "
                f"comments, {report.formulas:,} formulas, {report.slt:,} with SLT"
            )
        )
