"""``manage.py import_nugget_assignments FILE --campaign C --assessor USER [--purpose P]``.

A nuggetizer assignments file (a machine judge's, or labels made elsewhere) stored under the
user's assignment of each topic; every qid, run_id and nugget text must match the task.
"""

from __future__ import annotations

from argparse import ArgumentParser
from pathlib import Path
from typing import Any

from django.contrib.auth.models import User
from django.core.management.base import BaseCommand, CommandError

from assessment.models import Assignment
from collection.management.task_lookup import find_task
from nuggets.services.labels import nugget_assignments_import
from nuggets.services.nuggets import NuggetError


class Command(BaseCommand):
    help = "Import nuggetizer assignments JSONL as one assessor's (or machine's) labels."

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("path", type=Path, metavar="FILE")
        parser.add_argument("--campaign", required=True)
        parser.add_argument("--assessor", required=True, help="user name (a machine's account)")
        parser.add_argument(
            "--purpose",
            choices=[p.value for p in Assignment.Purpose if p != Assignment.Purpose.TRAINING],
            default=Assignment.Purpose.MACHINE,
        )

    def handle(self, *args: Any, **options: Any) -> None:
        task = find_task(options["campaign"], "rag")
        assessor = User.objects.filter(username=options["assessor"]).first()
        if assessor is None:
            raise CommandError(f"no user {options['assessor']!r}")
        path = options["path"]
        try:
            with path.open("rb") as stream:
                count = nugget_assignments_import(
                    task=task,
                    stream=stream,
                    file_name=path.name,
                    assessor=assessor,
                    purpose=options["purpose"],
                )
        except OSError as exc:
            raise CommandError(f"{path}: {exc.strerror or exc}") from exc
        except NuggetError as exc:
            raise CommandError("\n".join([exc.message, *exc.problems])) from exc
        self.stdout.write(f"{path.name}: {count} labels stored for {assessor.username}")
