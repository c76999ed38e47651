"""Reads for the judge pages and the API: endpoints, a task's runs, a run's status, probes."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from collection.models import RetrievalTask
from judges.models import JudgeAnswer, JudgeEndpoint, JudgeRun, ProbeItem
from kernel.core.ordering import natural_key

__all__ = ["ProbeRow", "endpoint_as_dict", "probes_of", "run_status", "runs_of"]

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
