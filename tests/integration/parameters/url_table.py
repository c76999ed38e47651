"""The table of what every URL's view reads, and the bad values the sweep sends to it.

``URLS`` maps each URL name to its path parameters (a campaign id, or a literal after ``=``),
query parameters and request bodies. Whoever adds a URL adds it here
(``test_every_url_name_has_its_parameters_in_the_table_when_urls_are_walked``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

# Unicode digits (str.isdigit() is true, int() refuses "²" and reads "٣"), beyond bigint,
# negative, zero, empty, text, exponent and hex notations, padding, separators, NUL, a long run.
BAD_VALUES = [
    "²",
    "٣",
    "99999999999999999999999",
    str(2**63),
    "9223372036854775807",
    "-1",
    "0",
    "",
    "abc",
    "1e3",
    "0x10",
    " 1",
    "1_0",
    "nan",
    "1.5",
    "\x00",
    "9" * 5000,
]
# The generic set is sent to every URL with each of these (a shorter list keeps the test fast).
GENERIC_VALUES = ["²", "٣", "99999999999999999999999", "-1", "", "abc", "\x00", "9" * 5000]
SKIPPED_NAMESPACES = {"admin"}
REFUSED = {302, 401, 403}  # the login page, or not for this role
# Sent to every URL at once, as query parameters (GET) and as form fields (POST).
GENERIC = [
    "task",
    "qrels",
    "limit",
    "offset",
    "page",
    "topic",
    "assessor",
    "assessors",
    "assignment",
    "run",
    "format",
    "kind",
    "measure",
    "show",
    "difference",
    "state",
    "ci",
    "formula",
    "hit",
    "grade",
    "action",
    "choice-{hit}",
    "comment-{hit}",
    "active_seconds",
    "opened_at",
    "next",
    "lang",
]


@dataclass(frozen=True)
class Body:
    """A request body: valid ``base`` values, and the ``fields`` to replace by bad values."""

    base: dict[str, Any]
    fields: tuple[str, ...]
    as_json: bool = False


@dataclass(frozen=True)
class Entry:
    """What a URL's view reads: path parameters (→ a campaign attribute or a literal),
    query parameters and request bodies."""

    path: dict[str, str] = field(default_factory=dict)
    query: tuple[str, ...] = ()
    bodies: tuple[Body, ...] = ()


TASK = {"task_id": "task"}
ASSIGNMENT = {"assignment_id": "assignment"}
PAGE = ("limit", "offset")
URLS: dict[str, Entry] = {
    # config
    "home": Entry(),
    "healthz": Entry(),
    "favicon": Entry(),
    "login": Entry(
        query=("next",),
        bodies=(Body({"username": "x", "password": "y"}, ("username", "password")),),
    ),
    "logout": Entry(bodies=(Body({}, ("next",)),)),
    "api-schema": Entry(query=("format", "lang")),
    "api-docs": Entry(),
    # collection
    "collection:thread": Entry(path={"thread_id": "thread"}, query=("formula",)),
    # pooling
    "pooling:runs": Entry(
        bodies=(
            Body(
                {"task": "{task}", "team": "{team}", "tag": "t", "role": "primary"},
                ("task", "team", "tag", "role", "is_manual", "declared_data", "description"),
            ),
        )
    ),
    "pooling:run-detail": Entry(path={"run_id": "run"}),
    "pooling:pools": Entry(),
    "pooling:pool": Entry(path=TASK),
    "pooling:pool-build": Entry(path=TASK),
    "pooling:pool-export": Entry(path={"task_id": "task", "kind": "=hits"}),
    # assessment: assessor pages
    "assessment:home": Entry(),
    "assessment:continue": Entry(path=ASSIGNMENT),
    "assessment:items": Entry(path=ASSIGNMENT, query=("show",)),
    "assessment:judge": Entry(
        path={"assignment_id": "assignment", "item_id": "item"},
        bodies=(
            Body(
                {"choice-{hit}": "2", "comment-{hit}": "", "opened_at": "1"},
                ("choice-{hit}", "comment-{hit}", "active_seconds", "opened_at", "client_token"),
            ),
        ),
    ),
    "assessment:training_round": Entry(path={"round_id": "round"}),
    # assessment: organizer pages
    "assessment:organize": Entry(),
    "assessment:organize_task": Entry(path=TASK),
    "assessment:organize_scope": Entry(
        path={"assignment_id": "scoped_assignment"},
        bodies=(Body({"unjudged": "on"}, ("items", "unjudged")),),
    ),
    "assessment:organize_assignments": Entry(
        path=TASK,
        bodies=(
            Body({"action": "assign", "topics": "{topic}"}, ("action", "topics", "assessor")),
            Body({"action": "balance"}, ("assessors",)),
            Body({"action": "move", "assessor": "{candidate}"}, ("assignment", "assessor")),
            Body({"action": "revoke"}, ("assignment",)),
            Body(
                {"action": "dual", "assessors": "{candidate}", "sample_size": "1"},
                ("assessors", "topics", "sample_size", "seed"),
            ),
        ),
    ),
    "assessment:organize_training": Entry(
        path=TASK,
        bodies=(
            Body(
                {
                    "name": "R",
                    "topics": "{topic}",
                    "assessors": "{candidate}",
                    "gold_source": "expert",
                    "expert": "{candidate}",
                    "items_per_topic": "1",
                },
                ("topics", "assessors", "expert", "items_per_topic", "seed", "gold_source"),
            ),
        ),
    ),
    "assessment:organize_training_archive": Entry(
        path=TASK,
        bodies=(
            Body(
                {"name": "R", "assessors": "{candidate}", "items_per_topic": "1"},
                ("name", "assessors", "items_per_topic", "seed", "topic_numbers", "topic_format"),
            ),
        ),
    ),
    "assessment:organize_agreement": Entry(path=TASK, query=("ci", "machines")),
    "assessment:organize_adjudication": Entry(
        path=TASK,
        query=("topic", "difference", "state", "hit"),
        bodies=(Body({"hit": "{disputed_hit}", "grade": "2"}, ("hit", "grade", "note", "seen")),),
    ),
    "assessment:organize_guidelines": Entry(
        path=TASK,
        query=("version",),
        bodies=(
            Body(
                {"action": "preview", "top": "3", "relevance_level": "2"},
                ("action", "top", "relevance_level", "instructions", "note"),
            ),
        ),
    ),
    "assessment:organize_machine_judges": Entry(
        path=TASK,
        bodies=(
            Body(
                {"name": "sweep-judge", "file_format": "auto"},
                ("name", "description", "file_format", "counts_in_qrels", "file"),
            ),
        ),
    ),
    "assessment:organize_machine_judge": Entry(
        path={"task_id": "task", "judge_id": "judge"},
        bodies=(Body({"action": "counts", "counts": "1"}, ("action", "counts")),),
    ),
    # judges pages
    "judges:endpoints": Entry(
        bodies=(
            Body(
                {
                    "name": "sweep-new",
                    "base_url": "http://127.0.0.1:9/v1",
                    "model": "m",
                    "concurrency": "2",
                    "requests_per_minute": "0",
                    "timeout_seconds": "5",
                },
                (
                    "name",
                    "base_url",
                    "model",
                    "api_key_env",
                    "concurrency",
                    "requests_per_minute",
                    "timeout_seconds",
                    "price_per_1k_tokens",
                ),
            ),
            Body({"action": "remove", "endpoint": "{endpoint}"}, ("action", "endpoint")),
        )
    ),
    "judges:runs": Entry(
        path=TASK,
        bodies=(
            # Never a valid "start": a sweep must queue no run for a worker to take later.
            Body({"action": "probe", "topic": "{topic}", "kind": "stuffed"}, ("topic", "kind")),
            Body({"action": "cancel", "run": "{judge_run}"}, ("action", "run")),
            Body(
                {"action": "start", "endpoint": "0", "judge": "j"},
                ("judge", "prompt_version", "limit", "sample_seed", "logprobs"),
            ),
            Body({"action": "prompt", "template": "x", "note": "n"}, ("template", "note")),
            Body({"action": "remove-probe", "probe": "0"}, ("probe",)),
        ),
    ),
    "assessment:organize_export_judgments": Entry(path=TASK),
    "assessment:organize_export_agreement": Entry(path=TASK),
    # evaluation pages
    "evaluation:index": Entry(),
    "evaluation:results": Entry(path=TASK, query=("qrels", "measure", "run")),
    "evaluation:results-download": Entry(path={"task_id": "task", "fmt": "=csv"}, query=("qrels",)),
    "evaluation:qrels": Entry(
        path=TASK,
        bodies=(
            Body({"action": "evaluate"}, ("qrels",)),
            Body({"action": "measures"}, ("official_measures",)),
            Body({"action": "retry"}, ("job",)),
            Body(
                {"action": "export", "level": "item"},
                ("min_relevant", "use_dual", "level", "allow_incomplete"),
            ),
            Body({}, ("action",)),
        ),
    ),
    "evaluation:publication": Entry(
        path=TASK,
        query=("qrels",),
        bodies=(Body({"action": "publish", "qrels": "{qrels}"}, ("action", "qrels")),),
    ),
    "evaluation:qrels-download": Entry(path={"version_id": "qrels"}),
    "evaluation:job-progress": Entry(path={"job_id": "job"}),
    "evaluation:pool-planner": Entry(
        path=TASK,
        bodies=(
            Body(
                {"source": "judgments", "strategies": "rrf", "seed": "0"},
                ("source", "strategies", "budgets", "seed", "pool_runs", "judged_only"),
            ),
        ),
    ),
    "evaluation:pool-planner-status": Entry(path=TASK),
    "evaluation:human-sample": Entry(
        path=TASK,
        bodies=(
            Body({"judge": "{judge}", "budget": "2", "seed": "0"}, ("judge", "budget", "seed")),
        ),
    ),
    "evaluation:human-sample-assign": Entry(
        path=TASK,
        bodies=(Body({"judge": "{judge}", "assessors": "{candidate}"}, ("judge", "assessors")),),
    ),
    "evaluation:judge-audit": Entry(path={"task_id": "task", "judge_id": "judge"}, query=("ci",)),
    # REST
    "pooling_api:run-list": Entry(
        query=PAGE,
        bodies=(
            Body(
                {"task": "{task}", "tag": "t", "role": "primary"},
                ("task", "team", "role", "depth_override", "is_manual", "declared_data"),
            ),
        ),
    ),
    "pooling_api:run-detail": Entry(path={"pk": "run"}),
    "pooling_api:pool-stats": Entry(path=TASK),
    "pooling_api:pool-build": Entry(path=TASK),
    "judges_api:endpoints": Entry(
        bodies=(
            Body(
                {"name": "sweep-api", "base_url": "http://127.0.0.1:9/v1", "model": "m"},
                (
                    "name",
                    "base_url",
                    "model",
                    "api_key_env",
                    "concurrency",
                    "requests_per_minute",
                    "timeout_seconds",
                    "price_per_1k_tokens",
                ),
                as_json=True,
            ),
        )
    ),
    "judges_api:endpoint": Entry(path={"endpoint_id": "endpoint"}),
    "judges_api:task-runs": Entry(
        path=TASK,
        bodies=(
            # An endpoint no one registered: the sweep queues no run.
            Body(
                {"endpoint": "no-such-endpoint", "judge": "sweep"},
                ("judge", "prompt_version", "limit", "logprobs"),
                as_json=True,
            ),
        ),
    ),
    "judges_api:run": Entry(path={"run_id": "judge_run"}),
    "assessment_api:assignment-list": Entry(query=PAGE),
    "assessment_api:assignment-detail": Entry(path=ASSIGNMENT),
    "assessment_api:assignment-items": Entry(path=ASSIGNMENT, query=PAGE),
    "assessment_api:assignment-item": Entry(
        path={"assignment_id": "assignment", "item_id": "item"}
    ),
    "assessment_api:item-judgments": Entry(
        path={"assignment_id": "assignment", "item_id": "item"},
        bodies=(
            Body(
                {"judgments": [{"hit": "{hit}", "grade": 2}], "active_seconds": 1},
                ("judgments.0.hit", "judgments.0.grade", "judgments.0.flag", "active_seconds"),
                as_json=True,
            ),
        ),
    ),
    "assessment_api:organize-agreement": Entry(path=TASK),
    "assessment_api:organize-assignments": Entry(
        path=TASK,
        bodies=(
            Body(
                {"action": "dual", "assessors": ["{candidate_name}"]},
                ("action", "sample_size", "seed", "assessors.0", "topics.0"),
                as_json=True,
            ),
        ),
    ),
    "assessment_api:organize-machine-judges": Entry(
        path=TASK,
        bodies=(
            Body(
                {"name": "sweep-judge", "format": "auto"},
                ("name", "format", "description", "counts_in_qrels", "file"),
            ),
        ),
    ),
    "assessment_api:organize-machine-judge": Entry(
        path={"task_id": "task", "judge_id": "judge"},
        bodies=(Body({"counts_in_qrels": True}, ("counts_in_qrels",), as_json=True),),
    ),
    "assessment_api:organize-assignment-move": Entry(
        path={"assignment_id": "dual_assignment"},
        bodies=(Body({}, ("assessor",), as_json=True),),
    ),
    "assessment_api:organize-assignment-revoke": Entry(path={"assignment_id": "dual_assignment"}),
    "assessment_api:organize-assignment-scope": Entry(
        path={"assignment_id": "scoped_assignment"},
        bodies=(Body({"unjudged": True}, ("items.0", "items", "unjudged"), as_json=True),),
    ),
    "evaluation_api:qrels-list": Entry(
        query=("task", *PAGE),
        bodies=(
            Body({"task": "{task}"}, ("task", "min_relevant", "level", "use_dual"), as_json=True),
        ),
    ),
    "evaluation_api:qrels-detail": Entry(path={"pk": "qrels"}),
    "evaluation_api:human-sample-assign": Entry(
        path=TASK,
        bodies=(
            Body(
                {"judge": "{judge}", "assessors": ["{candidate_name}"]},
                ("judge", "assessors"),
                as_json=True,
            ),
        ),
    ),
    "evaluation_api:human-sample": Entry(
        path=TASK,
        bodies=(
            Body(
                {"judge": "{judge}", "budget": 2},
                ("judge", "budget", "seed", "uncertain_share"),
                as_json=True,
            ),
        ),
    ),
    "evaluation_api:pool-plans": Entry(
        path=TASK,
        bodies=(
            Body(
                {"source": "judgments", "strategies": ["rrf"]},
                ("source", "strategies", "budgets", "measures", "seed", "pool_runs", "judged_only"),
                as_json=True,
            ),
            Body(
                {"source": "qrels"},
                ("source", "prior", "strategies", "budgets", "seed", "pool_runs", "judged_only"),
            ),
        ),
    ),
    "evaluation_api:pool-plan": Entry(path={"task_id": "task", "plan_id": "=1"}),
    "evaluation_api:pool-plan-result": Entry(path={"task_id": "task", "plan_id": "=1"}),
    "evaluation_api:qrels-download": Entry(path={"pk": "qrels"}),
    "evaluation_api:results-list": Entry(query=("task", "qrels", *PAGE)),
    "evaluation_api:qrels-readiness": Entry(path=TASK, query=("min_relevant", "use_dual")),
    "evaluation_api:official-measures": Entry(
        path=TASK,
        bodies=(Body({"official_measures": ["map"]}, ("official_measures",), as_json=True),),
    ),
    "evaluation_api:publication": Entry(
        path=TASK,
        bodies=(Body({"qrels": "{qrels}"}, ("qrels",), as_json=True),),
    ),
    # nuggets (the campaign's task is not a RAG task: topic and assignment pages answer 404)
    "nuggets:editor": Entry(
        path={"topic_id": "topic"}, bodies=(Body({"endpoint": "e"}, ("endpoint",)),)
    ),
    "nuggets:assign": Entry(path=ASSIGNMENT, query=("at",)),
    "nuggets:scores": Entry(path=TASK),
    "nuggets:runs": Entry(path=TASK, bodies=(Body({"tag": "t"}, ("tag", "team", "file")),)),
    "nuggets:adjudication": Entry(
        path=TASK,
        query=("answer", "machine", "state"),
        bodies=(Body({"answer": 1, "final-1": "support"}, ("answer", "final-1", "note")),),
    ),
    "nuggets:published": Entry(path=TASK, bodies=(Body({"action": "publish"}, ("action",)),)),
    "nuggets_api:rag-run-upload": Entry(
        bodies=(Body({"task": "{task}"}, ("task", "tag", "team", "file", "description")),)
    ),
    "nuggets_api:topic-nuggets": Entry(
        path={"topic_id": "topic"},
        bodies=(
            Body(
                {"action": "add", "text": "a fact"},
                ("action", "nugget", "nuggets.0", "proposal", "text", "importance", "position"),
                as_json=True,
            ),
        ),
    ),
    "nuggets_api:assignment-labels": Entry(
        path=ASSIGNMENT,
        bodies=(
            Body(
                {"answer": 1, "labels": {"1": "support"}}, ("answer", "client_token"), as_json=True
            ),
        ),
    ),
    "nuggets_api:assignment-citations": Entry(
        path=ASSIGNMENT,
        bodies=(
            Body(
                {"answer": 1, "labels": [{"sentence": 0, "segment": "s", "support": "full"}]},
                ("answer", "labels.0.sentence", "labels.0.segment", "labels.0.support"),
                as_json=True,
            ),
        ),
    ),
    "nuggets_api:task-scores": Entry(path=TASK),
    "nuggets_api:task-adjudication": Entry(
        path=TASK,
        query=("state", "machine"),
        bodies=(
            Body(
                {"answer": 1, "finals": {"1": "support"}},
                ("answer", "finals.1", "note", "machine"),
                as_json=True,
            ),
        ),
    ),
    "nuggets_api:task-publication": Entry(
        path=TASK, bodies=(Body({"action": "publish"}, ("action",), as_json=True),)
    ),
}
