"""``manage.py import_documents PATH --collection NAME [--format auto|trec|jsonl|tsv]`` and
``manage.py import_documents --ir-datasets ID --collection NAME``.

Re-runnable: the same file again changes nothing (it is skipped unread); a newer file adds
and updates documents. Prints the counts; bad input exits non-zero listing every problem.
"""

import sys
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from collection.core.formats.documents import FORMATS
from collection.services.document_import import (
    DocumentImportBusy,
    DocumentImportError,
    documents_import,
)


class Command(BaseCommand):
    help = (
        "Import a document collection: a TREC SGML, JSONL or TSV file (plain or gzip), or an "
        "ir_datasets dataset whose files are on this machine (never downloaded). Documents "
        "already stored and unchanged are left alone; changed ones are updated."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("path", nargs="?", type=Path, help="the collection file")
        parser.add_argument("--collection", required=True, help="collection name (created if new)")
        parser.add_argument("--format", default="auto", choices=("auto", *FORMATS))
        parser.add_argument(
            "--ir-datasets", metavar="ID", help="an ir_datasets dataset id instead of a file"
        )
        parser.add_argument("--no-progress", action="store_true", help="no progress bar")

    def handle(self, *args: Any, **options: Any) -> None:
        if (options["path"] is None) == (options["ir_datasets"] is None):
            raise CommandError("give a file PATH or --ir-datasets ID (one of them)")
        try:
            record = documents_import(
                collection=options["collection"],
                source=options["path"],
                file_format=options["format"],
                ir_dataset=options["ir_datasets"],
                progress=not options["no_progress"] and sys.stderr.isatty(),
                stdout=self.stdout,
            )
        except DocumentImportError as error:
            raise CommandError(
                f"nothing imported; {len(error.problems)} problem(s):\n" + "\n".join(error.problems)
            ) from error
        except DocumentImportBusy as error:
            raise CommandError(str(error)) from error
        counts = record.counts
        seconds = float(counts.get("seconds", 0.0))
        rate = f"{counts['rows'] / seconds:,.0f} docs/s" if seconds > 0 else "skipped unread"
        self.stdout.write(
            self.style.SUCCESS(
                f"{record.collection.name}: {counts['rows']:,} documents ({record.file_format}): "
                f"{counts['added']:,} added, {counts['updated']:,} updated, "
                f"{counts['unchanged']:,} unchanged in {seconds:.2f} s ({rate})"
            )
        )
