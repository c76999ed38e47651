"""The TREC-style demo campaign: a synthetic news collection judged as a TREC track would be.

``build_trec_demo(...)`` writes the files with ``demo.synthetic.trec``, then goes through the
entry points an organizer uses: ``manage.py import_documents`` and
``import_topics`` in their TREC formats, the run-upload service for every team's runs, the
pools, assignments for alice and bob, simulated colleagues judging through the judging service
(one or two topics dual-assessed), a machine judge imported with ``import_judge``, and qrels
and evaluation like the ARQMath demo's. The task judges on a 0-2 scale (relevant from 1) and
reports nDCG@10, MAP and P@10.

Its pool is budgeted (``POOL_STRATEGY``: MM-NS, 15 judgments per topic, docs/pooling.md): the
colleagues judge in the strategy's priority order, each next document chosen from the topic's
judgments so far as they ask for it (assessment.services.priority), as alice and bob do when
they continue their topics.
"""

from __future__ import annotations

import io
import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

from django.contrib.auth.models import User
from django.core.management import call_command

from assessment.models import Adjudication, Assignment, Judgment, MachineJudge
from assessment.services.guidelines import guidelines_save
from assessment.services.priority import priority_next_item
from collection.models import Campaign, DocumentCollection, RetrievalTask
from collection.services.tasks import task_named
from demo.assignments import colleagues_take_over, demo_assign, first_unjudged_assignments
from demo.judging import simulated_submit
from demo.pools import demo_build_pools
from demo.results import demo_evaluate
from demo.simulation import (
    CAREFUL,
    SIMULATED,
    HitRef,
    Profile,
    hits_by_topic,
    simulated_assessors,
    simulated_judgments,
)
from demo.synthetic.news_vocabulary import SUBJECTS
from demo.synthetic.trec import TrecCampaignFiles, generate_trec, read_qrels
from demo.synthetic.trec_runs import SYSTEMS
from judges.fake_server_process import fake_judge_server
from judges.models import JudgeEndpoint, ProbeItem
from judges.services.probes import probe_add
from pooling.core.algorithms.strategies.priority import pool_strategy
from pooling.models import Hit, PoolItem, Run
from pooling.services.pools import pool_build
from pooling.services.runs import run_submit, team_ensure

__all__ = [
    "JUDGE_NAME",
    "OFFICIAL_MEASURES",
    "SCALE",
    "TREC_CAMPAIGN",
    "TREC_COLLECTION",
    "build_trec_demo",
    "trec_demo_reset",
    "trec_team_names",
]

TREC_CAMPAIGN = "TREC demo"
TREC_COLLECTION = "qsn-news"
JUDGE_NAME = "llm-demo"
LLM_ENDPOINT = "demo-fake-judge"  # the fake judge server the demo starts and stops
LLM_JUDGE_NAME = "llm-from-app"  # its grades, from a judge run inside the app
OFFICIAL_MEASURES = ["ndcg_cut_10", "map", "P_10"]
POOL_DEPTH = {"primary": 20, "alternate": 10}  # small pools: a demo to click through
# A budgeted pool judged in priority order: (strategy, judgments per topic).
POOL_STRATEGY = ("mm-ns", 15)
FLAG_COMMENT = "I cannot tell whether this document is about the topic."
INSTRUCTIONS = (
    "Read the topic's description and narrative: the narrative says what makes a document "
    "relevant. Judge the whole document, not only its headline, and judge each document on "
    "its own, whatever you have seen before."
)
SCALE: dict[str, Any] = {
    "grades": [
        {
            "value": 2,
            "label": "Highly relevant",
            "keys": ["2", "h"],
            "definition": "The document is mainly about the topic, as the narrative describes.",
        },
        {
            "value": 1,
            "label": "Relevant",
            "keys": ["1", "r"],
            "definition": "Part of the document (at least a paragraph) is about the topic.",
        },
        {
            "value": 0,
            "label": "Not relevant",
            "keys": ["0", "n"],
            "definition": "The topic is not discussed, or only mentioned in passing.",
        },
    ],
    "flags": [
        {
            "code": "dont_know",
            "label": "Do not know",
            "keys": ["d"],
            "definition": "You cannot decide; say why in the comment.",
        }
    ],
}


def trec_team_names() -> set[str]:
    return {system.team for system in SYSTEMS}


