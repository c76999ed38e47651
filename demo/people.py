"""The demo's logins: an organizer, two assessors and participants of both demo campaigns.

Printed at the end of ``manage.py demo``; never used outside the demo.
"""

from __future__ import annotations

from django.contrib.auth.models import User

from pooling.models import Team

__all__ = ["USERS", "users_create"]

# (username, password, role, team)
USERS: tuple[tuple[str, str, str, str], ...] = (
    ("organizer", "organizer-demo", "organizer", "Organizers"),
    ("alice", "alice-demo", "assessor", ""),
    ("bob", "bob-demo", "assessor", ""),
    ("carol", "carol-demo", "participant", "Lemma"),
    ("dave", "dave-demo", "participant", "Tangent"),
    ("nora", "nora-demo", "participant", "Northwind"),  # the TREC-style demo's best team
)


def users_create() -> dict[str, User]:
    """Create (or reset the passwords of) the demo logins and their teams; username -> user."""
    users = {}
    for username, password, role, team_name in USERS:
        user, _ = User.objects.get_or_create(username=username)
        user.first_name = username.capitalize()
        user.is_staff = user.is_superuser = role == "organizer"
        user.set_password(password)
        user.save()
        users[username] = user
        if team_name:
            team, _ = Team.objects.get_or_create(name=team_name)
            team.members.add(user)
    return users
