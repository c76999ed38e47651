"""``manage.py import_topic_categories FILE --campaign C --task KIND``: topic categories."""

from __future__ import annotations

from argparse import ArgumentParser
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from collection.core.formats.errors import ImportFileError
from collection.management.task_lookup import TASK_HELP, find_task
from collection.services.topic_categories_import import topic_categories_import


class Command(BaseCommand):
    help = (
        "Import the categories of a task's topics: a tab-separated file with a header, "
        "'topic' first, then one column per category (ARQMath: type, difficulty, dependency)."
    )

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("path", type=Path, metavar="FILE")
        parser.add_argument("--campaign", required=True)
        parser.add_argument("--task", required=True, help=TASK_HELP)

    def handle(self, *args: Any, **options: Any) -> None:
        path: Path = options["path"]
        if not path.is_file():
            raise CommandError(f"no such file: {path}")
        task = find_task(options["campaign"], options["task"])
        try:
            changed = topic_categories_import(task=task, path=path)
        except ImportFileError as error:
            raise CommandError(str(error)) from error
        self.stdout.write(self.style.SUCCESS(f"categories of {changed} topic(s) stored"))