def build_trec_demo(
    *,
    folder: Path,
    seed: int,
    documents: int,
    topics: int,
    users: dict[str, User],
    write: Callable[[str], None],
) -> None:
    """Build the TREC-style demo campaign from files written under ``folder``."""
    files = generate_trec(folder, seed=seed, documents=documents, topics=min(topics, len(SUBJECTS)))
    write(
        f"  {files.document_count} news documents ({files.html_documents} HTML), "
        f"{len(files.topic_numbers)} topics, {len(files.runs)} runs in {folder}"
    )
    organizer = users.get("organizer")
    task = _import(files, write)
    _configure(task, seed, organizer)
    _submit_runs(task, files, users)
    name, budget = POOL_STRATEGY
    strategy = pool_strategy(name, budget, "topic", seed)
    pool_build(task=task, strategy=strategy)
    write(f"  budgeted pool: {strategy.describe()}, judged in priority order")
    write(demo_build_pools(task.campaign))
    write(demo_assign(task.campaign, topics_each=1))
    write(_judge(task, files, seed, organizer))
    _machine_judge(task, files, write)
    _llm_judge(task, files, write)
    write(demo_evaluate(task.campaign))


def _run_command(write: Callable[[str], None], command: str, *args: str, **options: Any) -> None:
    """``manage.py command`` in-process, its output indented under the demo's step."""
    out = io.StringIO()
    call_command(command, *args, stdout=out, **options)
    for line in out.getvalue().splitlines():
        if line.strip():
            write(f"  {line.strip()}")


def _import(files: TrecCampaignFiles, write: Callable[[str], None]) -> RetrievalTask:
    _run_command(
        write, "import_documents", str(files.documents), collection=TREC_COLLECTION, format="trec"
    )
    _run_command(
        write,
        "import_topics",
        str(files.topics),
        campaign=TREC_CAMPAIGN,
        task="document",
        collection=TREC_COLLECTION,
        format="trec",
    )
    return task_named(TREC_CAMPAIGN, "document")


def _configure(task: RetrievalTask, seed: int, organizer: User | None) -> None:
    campaign = task.campaign
    campaign.seed = seed
    campaign.description = "A synthetic TREC-style news campaign generated by `manage.py demo`."
    campaign.save(update_fields=["seed", "description"])
    task.title = "News retrieval (TREC-style)"
    task.pool_seed = seed
    task.primary_depth, task.alternate_depth = POOL_DEPTH["primary"], POOL_DEPTH["alternate"]
    task.min_relevant = 0  # TREC keeps every topic
    task.official_measures = OFFICIAL_MEASURES
    task.save(
        update_fields=[
            "title",
            "pool_seed",
            "primary_depth",
            "alternate_depth",
            "min_relevant",
            "official_measures",
        ]
    )
    guidelines_save(
        task=task,
        instructions=INSTRUCTIONS,
        scale=SCALE,
        relevance_level=1,
        note="TREC-style 0-2 scale",
        created_by=organizer,
    )


def _submit_runs(task: RetrievalTask, files: TrecCampaignFiles, users: dict[str, User]) -> None:
    for run_file in files.runs:
        team, _ = team_ensure(name=run_file.team)
        team.campaigns.add(task.campaign)  # its members are offered this campaign's tasks only
        uploader = team.members.order_by("id").first() or users.get("organizer")
        with run_file.path.open("rb") as stream:
            run_submit(
                task=task,
                team=team,
                tag=run_file.tag,
                role=run_file.role,
                stream=stream,
                file_name=run_file.path.name,
                uploaded_by=uploader,
                declared_data=Run.DeclaredData.TEXT,
                description=f"Synthetic {run_file.role} run of team {run_file.team}.",
                ignore_deadline=True,
            )


def _judge(task: RetrievalTask, files: TrecCampaignFiles, seed: int, organizer: User | None) -> str:
    """Simulated colleagues take the topics alice and bob do not hold, judge most of them
    (one or two dual-assessed) on the generator's true grades with their own errors; alice
    and bob have made a start on theirs."""
    rng = random.Random(f"trec-demo:{seed}")
    truth = read_qrels(files.truth)
    people = simulated_assessors()
    profiles = {p.pk: SIMULATED.get(p.username, CAREFUL) for p in people}
    simulated = [p for p in people if p.username in SIMULATED]
    started = first_unjudged_assignments(task, [p for p in people if p not in simulated])
    official, duals = colleagues_take_over(task, simulated, organizer, rng)
    _, budget = POOL_STRATEGY
    stored = 0
    # Officials first, in priority order (each next item chosen from the judgments so far);
    # the dual assessors then judge what their colleague judged; alice and bob have begun.
    for assignment, share in (
        *((a, rng.uniform(0.6, 1.0)) for a in official),
        *((a, rng.uniform(0.3, 0.5)) for a in started),
    ):
        for _ in range(round(budget * share)):
            item_id = priority_next_item(assignment=assignment)
            if item_id is None:
                break  # the budget is spent, or the runs hold nothing more
            stored += _simulate(assignment, _hits_of([item_id]), truth, profiles, rng)
    hits = hits_by_topic(task)
    for assignment in duals:
        stored += _simulate(assignment, hits.get(assignment.topic_id, []), truth, profiles, rng)
    return (
        f"  {len(official)} topics judged in priority order by {len(simulated)} simulated "
        f"colleagues, {len(duals)} of them dual-assessed, {stored} judgments"
    )


