"""``manage.py training_from_archive --campaign C --task T --topics FILE --qrels FILE --round NAME
--assessor USER... [--topic N]... [--items-per-topic K] [--seed S] [--show-gold]
[--topic-format auto|trec|tsv|jsonl]``: a training round on earlier years' topics.

The topics and official qrels of an earlier year go into the task's training archive (a task of
their own, so the live task's pools, qrels and results never see them); the round shows up to K
graded items per topic, every grade in turn, and its gold is the official grade.
"""

from __future__ import annotations

from argparse import ArgumentParser
from pathlib import Path
from typing import Any

from django.contrib.auth.models import User
from django.core.management.base import BaseCommand, CommandError

from assessment.selectors.guidelines import guidelines_current
from assessment.services.training import TrainingError, gold_qrels_parse
from assessment.services.training_archive import (
    archive_topics_read,
    training_archive_round_create,
)
from collection.core.formats.errors import ImportFileError
from collection.core.formats.trec_topics import TOPIC_FORMATS
from collection.management.task_lookup import find_task


class Command(BaseCommand):
    help = "Create a training round from earlier years' topics and official qrels."

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("--campaign", required=True)
        parser.add_argument("--task", required=True, help="the live task (answer, document, …)")
        parser.add_argument("--topics", required=True, type=Path, help="the earlier topic file")
        parser.add_argument("--qrels", required=True, type=Path, help="its official qrels")
        parser.add_argument("--round", required=True, dest="name", help="the round's name")
        parser.add_argument(
            "--assessor", action="append", required=True, dest="assessors", metavar="USER"
        )
        parser.add_argument(
            "--topic",
            action="append",
            default=[],
            dest="topic_numbers",
            metavar="NUMBER",
            help="a topic of the round (repeat; default: every topic the qrels grade)",
        )
        parser.add_argument("--items-per-topic", type=int, default=5)
        parser.add_argument("--seed", type=int, default=None)
        parser.add_argument(
            "--show-gold", action="store_true", help="assessors see the gold after submitting"
        )
        parser.add_argument(
            "--topic-format",
            choices=TOPIC_FORMATS,
            default="auto",
            help="document tasks: the topic file's format",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        for flag in ("topics", "qrels"):
            if not options[flag].is_file():
                raise CommandError(f"no such file: {options[flag]}")
        if options["items_per_topic"] < 1:
            raise CommandError("--items-per-topic must be at least 1")
        task = find_task(options["campaign"], options["task"])
        names = options["assessors"]
        people = list(User.objects.filter(username__in=names, is_active=True))
        if unknown := sorted(set(names) - {p.username for p in people}):
            raise CommandError(f"no active user named {', '.join(unknown)}")
        try:
            topics = archive_topics_read(
                options["topics"], kind=task.kind, file_format=options["topic_format"]
            )
            text = options["qrels"].read_text(encoding="utf-8", errors="replace")
            gold = gold_qrels_parse(text, top=guidelines_current(task=task).scale.top)
            made = training_archive_round_create(
                task=task,
                name=options["name"],
                topics=topics,
                gold=gold,
                assessors=people,
                created_by=None,
                topic_numbers=options["topic_numbers"],
                items_per_topic=options["items_per_topic"],
                seed=options["seed"],
                show_gold_after_submit=options["show_gold"],
            )
        except ImportFileError as error:
            raise CommandError(str(error)) from error
        except TrainingError as error:
            for problem in error.problems:
                self.stderr.write(f"  {problem}")
            raise CommandError("no round was created") from error
        self.stdout.write(
            f"round {made.training_round.name!r} in {made.archive}: {made.topics} topics, "
            f"{made.items} items, {len(people)} assessors"
        )
        if made.missing_items:
            self.stdout.write(
                f"{made.missing_items:,} graded items of those topics are not in the collection "
                "and were not shown"
            )
