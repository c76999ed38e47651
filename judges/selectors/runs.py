"""Reads for the judge pages and the API: endpoints, a task's runs, a run's status, probes."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from django.db.models import Q

from assessment.models import MachineJudge
from collection.models import RetrievalTask
from judges.models import JudgeAnswer, JudgeEndpoint, JudgeRun, ProbeItem
from kernel.core.ordering import natural_key

__all__ = [
    "ProbeGrade",
    "ProbeRow",
    "endpoint_as_dict",
    "probe_grades_for",
    "probes_of",
    "run_failures_note",
    "run_status",
    "runs_of",
]

SHOWN_RUNS = 50


def endpoint_as_dict(endpoint: JudgeEndpoint) -> dict[str, Any]:
    """What pages and the API show of an endpoint: the key's variable name, never a key."""
    return {
        "id": endpoint.pk,
        "name": endpoint.name,
        "base_url": endpoint.base_url,
        "model": endpoint.model,
        "api_key_env": endpoint.api_key_env,
        "concurrency": endpoint.concurrency,
        "requests_per_minute": endpoint.requests_per_minute,
        "timeout_seconds": endpoint.timeout_seconds,
        "price_per_1k_tokens": endpoint.price_per_1k_tokens,
    }


def runs_of(task: RetrievalTask) -> list[JudgeRun]:
    return list(
        JudgeRun.objects.filter(task=task).select_related("judge", "requested_by")[:SHOWN_RUNS]
    )


def run_failures_note(run: JudgeRun) -> str:
    """What to say beside a finished run's status about its failed questions: a run that
    judged nothing is failed outright (judges.services.runs), one that judged some is done
    "with N failures", never a bare "done"."""
    if run.status != JudgeRun.Status.DONE or not run.failed:
        return ""
    return f"with {run.failed} failure{'' if run.failed == 1 else 's'}"


def run_status(run: JudgeRun) -> dict[str, Any]:
    """The JSON the progress bar polls: counters, tokens and cost so far and projected."""
    stats = run.stats or {}
    return {
        "id": run.pk,
        "build": run.pk,
        "status": run.status,
        "error": run.error,
        "attempts": run.attempts,
        "worker_lost_at": run.worker_lost_at.isoformat() if run.worker_lost_at else None,
        "judge": run.judge.name,
        "endpoint": run.endpoint_name,
        "model": run.model,
        "prompt_version": run.prompt_version,
        "items_total": run.items_total,
        "items_done": run.items_done,
        "asked": run.asked,
        "from_cache": run.from_cache,
        "failed": run.failed,
        "failures_note": run_failures_note(run),
        "retries": run.retries,
        "tokens": run.tokens,
        "tokens_projected": stats.get("tokens_projected", run.tokens),
        "cost": f"{stats.get('cost', 0.0):.4f}",
        "cost_projected": f"{stats.get('cost_projected', 0.0):.4f}",
        "cancel_requested": run.cancel_requested,
        "parameters": run.parameters,
        "stats": stats,
    }


@dataclass
class ProbeRow:
    probe: ProbeItem
    topic: str
    grades: list[tuple[str, str]] = field(default_factory=list)  # (endpoint · model · v, grade)


def probes_of(task: RetrievalTask) -> list[ProbeRow]:
    """The task's probes, each with every judge's answer on it (two queries)."""
    probes = list(ProbeItem.objects.filter(topic__task=task).select_related("topic"))
    answers: dict[int, list[tuple[str, str]]] = defaultdict(list)
    for probe_id, endpoint, model, version, ok, grade in JudgeAnswer.objects.filter(
        probe__in=probes
    ).values_list("probe_id", "endpoint_name", "model", "prompt_version", "ok", "grade"):
        answers[probe_id].append(
            (f"{endpoint} · {model} · prompt v{version}", str(grade) if ok else "failed")
        )
    rows = [ProbeRow(p, p.topic.number, sorted(answers[p.pk])) for p in probes]
    return sorted(rows, key=lambda r: (natural_key(r.topic), r.probe.pk))


@dataclass(frozen=True)
class ProbeGrade:
    """A judge's grade on one probe, for its audit."""

    topic: str
    kind: str  # ProbeItem.Kind label
    key: str
    asked_as: str  # endpoint · model · prompt version
    grade: str  # the grade, or "failed"


def probe_grades_for(judge: MachineJudge) -> list[ProbeGrade]:
    """The judge's grades on its task's probes (one query for its runs, one for the answers).

    Answers are cached per endpoint, model, prompt version, topic and item, so the judge's
    grade on a probe is the answer for a configuration one of its runs asked with, whichever
    run first asked it."""
    configs = set(
        JudgeRun.objects.filter(judge=judge).values_list("endpoint_name", "model", "prompt_version")
    )
    if not configs:
        return []
    asked = Q()
    for endpoint, model, version in configs:
        asked |= Q(endpoint_name=endpoint, model=model, prompt_version=version)
    kinds = dict(ProbeItem.Kind.choices)
    rows = (
        JudgeAnswer.objects.filter(asked, probe__topic__task_id=judge.task_id)
        .values_list(
            "probe__topic__number", "probe__kind", "probe__key",
            "endpoint_name", "model", "prompt_version", "ok", "grade",
        )
    )  # fmt: skip
    found = [
        ProbeGrade(
            topic=number,
            kind=kinds.get(kind, kind),
            key=key,
            asked_as=f"{endpoint} · {model} · prompt v{version}",
            grade=str(grade) if ok else "failed",
        )
        for number, kind, key, endpoint, model, version, ok, grade in rows
    ]
    return sorted(found, key=lambda g: (natural_key(g.topic), g.key, g.asked_as))
