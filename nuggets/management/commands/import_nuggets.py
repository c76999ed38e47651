"""``manage.py import_nuggets FILE --campaign C [--proposals] [--provenance TEXT]``.

A nuggetizer nuggets file: added to each topic's list, or with ``--proposals`` offered to the
editor as machine proposals (``--provenance`` names the model or judge that made them).
"""

from __future__ import annotations

from argparse import ArgumentParser
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from collection.management.task_lookup import find_task
from nuggets.services.nuggets import NuggetError, nuggets_import


class Command(BaseCommand):
    help = "Import nuggetizer nuggets JSONL into a campaign's rag task (as nuggets or proposals)."

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("path", type=Path, metavar="FILE")
        parser.add_argument("--campaign", required=True)
        parser.add_argument("--proposals", action="store_true", help="as machine proposals")
        parser.add_argument(
            "--provenance", default="", help="the machine that made them (nuggets: origin machine)"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        task = find_task(options["campaign"], "rag")
        path = options["path"]
        try:
            with path.open("rb") as stream:
                count = nuggets_import(
                    task=task,
                    stream=stream,
                    file_name=path.name,
                    user=None,
                    proposals=options["proposals"],
                    provenance=options["provenance"],
                )
        except OSError as exc:
            raise CommandError(f"{path}: {exc.strerror or exc}") from exc
        except NuggetError as exc:
            raise CommandError("\n".join([exc.message, *exc.problems])) from exc
        what = "proposals" if options["proposals"] else "nuggets"
        self.stdout.write(f"{path.name}: {count} {what} imported")
