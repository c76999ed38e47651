"""``manage.py judge_endpoint add NAME --base-url URL --model MODEL [--api-key-env VAR]
[--concurrency N] [--requests-per-minute N] [--timeout SECONDS] [--price-per-1k-tokens X]``,
``judge_endpoint list`` and ``judge_endpoint remove NAME``."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from judges.core.endpoints import EndpointFields
from judges.models import JudgeEndpoint
from judges.services.endpoints import EndpointError, endpoint_add, endpoint_remove


class Command(BaseCommand):
    help = "Register, list or remove the OpenAI-compatible endpoints LLM judges run on."

    def add_arguments(self, parser: CommandParser) -> None:
        actions = parser.add_subparsers(dest="action", required=True)
        add = actions.add_parser("add", help="register an endpoint")
        add.add_argument("name")
        add.add_argument("--base-url", required=True, help="e.g. http://127.0.0.1:8000/v1")
        add.add_argument("--model", required=True)
        add.add_argument(
            "--api-key-env", default="", help="the NAME of the environment variable with the key"
        )
        add.add_argument("--concurrency", type=int, default=4)
        add.add_argument("--requests-per-minute", type=int, default=0, help="0: no limit")
        add.add_argument("--timeout", type=float, default=60.0, help="seconds")
        add.add_argument("--price-per-1k-tokens", type=float, default=0.0)
        actions.add_parser("list", help="list the endpoints")
        remove = actions.add_parser("remove", help="remove an endpoint")
        remove.add_argument("name")

    def handle(self, *args: Any, **options: Any) -> None:
        action = options["action"]
        try:
            if action == "add":
                endpoint = endpoint_add(
                    fields=EndpointFields(
                        name=options["name"],
                        base_url=options["base_url"],
                        model=options["model"],
                        api_key_env=options["api_key_env"],
                        concurrency=options["concurrency"],
                        requests_per_minute=options["requests_per_minute"],
                        timeout_seconds=options["timeout"],
                        price_per_1k_tokens=options["price_per_1k_tokens"],
                    )
                )
                self.stdout.write(self.style.SUCCESS(f"Added endpoint {endpoint.name}."))
            elif action == "list":
                for e in JudgeEndpoint.objects.all():
                    key = f"key from ${e.api_key_env}" if e.api_key_env else "no key"
                    rpm = e.requests_per_minute or "unlimited"
                    self.stdout.write(
                        f"{e.name}\t{e.base_url}\t{e.model}\t{key}\tconcurrency {e.concurrency}"
                        f"\t{rpm} req/min\ttimeout {e.timeout_seconds:g} s"
                        f"\t{e.price_per_1k_tokens:g} per 1k tokens"
                    )
            else:
                found = JudgeEndpoint.objects.filter(name=options["name"]).first()
                if found is None:
                    raise CommandError(f"no endpoint named {options['name']!r}")
                endpoint_remove(endpoint=found)
                self.stdout.write(self.style.SUCCESS(f"Removed endpoint {options['name']}."))
        except EndpointError as error:
            raise CommandError("; ".join(error.problems)) from error
