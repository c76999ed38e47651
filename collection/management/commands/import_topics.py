"""``manage.py import_topics PATH --campaign NAME --task answer|formula|openqa``."""

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from collection.formats.errors import ImportFileError
from collection.models import RetrievalTask
from collection.services import topics_import


class Command(BaseCommand):
    help = "Import an ARQMath topic file (Task 1 or Task 2 form) into a campaign's task."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("path", help="topic XML, e.g. task2-topics.xml")
        parser.add_argument("--campaign", required=True, help='campaign name, e.g. "ARQMath-3"')
        parser.add_argument("--task", required=True, choices=RetrievalTask.Kind.values)
        parser.add_argument("--formulas-latex", help="topic-formulas-latex.tsv")
        parser.add_argument("--formulas-slt", help="topic-formulas-slt.tsv")
        parser.add_argument(
            "--no-create",
            action="store_true",
            help="fail instead of creating a missing campaign or task",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            report = topics_import(
                path=options["path"],
                campaign_name=options["campaign"],
                task_kind=options["task"],
                formulas_latex=options["formulas_latex"],
                formulas_slt=options["formulas_slt"],
                create=not options["no_create"],
            )
        except ImportFileError as error:
            raise CommandError(str(error)) from error
        self.stdout.write(
            self.style.SUCCESS(
                f"{report.created} topics created, {report.updated} updated, "
                f"{report.unchanged} unchanged"
            )
        )
