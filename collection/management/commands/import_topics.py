"""``manage.py import_topics PATH --campaign NAME --task TASK [--kind KIND]``: ARQMath XML into an
answer, formula or openqa task, or TREC topics, TSV, JSONL into a document task
(``--collection NAME [--format auto|trec|tsv|jsonl]``).

``--task`` is the task's name, or a kind (answer|formula|openqa|document, task1..task3) when the
campaign has one task of that kind (created under the kind's name when it has none). With
``--kind``, ``--task`` is a name: that task, or a new task of that kind."""

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
        parser.add_argument(
            "--task",
            required=True,
            help="the task's name (e.g. task1, covid-docs), or its kind (answer|formula|openqa|"
            "document, task1..task3) when the campaign has one task of that kind",
        )
        parser.add_argument(
            "--kind",
            choices=RetrievalTask.Kind.values,
            help="create the task named by --task with this kind when the campaign has none",
        )
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
                task=options["task"],
                kind=options["kind"],
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
        task = report.task
        if task is not None and report.task_created and task.kind in KIND_DEFAULTS:
            self.stdout.write(
                f"Created the {task.kind} task of {options['campaign']} with its kind's defaults: "
                f"{defaults_summary(task.kind)}. Its name is {task.name!r} (--task {task.name}). "
                "Change them in the admin (Retrieval tasks)."
            )
