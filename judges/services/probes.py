"""Adding and removing probe items (judges/core/probes.py says what they are)."""

from __future__ import annotations

import random
from typing import Any

from django.db import transaction

from assessment.selectors.guidelines import guidelines_current
from collection.core.post_html import plain_text
from collection.models import Topic
from judges.core.probes import probe_text
from judges.models import ProbeItem
from judges.services.endpoints import EndpointError

__all__ = ["probe_add", "probe_remove"]

MAX_PROBES_PER_TOPIC = 20


def probe_add(
    *, topic: Topic, kind: str, seed: int | None = None, created_by: Any = None
) -> ProbeItem:
    """A new probe of ``kind`` for ``topic``, its text generated from the topic."""
    if kind not in ProbeItem.Kind.values:
        raise EndpointError([f"kind: one of {', '.join(ProbeItem.Kind.values)}"])
    scale = guidelines_current(task=topic.task).scale
    top = scale.grade(scale.top)
    rng = random.Random(seed)  # noqa: S311 - a probe text, not a secret
    description = topic.description or plain_text(topic.question or "")
    text = probe_text(
        kind, plain_text(topic.title), description, top.label if top else str(scale.top), rng
    )
    with transaction.atomic():
        Topic.objects.select_for_update().filter(pk=topic.pk).first()
        held = ProbeItem.objects.filter(topic=topic).count()
        if held >= MAX_PROBES_PER_TOPIC:
            raise EndpointError([f"topic {topic.number}: at most {MAX_PROBES_PER_TOPIC} probes"])
        keys = ProbeItem.objects.filter(topic=topic).values_list("key", flat=True)
        n = 1 + max([0, *(int(key.rsplit("-", 1)[-1]) for key in keys)])
        return ProbeItem.objects.create(
            topic=topic,
            kind=kind,
            key=f"probe-{topic.pk}-{n}",
            text=text,
            created_by=created_by if getattr(created_by, "pk", None) else None,
        )


def probe_remove(*, probe: ProbeItem) -> None:
    probe.delete()
