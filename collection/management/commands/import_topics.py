"""``manage.py import_topics PATH --campaign NAME --task answer|formula|openqa`` (ARQMath XML) or
``--task document --collection NAME [--format auto|trec|tsv|jsonl]`` (TREC topics, TSV, JSONL)."""

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from collection.core.formats.errors import ImportFileError
from collection.core.formats.trec_topics import TOPIC_FORMATS
from collection.core.task_defaults import KIND_DEFAULTS, defaults_summary
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
        kind = options["task"]
        existed = RetrievalTask.objects.filter(
            campaign__name=options["campaign"], kind=kind
        ).exists()
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
        if not existed and kind in KIND_DEFAULTS:
            self.stdout.write(
                f"Created the {kind} task of {options['campaign']} with its kind's defaults: "
                f"{defaults_summary(kind)}. Change them in the admin (Retrieval tasks)."
            )
