"""Where a judging request's time goes (a missed target is explained, measured).

Run by bench/judging_load.py after its load test, in its own process against the bench's
database (already verified): one assignment's judgments are cleared and its items judged again,
one at a time and with no other load, through Django's test client (the same middleware, views
and services as under gunicorn, without the network). Each request is timed unprofiled first;
a second pass under cProfile gives each phase's share, which is applied to the unprofiled
median (the profiler's own overhead inflates absolute times, not shares).
"""

from __future__ import annotations

import cProfile
import json
import pstats
import statistics
import time
import uuid

# (function name, file suffix) -> phase label; cumulative times, so nested phases overlap
# only where named here (none of these calls another).
SUBMIT_PHASES = {
    ("perform_authentication", "rest_framework/views.py"): "session + user (DRF auth)",
    ("is_valid", "rest_framework/serializers.py"): "JSON body validation",
    ("guidelines_for_assignment", "assessment/selectors/guidelines.py"): "task scale lookup",
    ("lock_topic_pool", "assessment/services/judging_checks.py"): "topic advisory lock",
    ("locked_assignment", "assessment/services/judging_checks.py"): "assignment row lock + scope",
    ("refuse_previous", "assessment/services/judging_checks.py"): "continue-move check",
    ("_apply", "assessment/services/judging.py"): "insert judgment + revision",
    ("_state", "assessment/api/judging.py"): "progress + next item (response)",
}
PAGE_PHASES = {
    ("get_user", "django/contrib/auth/__init__.py"): "session + user",
    ("item_page", "assessment/selectors/judging.py"): "item, hits, posts (selectors)",
    ("render", "django/shortcuts.py"): "template rendering",
}


def _phases(profile: cProfile.Profile, names: dict, median_ms: float) -> list:
    stats = pstats.Stats(profile).stats  # type: ignore[attr-defined]
    whole = 0.0
    found: dict[str, float] = {}
    for (path, _line, function), (_cc, _nc, _tt, cumulative, _callers) in stats.items():
        for (name, suffix), label in names.items():
            if function == name and path.endswith(suffix):
                found[label] = found.get(label, 0.0) + cumulative
        if function == "request" and path.endswith("django/test/client.py"):
            whole = max(whole, cumulative)
    if not whole:
        return []
    rows = [(label, seconds / whole) for label, seconds in found.items()]
    rows.sort(key=lambda row: -row[1])
    rest = 1.0 - sum(share for _label, share in rows)
    rows.append(("middleware, routing, the rest", rest))
    return [(label, share, share * median_ms) for label, share in rows]


class _Off:
    """A context manager that does nothing: the unprofiled pass."""

    def __enter__(self) -> None:
        return None

    def __exit__(self, *_exc: object) -> None:
        return None


def judging_breakdown(items: int = 20) -> None:
    """Print the page and submit breakdown (Django must be set up on the bench database)."""
    from django.conf import settings
    from django.test import Client
    from django.urls import reverse

    from assessment.models import Assignment, Judgment
    from pooling.models import Hit

    settings.ALLOWED_HOSTS = [*settings.ALLOWED_HOSTS, "testserver"]
    assignment = (
        Assignment.objects.filter(purpose="official", revoked_at__isnull=True)
        .exclude(topic__task__kind="formula")
        .order_by("pk")
        .first()
    )
    if assignment is None:
        print("breakdown: no answer assignment to measure")
        return
    item_ids = list(
        assignment.topic.pool_items.order_by("display_order").values_list("pk", flat=True)
    )[: items * 2]
    hits = {i: list(Hit.objects.filter(item_id=i).values_list("pk", flat=True)) for i in item_ids}
    client = Client()
    client.force_login(assignment.assessor)

    def one(item_id: int, page_profile=None, submit_profile=None) -> tuple[float, float]:  # type: ignore[no-untyped-def]
        """GET the item's page, then POST its judgments as judge.js does; both timed."""
        page = reverse("assessment:judge", args=[assignment.pk, item_id])
        api = f"/api/assignments/{assignment.pk}/items/{item_id}/judgments/"
        body = json.dumps(
            {
                "judgments": [{"hit": h, "grade": 1} for h in hits[item_id]],
                "active_seconds": 5,
                "client_token": uuid.uuid4().hex,
            }
        )
        start = time.perf_counter()
        with page_profile or _Off():
            answer = client.get(page)
        middle = time.perf_counter()
        with submit_profile or _Off():
            stored = client.post(api, body, content_type="application/json")
        end = time.perf_counter()
        if answer.status_code != 200 or stored.status_code != 200:
            raise RuntimeError(f"breakdown request failed: {answer} {stored}")
        return (middle - start) * 1000, (end - middle) * 1000

    Judgment.objects.filter(assignment=assignment).delete()  # revisions cascade
    half = len(item_ids) // 2
    timed = [one(i) for i in item_ids[:half]]
    # Separate profiles keep the page's and the submit's shares apart.
    page_profile, submit_profile = cProfile.Profile(), cProfile.Profile()
    for item_id in item_ids[half:]:
        one(item_id, page_profile, submit_profile)
    page_ms = statistics.median(t[0] for t in timed)
    submit_ms = statistics.median(t[1] for t in timed)
    print(
        f"breakdown (one assessor, no other load, test client, {len(timed)} + "
        f"{len(item_ids) - half} items): page median {page_ms:.1f} ms, "
        f"submit median {submit_ms:.1f} ms"
    )
    for title, profile, names, median in (
        ("judging page", page_profile, PAGE_PHASES, page_ms),
        ("submit", submit_profile, SUBMIT_PHASES, submit_ms),
    ):
        print(f"  {title}:")
        for label, share, ms in _phases(profile, names, median):
            print(f"    {label:<34} {share:6.1%}  ~{ms:5.1f} ms")
