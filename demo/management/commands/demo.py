"""``manage.py demo``: two synthetic campaigns ready to click through, an ARQMath-like one and
a TREC-style news one (``demo.steps`` lists what is built, in order).

Running it again leaves an existing demo alone (and prints the logins); ``--reset`` deletes the
demo campaigns, their users and teams, the whole Math SE collection and the demo's document
collection, then builds it afresh. Embedded (``make demo``): SQLite and in-process tasks.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandParser

from collection.models import Campaign, DocumentCollection, Thread
from demo.arqmath_campaign import CAMPAIGN, Demo
from demo.people import USERS
from demo.steps import STEPS, demo_reset
from demo.trec_campaign import TREC_COLLECTION


def demo_url() -> str:
    """Where ``make demo`` serves: the port it takes from the environment (PORT, else 8000)."""
    return f"http://127.0.0.1:{os.environ.get('PORT') or '8000'}"


class Command(BaseCommand):
    help = "Build synthetic demo campaigns (collections, topics, runs, users), ready to click."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--seed", type=int, default=2022)
        parser.add_argument("--dir", type=Path, default=Path(settings.BASE_DIR) / "var" / "demo")
        parser.add_argument("--threads", type=int, default=400, help="Math SE collection size")
        parser.add_argument(
            "--documents", type=int, default=400, help="news collection size (TREC-style demo)"
        )
        parser.add_argument("--topics", type=int, default=10, help="topics per task")
        parser.add_argument("--reset", action="store_true", help="delete the demo and rebuild it")

    def handle(self, *args: Any, **options: Any) -> None:
        if options["reset"]:
            demo_reset()
            self.stdout.write("Deleted the previous demo and the collections.")
        elif Campaign.objects.filter(name=CAMPAIGN).exists():
            self.stdout.write(
                f"The demo campaign {CAMPAIGN!r} exists already; "
                "`manage.py demo --reset` rebuilds it."
            )
            self._print_logins()
            return
        elif (
            Thread.objects.exists()
            or DocumentCollection.objects.filter(name=TREC_COLLECTION).exists()
        ):
            self.stdout.write(
                "The collection is not empty: run `manage.py demo --reset` to replace it."
            )
            return
        demo = Demo(
            seed=options["seed"],
            folder=options["dir"],
            threads=options["threads"],
            topics=options["topics"],
            documents=options["documents"],
            write=self.stdout.write,
        )
        started = time.perf_counter()
        for number, (name, step) in enumerate(STEPS, start=1):
            self.stdout.write(self.style.MIGRATE_HEADING(f"[{number}/{len(STEPS)}] {name}"))
            step(demo)
        self.stdout.write(f"Demo built in {time.perf_counter() - started:.1f} s.")
        self._print_logins()

    def _print_logins(self) -> None:
        self.stdout.write(self.style.SUCCESS(f"\nOpen {demo_url()} and log in as:"))
        for username, password, role, team in USERS:
            detail = f"{role}, team {team}" if team and role == "participant" else role
            self.stdout.write(f"  {username:<10} password {password:<16} ({detail})")
