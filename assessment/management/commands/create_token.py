"""``manage.py create_token USER [--team TEAM]``: the participant's API token (DRF)."""

from __future__ import annotations

from argparse import ArgumentParser
from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from assessment.access import is_machine_account
from pooling.services.runs import team_ensure, token_create


class Command(BaseCommand):
    help = "Print a user's API token, creating it on first use; optionally add them to a team."

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("username")
        parser.add_argument("--team", help="also make the user a member of this team")

    def handle(self, *args: Any, **options: Any) -> None:
        User = get_user_model()
        try:
            user = User.objects.get_by_natural_key(options["username"])
        except User.DoesNotExist as exc:
            raise CommandError(f"no user {options['username']!r}") from exc
        if is_machine_account(user):
            raise CommandError(
                f"{user.get_username()} is a machine judge's account: no token, no team"
            )
        if options["team"]:
            team, _ = team_ensure(name=options["team"])
            team.members.add(user)
        self.stdout.write(token_create(user=user).key)  # type: ignore[arg-type]