def _hits_of(item_ids: list[int]) -> list[HitRef]:
    rows = Hit.objects.filter(item_id__in=item_ids).order_by("item_id", "position")
    return [HitRef(hit_id, item_id) for hit_id, item_id in rows.values_list("pk", "item_id")]


def _simulate(
    assignment: Assignment,
    hits: list[HitRef],
    truth: dict[tuple[str, str], int],
    profiles: dict[int, Profile],
    rng: random.Random,
) -> int:
    """One simulated assessor's judgments of ``hits``, stored through the judging service."""
    keys = dict(Hit.objects.filter(pk__in=[h.hit_id for h in hits]).values_list("pk", "item__key"))
    number = assignment.topic.number
    latent = {hit_id: truth.get((number, key), 0) for hit_id, key in keys.items()}
    made = simulated_judgments(
        assignment,
        hits,
        latent,
        profiles[assignment.assessor_id],
        rng,
        top=2,
        flag_comment=FLAG_COMMENT,
    )
    return simulated_submit(made)


def _machine_judge(
    task: RetrievalTask, files: TrecCampaignFiles, write: Callable[[str], None]
) -> None:
    """Import the LLM judge's grades of the pooled documents (what it was asked to judge)."""
    pooled = set(PoolItem.objects.filter(topic__task=task).values_list("topic__number", "key"))
    lines = []
    for line in files.judge_jsonl.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        if (record["topic"], record["docno"]) in pooled:
            lines.append(line)
    path = files.judge_jsonl.with_name(f"{JUDGE_NAME}-pool.jsonl")
    path.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    _run_command(
        write,
        "import_judge",
        str(path),
        campaign=TREC_CAMPAIGN,
        task="document",
        name=JUDGE_NAME,
        format="jsonl",
    )


def _llm_judge(task: RetrievalTask, files: TrecCampaignFiles, write: Callable[[str], None]) -> None:
    """Run an LLM judge from the app: the project's fake judge server (judges/fake_server.py,
    started here as a separate process and stopped after) answers from the generator's true
    grades with a 25% confusion; two probes of the first topic show how it grades them."""
    first = task.topics.order_by("pk").first()
    if first is not None:
        for kind in ProbeItem.Kind.values:
            probe_add(topic=first, kind=kind, seed=1)
    with fake_judge_server(files.truth, "--confusion", "0.25", "--seed", "3") as url:
        JudgeEndpoint.objects.filter(name=LLM_ENDPOINT).delete()
        _run_command(
            write,
            "judge_endpoint",
            "add",
            LLM_ENDPOINT,
            "--base-url",
            url,
            "--model",
            "fake-judge",
            "--concurrency",
            "4",
            "--price-per-1k-tokens",
            "0.002",
        )
        _run_command(
            write,
            "run_judge",
            campaign=TREC_CAMPAIGN,
            task="document",
            endpoint=LLM_ENDPOINT,
            judge=LLM_JUDGE_NAME,
            logprobs=True,
        )


def trec_demo_reset() -> None:
    """Delete the TREC-style demo campaign, its machine judge's account and its collection
    (call inside the reset's transaction)."""
    in_demo = {"hit__item__topic__task__campaign__name": TREC_CAMPAIGN}
    Adjudication.objects.filter(**in_demo).delete()
    Judgment.objects.filter(**in_demo).delete()
    accounts = list(
        MachineJudge.objects.filter(task__campaign__name=TREC_CAMPAIGN).values_list(
            "account_id", flat=True
        )
    )
    Campaign.objects.filter(name=TREC_CAMPAIGN).delete()
    User.objects.filter(pk__in=accounts).delete()
    DocumentCollection.objects.filter(name=TREC_COLLECTION).delete()
    JudgeEndpoint.objects.filter(name=LLM_ENDPOINT).delete()
