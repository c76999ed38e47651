"""``manage.py import_topics PATH --campaign NAME --task answer|formula|openqa`` (ARQMath XML) or
``--task document --collection NAME [--format auto|trec|tsv|jsonl]`` (TREC topics, TSV, JSONL)."""

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from collection.core.task_defaults import settings_text
from collection.formats.errors import ImportFileError
from collection.formats.trec_topics import TOPIC_FORMATS
from collection.models import RetrievalTask
from collection.services import topics_import


class Command(BaseCommand):
    help = (
        "Import a topic file into a campaign's task: ARQMath topic XML (Task 1 or Task 2 form), "
        "or for a document task a TREC topic file, TSV (qid<TAB>query) or JSONL queries."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "path", help="topic file, e.g. task2-topics.xml or topics.301-350 (gzip accepted)"
        )
        parser.add_argument("--campaign", required=True, help='campaign name, e.g. "ARQMath-3"')
        parser.add_argument("--task", required=True, choices=RetrievalTask.Kind.values)
        parser.add_argument(
            "--collection", help="document tasks: the document collection judged (must exist)"
        )
        parser.add_argument(
            "--format",
            choices=TOPIC_FORMATS,
            default="auto",
            help="document tasks: trec (SGML or XML topics), tsv, jsonl; auto detects it",
        )
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
                collection_name=options["collection"],
                file_format=options["format"],
            )
        except ImportFileError as error:
            raise CommandError(str(error)) from error
        self.stdout.write(
            self.style.SUCCESS(
                f"{report.created} topics created, {report.updated} updated, "
                f"{report.unchanged} unchanged"
            )
        )
        task = RetrievalTask.objects.filter(
            campaign__name=options["campaign"], kind=options["task"]
        ).first()
        if task is not None:  # what the task's qrels and pools will do (the admin changes it)
            settings = settings_text(
                task.min_relevant, task.relevance_level, task.primary_depth, task.alternate_depth
            )
            self.stdout.write(f"{task.kind} task settings: {settings}")
